# `tapt` recompute path: pretraining + classifier training and QLoRA zero-shot (authors' accuracies schema).
#
# training (GPU on a cluster)  tapt_train_shard: one subsample of (m, n, BERT/GPT-2-type LM,
#                              dataset): acc_base, acc_extra, acc_test (Sections 4.1-4.3, 8)
#                              tapt_zero_shot_shard: the same for (Q)LoRA zero-shot (Section 9)
# merge (CPU, cheap)           tapt_train_merge -> results/tapt/recompute/accuracies/
#                              m{m}/n{n}/{lm}/{dataset}/accuracies.csv (the authors' schema)
#                              tapt_train_manifest -> results/tapt/recompute/manifest.csv: the
#                              contract with the analysis rules (every accuracies.csv of the
#                              configured runs exists once it does).
# Config: `tapt.training` (config.yaml). One shard per subsample: a rerun after a kill redoes
# only the missing shards, and gives identical numbers.


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
            unpack(tapt_shard_inputs),
        output:
            accuracies=f"{TAPT_TRAIN_SHARDS}/{{i}}.accuracies.csv",
            predictions=f"{TAPT_TRAIN_SHARDS}/{{i}}.predictions.csv.gz",
            metrics=f"{TAPT_TRAIN_SHARDS}/{{i}}.metrics.csv",
        log:
            "logs/tapt/recompute/m{m}/n{n}/{lm}/{dataset}/{i}.log",
        benchmark:
            "logs/tapt/recompute/m{m}/n{n}/{lm}/{dataset}/{i}.benchmark.tsv"
        wildcard_constraints:
            lm=tapt_lm_regex(zero_shot=_zero_shot),
            m=r"\d+",
            n=r"\d+",
            dataset=r"[^/]+",
            i=r"\d{3}",
        conda:
            ENV["gpu"]
        threads: TAPT_TRAINING["threads"]
        resources:
            gpu=1,
            mem_mb=_mem_mb,
            runtime=_runtime,
        params:
            run=tapt_shard_params,
        script:
            "../scripts/tapt_train_shard.py"


rule tapt_train_merge:
    """The authors' accuracies.csv (one row per subsample) from the shards of one run."""
    input:
        unpack(tapt_shard_files),
    output:
        accuracies=f"{TAPT_TRAIN_ACCURACIES}/accuracies.csv",
        subsamples=f"{TAPT_TRAIN_ACCURACIES}/subsamples.csv",
        predictions=f"{TAPT_TRAIN_ACCURACIES}/predictions.csv.gz",
        metrics=f"{TAPT_TRAIN_ACCURACIES}/train_metrics.csv",
    log:
        "logs/tapt/recompute/m{m}/n{n}/{lm}/{dataset}/merge.log",
    wildcard_constraints:
        m=r"\d+",
        n=r"\d+",
        lm=r"[^/]+",
        dataset=r"[^/]+",
    localrule: True
    conda:
        ENV["lm"]
    script:
        "../scripts/tapt_train_merge.py"


rule tapt_train_manifest:
    """Every accuracies.csv of the configured runs: the analysis rules' input."""
    input:
        accuracies=tapt_recompute_accuracy_files,
    output:
        manifest="results/tapt/recompute/manifest.csv",
    log:
        "logs/tapt/recompute/manifest.log",
    localrule: True
    conda:
        ENV["core"]
    params:
        runs=_tapt_settings.runs(TAPT_TRAINING),
    script:
        "../scripts/tapt_train_manifest.py"
