"""Rules baselines_make_figure<N>: one figure of the paper (PDF + PNG)."""

from evalsci.studies.baselines import steps
from evalsci.workflow import logged

smk = snakemake  # noqa: F821 (injected by Snakemake)
with logged(smk):
    steps.make_figure(smk.params.figure, list(smk.output), dict(smk.input.items()),
                      smk.params.cfg, smk.params.recompute)
