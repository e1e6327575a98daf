"""Rule audit_data_from_baselines: the baselines study's released results -> a runs table."""

from evalsci.studies.baselines import steps
from evalsci.workflow import logged

smk = snakemake
with logged(smk):
    steps.make_audit_runs(smk.params.source, smk.input.bundle, smk.output.runs)
