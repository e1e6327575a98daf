# Helpers of the `mc_icl` rules (mc_icl.smk): parameters, paths and input functions. No
# rules here.
from evalsci.lm.load import model_spec as _mc_icl_model_spec
from evalsci.lm.load import workflow_inputs as _mc_icl_model_inputs
from evalsci.studies.mc_icl.params import PAPER_MODELS as _MC_ICL_PAPER_MODELS
from evalsci.studies.mc_icl.params import RUN_PATTERN as MC_ICL_RUN
from evalsci.studies.mc_icl.params import effective as _mc_icl_effective
from evalsci.studies.mc_icl.params import one_shot_figures as _mc_icl_one_shot_figures
from evalsci.studies.mc_icl.params import trial_figures as _mc_icl_trial_figures

# The study's settings, built once (a frozen, typed object): the rules, scripts and functions
# take this, not the config dict.
MC_ICL = _mc_icl_effective(config["mc_icl"], config["lm"].get("models") or {})
MC_ICL_OFFLINE = {"sst2", "rte", "wnli", "mrpc"}
# Appendix figure numbers of this configuration (Snakefile targets mc_icl_figures_*).
MC_ICL_ONE_SHOT_FIGURES = _mc_icl_one_shot_figures(MC_ICL)
MC_ICL_TRIAL_FIGURES = _mc_icl_trial_figures(MC_ICL)


def mc_icl_scores(model, dataset, runs=None):
    runs = runs or [f"trial{i}" for i in range(MC_ICL.num_trials)]
    return [f"results/mc_icl/scores/{model}/{dataset}/{r}.parquet" for r in runs]


def mc_icl_all_trial_scores(wildcards=None):
    return [s for m in MC_ICL.models for d in MC_ICL.datasets for s in mc_icl_scores(m, d)]


def mc_icl_all_set_scores(wildcards=None):
    sel = MC_ICL.selection
    runs = ["set_high", "set_low", "set_random"]
    return [s for m in sel.models for d in sel.datasets for s in mc_icl_scores(m, d, runs)]


def mc_icl_model_spec(name):
    """config lm.models[name], else the paper's model of that name as a hub id."""
    models = config["lm"].get("models") or {}
    if name not in models and name in _MC_ICL_PAPER_MODELS:
        return {"hub": _MC_ICL_PAPER_MODELS[name]}
    return _mc_icl_model_spec(models, name)  # the clear error for an unknown name


def mc_icl_shard_inputs(wildcards):
    inputs = {}
    if wildcards.dataset in MC_ICL_OFFLINE:
        inputs["glue"] = released("glue")
    inputs["checkpoint"] = _mc_icl_model_inputs(mc_icl_model_spec(wildcards.model))
    if wildcards.mc_icl_run.startswith("set_"):
        inputs["sets"] = f"results/mc_icl/selection/{wildcards.model}/{wildcards.dataset}/sets.json"
    return inputs


def mc_icl_shard_model_spec(wildcards):
    return mc_icl_model_spec(wildcards.model)


def mc_icl_selection_inputs(wildcards):
    """A model's trial scores on a dataset, and the glue bundle where the dataset is offline."""
    offline = wildcards.dataset in MC_ICL_OFFLINE
    return {
        "scores": mc_icl_scores(wildcards.model, wildcards.dataset),
        "glue": released("glue") if offline else [],
    }


def mc_icl_selected_sets(wildcards=None):
    sel = MC_ICL.selection
    return [f"results/mc_icl/selection/{m}/{d}/sets.json" for m in sel.models for d in sel.datasets]


# The files of the study's named targets, which depend on its settings: the Snakefile makes one
# rule per target of the artefact registry (src/evalsci/artefacts.yaml) from these.
MC_ICL_TARGETS = {
    "mc_icl_figure1": [
        figure("mc_icl", "figure1"),
        "results/mc_icl/tables/accuracy_by_k.csv",
        table("mc_icl", "summary"),
    ],
    "mc_icl_figure2": [
        figure("mc_icl", "figure2"),
    ],
    "mc_icl_figure3": [
        figure("mc_icl", "figure3"),
    ],
    "mc_icl_figure4": [
        figure("mc_icl", "figure4"),
    ],
    "mc_icl_figures_one_shot": [
        [figure("mc_icl", f"figure{n}") for n in MC_ICL_ONE_SHOT_FIGURES],
    ],
    "mc_icl_figures_trials": [
        [figure("mc_icl", f"figure{n}") for n in MC_ICL_TRIAL_FIGURES],
    ],
}
