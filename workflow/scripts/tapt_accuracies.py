"""Rule tapt_accuracies: every accuracies.csv of the source as one long table."""

from evalsci.pipeline.jobs import logged
from evalsci.studies.tapt import steps

with logged(snakemake):  # noqa: F821
    inp = snakemake.input  # noqa: F821
    steps.accuracies(
        inp.get("bundle"), list(inp.files) if hasattr(inp, "files") else None, snakemake.output[0]
    )  # noqa: F821
