"""One subsample of the tapt training path (rules tapt_train_shard and tapt_zero_shot_shard:
the LM type's method selects pretraining + classifier or (Q)LoRA zero-shot)."""

from evalsci.pipeline.jobs import configure_threads, logged

with logged(snakemake):  # noqa: F821
    smk = snakemake  # noqa: F821
    configure_threads(smk.threads)
    from evalsci.data.hf_classification import load_frame
    from evalsci.studies.tapt.training.shards import ShardPaths, run_shard

    run = smk.params.run
    settings = run["settings"]
    frame = load_frame(
        settings["dataset"],
        data_files=smk.input.get("data_files"),
        glue_root=smk.input.get("glue"),
        revision=run.get("revision"),
    )
    run_shard(
        settings,
        frame,
        m=int(smk.wildcards.m),
        n=int(smk.wildcards.n),
        i=int(smk.wildcards.i),
        paths=ShardPaths(smk.output.accuracies, smk.output.predictions, smk.output.metrics),
        lm_models=run["lm_models"],
        device=run["device"],
        cpu_dtype=run["cpu_dtype"],
    )
