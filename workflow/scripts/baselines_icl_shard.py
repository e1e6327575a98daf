"""Rule baselines_icl_shard: few-shot BIG-bench inference for a range of prompts."""

from evalsci.workflow import configure_threads, logged

smk = snakemake  # noqa: F821
with logged(smk):
    configure_threads(smk.threads)
    from evalsci.studies.baselines.shards import run_shard

    run_shard(
        model=smk.wildcards.model,
        spec=smk.params.spec,
        task=smk.wildcards.task,
        shots=int(smk.wildcards.shots),
        start=int(smk.wildcards.start),
        stop=int(smk.wildcards.stop),
        bigbench_dir=smk.input.bigbench,
        idxs_dir=f"{smk.input.aggregated}/few-shot-eval/subsampled-idxs",
        per_example_dir=smk.input.per_example or None,
        settings=smk.params.settings,
        lm=smk.params.lm,
        seed=smk.params.seed,
        out=smk.output.shard,
        work_dir=smk.params.work_dir,
    )
