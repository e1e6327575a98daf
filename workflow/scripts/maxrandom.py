"""Rule `maxrandom`: answer a study's random-baseline requests (see evalsci.maxrandom.requests)."""

from evalsci.maxrandom.requests import answer_file
from evalsci.workflow import logged

with logged(snakemake):  # noqa: F821 (injected by Snakemake)
    answer_file(
        snakemake.input.requests,
        snakemake.output.baselines,  # noqa: F821
        snakemake.output.distributions,
    )  # noqa: F821
