"""Rule tapt_make_beta_table: beta posteriors of every fit in one table."""

from evalsci.pipeline.jobs import logged
from evalsci.studies.tapt import steps

with logged(snakemake):  # noqa: F821
    steps.make_beta_table(list(snakemake.input), snakemake.output)  # noqa: F821
