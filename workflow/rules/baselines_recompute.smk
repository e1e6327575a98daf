# `baselines` recompute path: our own ICL inference on BIG-bench Lite (authors' per-example schema).
#
# shards (GPU jobs: prompts [start, stop) of one model x task x shots; resumable per prompt)
# -> one cell: results/baselines/recompute/results/<Model>_<task>_<K>-shot.csv.gz (+ .options)
# -> results/baselines/recompute/results/aggregated-results.json
# The analysis rules (baselines.smk) read that directory when the study recomputes.
# Grid: config baselines.recompute (its preset: workflow/presets/baselines/<scale>.yaml).
# Helpers (grid, paths, input functions): baselines_common.smk.


rule baselines_icl_shard:
    """Few-shot inference for prompts [start, stop) of one model x task x shots (GPU on a
    cluster: 4-bit NF4; CPU here: SmolLM2). Killed and rerun, it redoes only unfinished
    prompts (kept in results/baselines/recompute/partial/)."""
    input:
        bigbench=released("bigbench"),
        aggregated=released("srb_aggregated"),
        # the authors' per-example CSVs hold the demonstration IDs of their prompts
        per_example=(
            released("srb_per_example") if BASELINES_ICL.demonstrations == "released" else []
        ),
        checkpoint=baselines_icl_checkpoint,
    output:
        shard=f"{BASELINES_ICL_DIR}/shards/{{model}}/{{task}}/{{shots}}-shot/prompts-{{start}}-{{stop}}.csv.gz",
    log:
        "logs/baselines/recompute/{model}/{task}_{shots}-shot_{start}-{stop}.log",
    benchmark:
        "logs/baselines/recompute/{model}/{task}_{shots}-shot_{start}-{stop}.benchmark.tsv"
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
        spec=baselines_icl_model_spec,
        settings=BASELINES_ICL,
        lm=config["lm"],
        seed=config["seed"],
        work_dir=baselines_icl_work_dir,
    script:
        "../scripts/baselines_icl_shard.py"


rule baselines_icl_cell:
    """The shards of one experiment -> the authors' per-example CSV + per-option scores."""
    input:
        shards=baselines_icl_shards,
    output:
        per_example=f"{BASELINES_ICL_DIR}/results/{{model}}_{{task}}_{{shots}}-shot.csv.gz",
        options=f"{BASELINES_ICL_DIR}/results/{{model}}_{{task}}_{{shots}}-shot.options.csv.gz",
    log:
        "logs/baselines/recompute/{model}/{task}_{shots}-shot_cell.log",
    wildcard_constraints:
        model=r"[^/_]+",
        task=r"[a-z_]+",
        shots=r"\d+",
    conda:
        ENV["core"]
    script:
        "../scripts/baselines_icl_cell.py"


rule baselines_icl_aggregated:
    """Per-prompt accuracies of every recomputed experiment (authors' aggregated-results.json)."""
    input:
        per_example=_baselines_icl.per_example_files(BASELINES_ICL, BASELINES_ICL_DIR),
    output:
        aggregated=f"{BASELINES_ICL_DIR}/results/aggregated-results.json",
    log:
        "logs/baselines/recompute/aggregated.log",
    conda:
        ENV["core"]
    params:
        cell_keys=[_baselines_icl.cell_key(*c) for c in BASELINES_ICL_CELLS],
    script:
        "../scripts/baselines_icl_aggregated.py"


# Table 2 (paper 000 Appendix C): each precision pair's NF4 and full-precision runs.
rule baselines_make_table2:
    """Table 2: verdicts of the NF4 and the full-precision run of every experiment, and the
    share of identical predictions between them."""
    input:
        per_example=list(
            _baselines_table2.cell_files(BASELINES_ICL, BASELINES_RECOMPUTE_DIR).values()
        ),
        options=list(
            _baselines_table2.cell_files(
                BASELINES_ICL, BASELINES_RECOMPUTE_DIR, "options"
            ).values()
        ),
        baselines=maxrandom_file("baselines"),
    output:
        report(
            table("baselines", "table2"),
            caption="../report/baselines_table2.rst",
            category="baselines",
            subcategory="tables",
        ),
    log:
        "logs/baselines/table2.log",
    conda:
        ENV["core"]
    params:
        settings=BASELINES_ICL,
    script:
        "../scripts/baselines_table2.py"
