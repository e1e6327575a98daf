"""Rule baselines_heldout_splits: our seeded 75/25 split procedure (Section 5.2)."""

from evalsci.workflow import configure_threads, logged

smk = snakemake  # noqa: F821 (injected by Snakemake)
with logged(smk):
    configure_threads(1)  # parallel over experiments, not inside numpy
    from evalsci.studies.baselines import steps  # after the thread cap: it imports numpy

    steps.heldout_splits(
        smk.input.per_example,
        smk.output.splits,
        smk.params.cfg,
        smk.params.recompute,
        smk.params.seed,
        smk.threads,
    )
