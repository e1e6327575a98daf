"""Rule baselines_make_heldout_tables: Tables 3 (per model) and 4 (per dataset)."""

from evalsci.studies.baselines import steps
from evalsci.workflow import logged

smk = snakemake  # noqa: F821 (injected by Snakemake)
with logged(smk):
    steps.heldout_tables(smk.input.predictions, list(smk.output.table3), list(smk.output.table4))
