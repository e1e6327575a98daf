# `tapt` recompute path: pretraining + classifier training and QLoRA zero-shot (authors' accuracies schema).
#
# training (GPU on a cluster)  tapt_train_shard: one subsample of (m, n, BERT/GPT-2-type LM,
#                              dataset): acc_base, acc_extra, acc_test (Sections 4.1-4.3, 8)
#                              tapt_zero_shot_shard: the same for (Q)LoRA zero-shot (Section 9)
# merge (CPU, cheap)           tapt_train_merge -> the run's accuracies.csv (the authors' schema)
#                              tapt_train_manifest -> the manifest: the contract with the
#                              analysis rules (every accuracies.csv of the configured runs
#                              exists once it does).
# Config: `tapt.training`; paths: TAPT_PLAN (the recompute files: TAPT_PLAN.shard,
# TAPT_PLAN.run, TAPT_PLAN.manifest); functions: evalsci.studies.tapt.steps (train_*). One
# shard per subsample: a rerun after a kill redoes only the missing shards, and gives identical
# numbers.


include: "tapt_common.smk"


# One subsample's acc_base, acc_extra, acc_test, by one of two rules that differ only in the LMs
# they match and their resources:
#   tapt_train_shard      MLM/CLM pretraining + classifier (BERT/GPT-2-type LMs)
#   tapt_zero_shot_shard  (Q)LoRA on task prompts, zero-shot (Section 9)
for _kind, _zero_shot, _mem_mb, _runtime in (
    ("train", False, 16000, 60),
    ("zero_shot", True, 32000, 90),
):

    rule:
        name:
            f"tapt_{_kind}_shard"
        input:
            code=TAPT_STEPS,
            data_files=tapt_data_files,
            glue=tapt_glue,
            checkpoint=tapt_checkpoint,
        output:
            **TAPT_PLAN.shard,
        log:
            tapt_log("recompute/m{m}/n{n}/{lm}/{dataset}/{i}"),
        benchmark:
            tapt_benchmark("recompute/m{m}/n{n}/{lm}/{dataset}/{i}")
        wildcard_constraints:
            lm=tapt_lm_regex(zero_shot=_zero_shot),
            m=r"\d+",
            n=r"\d+",
            dataset=r"[^/]+",
            i=r"\d{3}",
        conda:
            ENV["gpu"]
        threads: TAPT.training.threads
        resources:
            gpu=1,
            mem_mb=_mem_mb,
            runtime=_runtime,
        params:
            function="train_shard",
            settings=tapt_run_settings,
            lm_models=config["lm"].get("models", {}),
            device=TAPT.training.device,
            cpu_dtype=config["lm"]["cpu_dtype"],
            revision=tapt_revision,
        script:
            "../scripts/call.py"


rule tapt_train_merge:
    """The authors' accuracies.csv (one row per subsample) from the shards of one run."""
    input:
        unpack(tapt_shard_files),
        code=TAPT_STEPS,
    output:
        **TAPT_PLAN.run,
    log:
        tapt_log("recompute/m{m}/n{n}/{lm}/{dataset}/merge"),
    wildcard_constraints:
        m=r"\d+",
        n=r"\d+",
        lm=r"[^/]+",
        dataset=r"[^/]+",
    localrule: True
    conda:
        ENV["lm"]
    params:
        function="train_merge",
    script:
        "../scripts/call.py"


rule tapt_train_manifest:
    """Every accuracies.csv of the configured runs: the analysis rules' input."""
    input:
        code=TAPT_STEPS,
        accuracies=tapt_recompute_accuracy_files,
    output:
        manifest=TAPT_PLAN.manifest,
    log:
        tapt_log("recompute/manifest"),
    localrule: True
    conda:
        ENV["core"]
    params:
        function="train_manifest",
        training=recorded(TAPT.training),
    script:
        "../scripts/call.py"
