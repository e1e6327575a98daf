"""Rule baselines_make_table1: Table 1 (standard vs max random baseline, 288 experiments)."""

from evalsci.studies.baselines import steps
from evalsci.workflow import logged

smk = snakemake  # noqa: F821 (injected by Snakemake)
with logged(smk):
    steps.make_table1(
        smk.input.aggregated,
        smk.input.baselines,
        list(smk.output),
        smk.params.cfg,
        smk.params.recompute,
    )
