"""Rule tapt_make_table1: Table 1 (exact means next to the paper's values)."""

from evalsci.studies.tapt import steps
from evalsci.workflow import logged

with logged(snakemake):  # noqa: F821
    steps.make_table1(snakemake.input[0], snakemake.output)  # noqa: F821
