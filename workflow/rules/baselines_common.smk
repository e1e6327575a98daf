# Helpers of the `baselines` rules (baselines.smk, baselines_recompute.smk): paths, the
# source switch, the recompute grid and the rules' input functions. No rules here.
from evalsci.studies.baselines import recompute_grid as _baselines_icl
from evalsci.studies.baselines import table2 as _baselines_table2
from evalsci.studies.baselines.settings import configured_cells as _baselines_cells

BASELINES = config["baselines"]
BASELINES_RECOMPUTE_DIR = "results/baselines/recompute/results"
BASELINES_PREDICTIONS = "results/baselines/data/heldout_predictions.csv"
BASELINES_SPLITS = "results/baselines/data/heldout_splits.csv"
# Figures 1-11 of 000 (also 001's), and 001's Figure 9 (p-values vs normalized scores).
BASELINES_FIGURES = [f"figure{i}" for i in range(1, 12)] + ["figure9_001"]
BASELINES_RECOMPUTE = recompute("baselines")
# Our own held-out splits (always when recomputing; the authors' CSVs otherwise).
BASELINES_RESPLIT = BASELINES_RECOMPUTE or bool(BASELINES["heldout"]["resplit"])
BASELINES_AGGREGATED = (
    f"{BASELINES_RECOMPUTE_DIR}/aggregated-results.json"
    if BASELINES_RECOMPUTE
    else released("srb_aggregated")
)
BASELINES_PER_EXAMPLE = (
    [
        f"{BASELINES_RECOMPUTE_DIR}/{c.key}.csv.gz"
        for c in _baselines_cells(BASELINES, recompute=True)
    ]
    if BASELINES_RECOMPUTE
    else released("srb_per_example")
)
# Inputs per figure: held-out ROC/PR figures read predictions; analytic ones (2, 6, 7) only
# the maxrandom answers; the rest also per-prompt accuracies (Figure 1 the distributions).
# One job draws them all (baselines_make_figures).
BASELINES_FIGURE_INPUTS = {
    name: (
        {"predictions": BASELINES_PREDICTIONS}
        if name in ("figure5", "figure8")
        else {
            "baselines": maxrandom_file("baselines"),
            **(
                {}
                if name in ("figure2", "figure6", "figure7", "figure9_001")
                else {"aggregated": BASELINES_AGGREGATED}
            ),
            **(
                {"distributions": maxrandom_file("baselines", "distributions")}
                if name == "figure1"
                else {}
            ),
        }
    )
    for name in BASELINES_FIGURES
}

# The recompute path (baselines_recompute.smk). Its grid: config baselines.recompute, from the
# baselines preset (workflow/presets/baselines/).
# Its settings, built once (a frozen, typed object): every rule, script and function of the
# recompute path takes this, not the config dict.
BASELINES_ICL = _baselines_icl.RecomputeSettings.from_config(BASELINES["recompute"])
# Unknown or unusable model names fail here, before any job, listing the known ones.
_baselines_icl.check_models(BASELINES_ICL, config["lm"]["models"])
BASELINES_ICL_DIR = "results/baselines/recompute"
# (model, task, shots) of every recomputed experiment.
BASELINES_ICL_CELLS = _baselines_icl.cells(BASELINES_ICL)
# Table 2: both models of every precision pair exist and are not forced the wrong way.
_baselines_table2.check_pairs(
    BASELINES_ICL,
    config["lm"]["models"],
    "config baselines.recompute",
)


def baselines_icl_model_spec(wildcards):
    """config lm.models[<model>] of a shard job."""
    return lm_model_spec_of(config["lm"]["models"], wildcards.model)


def baselines_icl_mem_mb(wildcards):
    """Host memory of a shard job: the model's own `mem_mb` (config lm.models), else 16 GB,
    which a 4-bit 7B model fits in (a full-precision one asks for more)."""
    return int(baselines_icl_model_spec(wildcards).get("mem_mb", 16000))


def baselines_icl_checkpoint(wildcards):
    """The files the shard's model loads from (the converted SmolLM2 checkpoint, ...)."""
    return lm_inputs_of(baselines_icl_model_spec(wildcards))


def baselines_icl_work_dir(wildcards):
    """Where a shard keeps its finished prompts until it is complete (resume after a kill)."""
    w = wildcards
    return (
        f"{BASELINES_ICL_DIR}/partial/{w.model}/{w.task}/{w.shots}-shot/prompts-{w.start}-{w.stop}"
    )


def baselines_icl_shards(wildcards):
    """The shard files of one (model, task, shots) cell."""
    w = wildcards
    return _baselines_icl.shard_files(BASELINES_ICL, BASELINES_ICL_DIR, w.model, w.task, w.shots)
