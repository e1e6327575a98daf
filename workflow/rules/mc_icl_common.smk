# Helpers of the `mc_icl` rules (mc_icl.smk): settings, the study's file plan, its code and
# the rules' input functions. No rules here.
from evalsci.lm.load import model_spec as _mc_icl_model_spec
from evalsci.lm.load import workflow_inputs as _mc_icl_model_inputs
from evalsci.studies.mc_icl.params import PAPER_MODELS as _MC_ICL_PAPER_MODELS
from evalsci.studies.mc_icl.params import RUN_PATTERN as MC_ICL_RUN
from evalsci.studies.mc_icl.params import effective as _mc_icl_effective
from evalsci.studies.mc_icl.params import one_shot_figures as _mc_icl_one_shot_figures
from evalsci.studies.mc_icl.params import trial_figures as _mc_icl_trial_figures
from evalsci.studies.mc_icl.plan import benchmark as mc_icl_benchmark
from evalsci.studies.mc_icl.plan import log as mc_icl_log
from evalsci.studies.mc_icl.plan import plan as _mc_icl_plan
from evalsci.studies.mc_icl.plan import RECORD as _MC_ICL_RECORD
from evalsci.studies.mc_icl.plan import RECORDED_CPU as _MC_ICL_RECORDED_CPU

# The study's settings, built once (a frozen, typed object): the rules and functions take
# this, not the config dict.
MC_ICL = _mc_icl_effective(config["mc_icl"], config["lm"].get("models") or {})
# Every path the study's rules read and write (evalsci.studies.mc_icl.plan), from them.
MC_ICL_PLAN = _mc_icl_plan(MC_ICL)
# The module of the functions the study's rules run (workflow/scripts/call.py).
MC_ICL_STEPS = code("evalsci.studies.mc_icl.steps")
MC_ICL_OFFLINE = {"sst2", "rte", "wnli", "mrpc"}
# The committed copy of the recorded CPU-scale run the claims ledger rests on (its record and
# findings), and the presets of the paper's setup it checks.
MC_ICL_RECORDED = Path(SRC, *_MC_ICL_RECORDED_CPU)
MC_ICL_CLAIMS_INPUTS = {
    "record": str(MC_ICL_RECORDED / _MC_ICL_RECORD),
    "findings": str(MC_ICL_RECORDED / MC_ICL_PLAN.findings),
    "presets": [
        str(Path(workflow.basedir, "workflow", "presets", "mc_icl", f"{p}.yaml"))
        for p in ("default", "paper")
    ],
}
# Appendix figure numbers of this configuration (targets mc_icl_figures_*).
MC_ICL_ONE_SHOT_FIGURES = _mc_icl_one_shot_figures(MC_ICL)
MC_ICL_TRIAL_FIGURES = _mc_icl_trial_figures(MC_ICL)


def mc_icl_all_trial_scores(wildcards=None):
    return MC_ICL_PLAN.trial_scores()


def mc_icl_all_set_scores(wildcards=None):
    return MC_ICL_PLAN.set_scores()


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
        inputs["sets"] = MC_ICL_PLAN.sets_of(wildcards.model, wildcards.dataset)
    return inputs


def mc_icl_shard_model_spec(wildcards):
    return mc_icl_model_spec(wildcards.model)


def mc_icl_selection_inputs(wildcards):
    """A model's trial scores on a dataset, and the glue bundle where the dataset is offline."""
    offline = wildcards.dataset in MC_ICL_OFFLINE
    return {
        "scores": MC_ICL_PLAN.scores_of(wildcards.model, wildcards.dataset),
        "glue": released("glue") if offline else [],
    }


def mc_icl_selected_sets(wildcards=None):
    return MC_ICL_PLAN.selected_sets()


# The files of the study's named targets, which depend on its settings: the Snakefile makes one
# rule per target of the artefact registry (src/evalsci/pipeline/artefacts.yaml) from these.
MC_ICL_TARGETS = {
    "mc_icl_figure1": [
        MC_ICL_PLAN.figure_of(1),
        MC_ICL_PLAN.accuracy_by_k,
        MC_ICL_PLAN.summary,
    ],
    "mc_icl_figure2": [MC_ICL_PLAN.figure_of(2)],
    "mc_icl_figure3": [MC_ICL_PLAN.figure_of(3)],
    "mc_icl_figure4": [MC_ICL_PLAN.figure_of(4)],
    "mc_icl_figures_one_shot": [MC_ICL_PLAN.figure_of(n) for n in MC_ICL_ONE_SHOT_FIGURES],
    "mc_icl_figures_trials": [MC_ICL_PLAN.figure_of(n) for n in MC_ICL_TRIAL_FIGURES],
}
