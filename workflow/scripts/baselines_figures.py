"""Rule baselines_make_figures: the paper's figures (PDF + PNG each)."""

from evalsci.studies.baselines import steps
from evalsci.workflow import logged

smk = snakemake  # noqa: F821 (injected by Snakemake)
with logged(smk):
    steps.make_figures(
        {name: list(smk.output[name]) for name in smk.params.figures},
        dict(smk.input.items()),
        smk.params.cfg,
        smk.params.recompute,
    )
