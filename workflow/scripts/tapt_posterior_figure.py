"""Rule tapt_make_posterior_figures: Figures 2-4 and posteriors of beta of one family."""

from evalsci.pipeline.jobs import logged
from evalsci.studies.tapt import steps

with logged(snakemake):  # noqa: F821
    smk = snakemake  # noqa: F821
    steps.make_posterior_figure(
        list(smk.input), smk.wildcards.family, smk.output.ppd, smk.output.beta
    )
