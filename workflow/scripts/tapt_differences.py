"""Rule tapt_make_differences: per-task difference distributions of every configuration."""

from evalsci.pipeline.jobs import logged
from evalsci.studies.tapt import steps

with logged(snakemake):  # noqa: F821
    steps.make_differences_figures(
        snakemake.input[0],
        snakemake.params.configs,  # noqa: F821
        snakemake.output,
    )  # noqa: F821
