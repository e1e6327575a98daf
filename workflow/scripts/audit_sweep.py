"""Rule audit_build_sweep: the leaderboard's flipped share against t."""

from evalsci.studies.audit import run
from evalsci.workflow import logged

smk = snakemake  # noqa: F821 (injected by Snakemake)
with logged(smk):
    run.make_sweep(smk.input.detail, smk.input.baselines, list(smk.output.table),
                   list(smk.output.figure), smk.params.cfg)
