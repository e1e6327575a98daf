"""Rule baselines_make_per_example_check: per-example CSVs vs aggregated-results.json."""

from evalsci.workflow import configure_threads, logged

smk = snakemake  # noqa: F821 (injected by Snakemake)
with logged(smk):
    configure_threads(1)
    from evalsci.studies.baselines import steps  # after the thread cap: it imports numpy

    steps.per_example_check(
        smk.input.per_example,
        smk.input.aggregated,
        smk.input.subsampled,
        smk.input.bigbench,
        smk.output.checks,
        smk.output.pairs,
        smk.output.quirks,
        smk.params.cfg,
        smk.params.recompute,
        smk.threads,
    )
