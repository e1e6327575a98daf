"""Rule tapt_make_permutation_tests: per-task paired permutation tests with BH."""

from evalsci.pipeline.jobs import logged
from evalsci.studies.tapt import steps

with logged(snakemake):  # noqa: F821
    smk = snakemake  # noqa: F821
    steps.make_permutation(
        smk.input[0],
        smk.output.tests,
        smk.output.summary,
        seed=smk.params.seed,
        n_resamples=smk.params.n_resamples,
        alpha=smk.params.alpha,
    )
