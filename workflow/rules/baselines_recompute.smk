# `baselines` recompute path: our own ICL inference on BIG-bench Lite (authors' per-example schema).
#
# shards (GPU jobs: prompts [start, stop) of one model x task x shots; resumable per prompt)
# -> one cell: results/baselines/recompute/results/<Model>_<task>_<K>-shot.csv.gz (+ .options)
# -> results/baselines/recompute/results/aggregated-results.json
# The analysis rules (baselines.smk) read that directory when the study recomputes.
# Scale: config baselines.recompute (scale default = SmolLM2 on CPU; full = the paper).

from evalsci.studies.baselines import recompute_grid as _bl_icl
from evalsci.studies.baselines import table2 as _bl_table2

BL_ICL_CFG = config["baselines"]["recompute"]
BL_ICL = _bl_icl.settings(BL_ICL_CFG)
# Unknown or unusable model names fail here, before any job, listing the known ones.
_bl_icl.check_models(BL_ICL_CFG, config["lm"]["models"])
BL_ICL_DIR = "results/baselines/recompute"
# (model, task, shots) of every recomputed experiment.
BL_ICL_CELLS = _bl_icl.cells(BL_ICL_CFG)


rule baselines_icl_shard:
    """Few-shot inference for prompts [start, stop) of one model x task x shots (GPU on a
    cluster: 4-bit NF4; CPU here: SmolLM2). Killed and rerun, it redoes only unfinished
    prompts (kept in results/baselines/recompute/partial/)."""
    input:
        bigbench=released("bigbench"),
        aggregated=released("srb_aggregated"),
        # the authors' per-example CSVs hold the demonstration IDs of their prompts
        per_example=(
            released("srb_per_example") if BL_ICL.get("demonstrations") == "released" else []
        ),
        checkpoint=lambda wc: lm_inputs_of(lm_model_spec_of(config["lm"]["models"], wc.model)),
    output:
        shard=f"{BL_ICL_DIR}/shards/{{model}}/{{task}}/{{shots}}-shot/prompts-{{start}}-{{stop}}.csv.gz",
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
        ENV["lm"]
    threads: config["lm"]["threads"]
    resources:
        gpu=1,
        # a 4-bit 7B model fits in 16 GB of host memory; a full-precision one asks for more
        mem_mb=lambda wc: int(
            lm_model_spec_of(config["lm"]["models"], wc.model).get("mem_mb", 16000)
        ),
        runtime=240,
    params:
        spec=lambda wc: lm_model_spec_of(config["lm"]["models"], wc.model),
        recompute=BL_ICL_CFG,
        lm=config["lm"],
        seed=config["seed"],
        work_dir=lambda wc: (
            f"{BL_ICL_DIR}/partial/{wc.model}/{wc.task}/{wc.shots}-shot/"
            f"prompts-{wc.start}-{wc.stop}"
        ),
    script:
        "../scripts/baselines_icl_shard.py"


rule baselines_icl_cell:
    """The shards of one experiment -> the authors' per-example CSV + per-option scores."""
    input:
        shards=lambda wc: _bl_icl.shard_files(BL_ICL_CFG, BL_ICL_DIR, wc.model, wc.task, wc.shots),
    output:
        per_example=f"{BL_ICL_DIR}/results/{{model}}_{{task}}_{{shots}}-shot.csv.gz",
        options=f"{BL_ICL_DIR}/results/{{model}}_{{task}}_{{shots}}-shot.options.csv.gz",
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
        per_example=_bl_icl.per_example_files(BL_ICL_CFG, BL_ICL_DIR),
    output:
        aggregated=f"{BL_ICL_DIR}/results/aggregated-results.json",
    log:
        "logs/baselines/recompute/aggregated.log",
    conda:
        ENV["core"]
    params:
        cell_keys=[_bl_icl.cell_key(*c) for c in BL_ICL_CELLS],
    script:
        "../scripts/baselines_icl_aggregated.py"


# Table 2 (paper 000 Appendix C): each precision pair's NF4 and full-precision runs.
_bl_table2.check_pairs(
    BL_ICL, config["lm"]["models"], f"config baselines.recompute.{BL_ICL_CFG['scale']}"
)


rule baselines_make_table2:
    """Table 2: verdicts of the NF4 and the full-precision run of every experiment, and the
    share of identical predictions between them."""
    input:
        per_example=list(_bl_table2.cell_files(BL_ICL, f"{BL_ICL_DIR}/results").values()),
        options=list(_bl_table2.cell_files(BL_ICL, f"{BL_ICL_DIR}/results", "options").values()),
        baselines=BL_BASELINES,
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
        settings=BL_ICL,
    script:
        "../scripts/baselines_table2.py"
