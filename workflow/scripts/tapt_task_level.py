"""Rule tapt_make_task_level: Section 7 per-task averages."""

from evalsci.pipeline.jobs import logged
from evalsci.studies.tapt import steps

with logged(snakemake):  # noqa: F821
    steps.make_task_level(snakemake.input[0], snakemake.output)  # noqa: F821
