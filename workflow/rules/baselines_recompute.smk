# `baselines` recompute path: our own ICL inference on BIG-bench Lite (authors' per-example schema).
#
# shards (GPU jobs: prompts [start, stop) of one model x task x shots; resumable per prompt)
# -> one cell: results/baselines/recompute/results/<Model>_<task>_<K>-shot.csv.gz (+ .options)
# -> results/baselines/recompute/results/aggregated-results.json
# The analysis rules (baselines.smk) read that directory when the study recomputes.
# Grid: config baselines.recompute (its preset: workflow/presets/baselines/<scale>.yaml).
# Paths: the study's plan (BASELINES_PLAN); helpers (grid, input functions): baselines_common.smk.


rule baselines_icl_shard:
    """Few-shot inference for prompts [start, stop) of one model x task x shots (GPU on a
    cluster: 4-bit NF4; CPU here: SmolLM2). Killed and rerun, it redoes only unfinished
    prompts (kept in results/baselines/recompute/partial/)."""
    input:
        code=BASELINES_STEPS,
        bigbench=released("bigbench"),
        aggregated=released("srb_aggregated"),
        # the authors' per-example CSVs hold the demonstration IDs of their prompts
        per_example=(
            released("srb_per_example") if BASELINES_ICL.demonstrations == "released" else []
        ),
        checkpoint=baselines_icl_checkpoint,
    output:
        shard=BASELINES_PLAN.shard,
    log:
        baselines_log("recompute/{model}/{task}_{shots}-shot_{start}-{stop}"),
    benchmark:
        baselines_benchmark("recompute/{model}/{task}_{shots}-shot_{start}-{stop}")
    wildcard_constraints:
        model=r"[^/_]+",
        task=r"[a-z_]+",
        shots=r"\d+",
        start=r"\d+",
        stop=r"\d+",
    conda:
        ENV["gpu"]
    threads: config["lm"]["threads"]
    resources:
        gpu=1,
        # a 4-bit 7B model fits in 16 GB of host memory; a full-precision one asks for more
        mem_mb=baselines_icl_mem_mb,
        runtime=240,
    params:
        function="icl_shard",
        spec=baselines_icl_model_spec,
        settings=recorded(BASELINES_ICL),
        lm=config["lm"],
        seed=config["seed"],
        work_dir=baselines_icl_work_dir,
    script:
        "../scripts/call.py"


rule baselines_icl_cell:
    """The shards of one experiment -> the authors' per-example CSV + per-option scores."""
    input:
        code=BASELINES_STEPS,
        shards=baselines_icl_shards,
    output:
        per_example=BASELINES_PLAN.cell_per_example,
        options=BASELINES_PLAN.cell_options,
    log:
        baselines_log("recompute/{model}/{task}_{shots}-shot_cell"),
    wildcard_constraints:
        model=r"[^/_]+",
        task=r"[a-z_]+",
        shots=r"\d+",
    conda:
        ENV["core"]
    params:
        function="icl_cell",
    script:
        "../scripts/call.py"


rule baselines_icl_aggregated:
    """Per-prompt accuracies of every recomputed experiment (authors' aggregated-results.json)."""
    input:
        code=BASELINES_STEPS,
        per_example=BASELINES_PLAN.recompute_per_example,
    output:
        aggregated=BASELINES_PLAN.recompute_aggregated,
    log:
        baselines_log("recompute/aggregated"),
    conda:
        ENV["core"]
    params:
        function="icl_aggregated",
        cell_keys=[_baselines_icl.cell_key(*c) for c in _baselines_icl.cells(BASELINES_ICL)],
    script:
        "../scripts/call.py"


# Table 2 (paper 000 Appendix C): each precision pair's NF4 and full-precision runs.
rule baselines_make_table2:
    """Table 2: verdicts of the NF4 and the full-precision run of every experiment, and the
    share of identical predictions between them."""
    input:
        code=BASELINES_STEPS,
        per_example=BASELINES_PLAN.table2_per_example,
        options=BASELINES_PLAN.table2_options,
        baselines=BASELINES_PLAN.baselines,
    output:
        table=report(
            BASELINES_PLAN.outputs["table2_unquantized"],
            caption="../report/baselines_table2.rst",
            category="baselines",
            subcategory="tables",
        ),
    log:
        baselines_log("table2"),
    conda:
        ENV["core"]
    params:
        function="make_table2",
        settings=recorded(BASELINES_ICL),
    script:
        "../scripts/call.py"
