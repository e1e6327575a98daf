"""Rule tapt_accuracies: every accuracies.csv of the source as one long table."""

from evalsci.studies.tapt import data, steps
from evalsci.workflow import logged

with logged(snakemake):  # noqa: F821
    inp = snakemake.input  # noqa: F821
    released = not hasattr(inp, "files")
    files = data.released_files(inp.bundle) if released else list(inp.files)
    steps.write_accuracies(files, snakemake.output[0], released=released)  # noqa: F821
