# Helpers of the `mc_icl` rules (kept apart from the rules, as snakemake --lint asks).
from evalsci.studies.mc_icl.params import effective as _mc_icl_effective
from evalsci.lm.load import model_spec as _mc_icl_model_spec
from evalsci.lm.load import workflow_inputs as _mc_icl_model_inputs
from evalsci.studies.mc_icl.params import RUN_PATTERN as _MC_ICL_RUN
from evalsci.studies.mc_icl.params import PAPER_MODELS, one_shot_figures, trial_figures

MC_ICL = _mc_icl_effective(config["mc_icl"], config["lm"].get("models") or {})
MC_ICL_OFFLINE = {"sst2", "rte", "wnli", "mrpc"}


def mc_icl_scores(model, dataset, runs=None):
    runs = runs or [f"trial{i}" for i in range(MC_ICL["num_trials"])]
    return [f"results/mc_icl/scores/{model}/{dataset}/{r}.parquet" for r in runs]


def mc_icl_all_trial_scores(wildcards=None):
    return [s for m in MC_ICL["models"] for d in MC_ICL["datasets"] for s in mc_icl_scores(m, d)]


def mc_icl_all_set_scores(wildcards=None):
    sel = MC_ICL["selection"]
    runs = ["set_high", "set_low", "set_random"]
    return [s for m in sel["models"] for d in sel["datasets"] for s in mc_icl_scores(m, d, runs)]


def mc_icl_model_spec(name):
    """config lm.models[name], else the paper's model of that name as a hub id."""
    models = config["lm"].get("models") or {}
    if name not in models and name in PAPER_MODELS:
        return {"hub": PAPER_MODELS[name]}
    return _mc_icl_model_spec(models, name)  # the clear error for an unknown name


def mc_icl_shard_inputs(wildcards):
    inputs = {}
    if wildcards.dataset in MC_ICL_OFFLINE:
        inputs["glue"] = released("glue")
    inputs["checkpoint"] = _mc_icl_model_inputs(mc_icl_model_spec(wildcards.model))
    if wildcards.mc_icl_run.startswith("set_"):
        inputs["sets"] = f"results/mc_icl/selection/{wildcards.model}/{wildcards.dataset}/sets.json"
    return inputs
