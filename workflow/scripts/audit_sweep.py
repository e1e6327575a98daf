"""Rule audit_make_sweep: the leaderboard's flipped share against t."""

from evalsci.audit import steps
from evalsci.workflow import logged

smk = snakemake  # noqa: F821 (injected by Snakemake)
with logged(smk):
    steps.make_sweep(
        smk.input.detail,
        smk.input.baselines,
        list(smk.output.table),
        list(smk.output.figure),
        smk.params.cfg,
    )
