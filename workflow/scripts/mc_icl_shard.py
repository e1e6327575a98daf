"""Adapter: Algorithm 1 scores for one (model, dataset, trial) or one Section 5.2 set."""

from evalsci.workflow import configure_threads, logged

with logged(snakemake):  # noqa: F821
    smk = snakemake  # noqa: F821
    configure_threads(smk.threads)
    from evalsci.studies.mc_icl.shards import run_shard

    run_shard(
        smk.wildcards.model,
        smk.params.spec,
        smk.wildcards.dataset,
        smk.wildcards.mc_icl_run,
        smk.params.params,
        smk.params.seed,
        smk.output.scores,
        glue_root=smk.input.get("glue"),
        sets_path=smk.input.get("sets"),
        lm=smk.params.lm,
    )
