"""Rule tapt_make_recovery: Figure 8 (recovery of null and non-null beta)."""

from evalsci.pipeline.jobs import configure_threads, logged

with logged(snakemake):  # noqa: F821
    smk = snakemake  # noqa: F821
    configure_threads(1)
    from evalsci.studies.tapt import steps  # after the thread cap: it imports numpy

    steps.make_recovery(
        n_subsamples=smk.params.n_subsamples,
        beta_nonnull=smk.params.beta_nonnull,
        target_accept=smk.params.target_accept,
        seed=smk.params.seed,
        bayes_cfg=smk.params.bayes,
        cores=smk.threads,
        table_out=smk.output.table,
        figure_out=smk.output.figure,
    )
