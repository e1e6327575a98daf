"""Rule tapt_make_table1: Table 1 (exact means next to the paper's values)."""

from evalsci.pipeline.jobs import logged
from evalsci.studies.tapt import steps

with logged(snakemake):  # noqa: F821
    steps.make_table1(snakemake.input[0], snakemake.output)  # noqa: F821
