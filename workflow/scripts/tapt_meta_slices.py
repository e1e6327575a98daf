"""Rule tapt_meta_slices: Section 10 fits to unreplicated slices of one configuration."""

from evalsci.pipeline.jobs import configure_threads, logged

with logged(snakemake):  # noqa: F821
    smk = snakemake  # noqa: F821
    configure_threads(1)  # one process per worker, one thread each
    from evalsci.studies.tapt import steps  # after the thread cap: it imports numpy

    steps.make_meta_slices(
        smk.input[0],
        smk.wildcards.config,
        n_slices=smk.params.n_slices,
        target_accept=smk.params.target_accept,
        tune=smk.params.tune,
        seed=smk.params.seed,
        workers=smk.threads,
        count_rule=smk.params.count_rule,
        bayes_cfg=smk.params.bayes,
        out=smk.output[0],
    )
