"""Rule tapt_make_task_level: Section 7 per-task averages."""

from evalsci.studies.tapt import steps
from evalsci.workflow import logged

with logged(snakemake):  # noqa: F821
    steps.make_task_level(snakemake.input[0], snakemake.output)  # noqa: F821
