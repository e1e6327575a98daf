"""Rule tapt_accuracies: every accuracies.csv of the source as one long table."""

from evalsci.studies.tapt import data, steps
from evalsci.workflow import logged

with logged(snakemake):  # noqa: F821
    inp = snakemake.input  # noqa: F821
    files = list(inp.files) if hasattr(inp, "files") else data.released_files(inp.bundle)
    steps.write_accuracies(files, snakemake.output[0])  # noqa: F821
