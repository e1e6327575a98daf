# Helpers of the `baselines` rules (baselines.smk, baselines_recompute.smk): the study's file
# plan, its code, and the rules' input functions. No rules here.
from evalsci.studies.baselines import recompute_grid as _baselines_icl
from evalsci.studies.baselines import table2 as _baselines_table2
from evalsci.studies.baselines.plan import FIGURES as BASELINES_FIGURES
from evalsci.studies.baselines.plan import log as baselines_log
from evalsci.studies.baselines.plan import benchmark as baselines_benchmark
from evalsci.studies.baselines.plan import plan as _baselines_plan

BASELINES = config["baselines"]
# Every path the study's rules read and write (evalsci.studies.baselines.plan), from the
# settings; the rules name its entries and spell no path of their own.
BASELINES_PLAN = _baselines_plan(config)
# The module of the functions the study's rules run (workflow/scripts/call.py).
BASELINES_STEPS = code("evalsci.studies.baselines.steps")

# The recompute grid's settings (config baselines.recompute, from the baselines preset),
# built once by the plan: a frozen, typed object that the recompute rules and functions take.
BASELINES_ICL = BASELINES_PLAN.settings
# Unknown or unusable model names fail here, before any job, listing the known ones.
_baselines_icl.check_models(BASELINES_ICL, config["lm"]["models"])
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
    return BASELINES_PLAN.shard_work_dir(**dict(wildcards.items()))


def baselines_icl_shards(wildcards):
    """The shard files of one (model, task, shots) cell."""
    return BASELINES_PLAN.shards(wildcards.model, wildcards.task, wildcards.shots)
