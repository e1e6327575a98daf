# Helpers of the `assessors` rules (assessors.smk): settings, the study's file plan, its code
# and the rules' input functions. No rules here.
from sys import stderr as _assessors_stderr

from evalsci.studies.assessors.names import check_released_names as _assessors_check_names
from evalsci.studies.assessors.plan import benchmark as assessors_benchmark
from evalsci.studies.assessors.plan import log as assessors_log
from evalsci.studies.assessors.plan import plan as _assessors_plan
from evalsci.studies.assessors.settings import AssessorsSettings as _assessors_settings

# The study's settings, built once (a frozen, typed object): the rules and functions take
# this, not the config dict. Its collections are the enabled ones (`enabled: false`
# switches one off).
ASSESSORS = _assessors_settings.from_config(config["assessors"])
ASSESSORS_COLLECTIONS = ASSESSORS.collection_names
# Every path the study's rules read and write (evalsci.studies.assessors.plan), from them.
ASSESSORS_PLAN = _assessors_plan(ASSESSORS)
# The module of the functions the study's rules run (workflow/scripts/call.py).
ASSESSORS_STEPS = code("evalsci.studies.assessors.steps")
# A typo in a collection's LLM or dataset names stops the parse, not the first job.
for _collection in ASSESSORS.collections:
    _assessors_check_names(_collection)


def assessors_source(wildcards):
    """The released bundle (and, for HELM, the run list) a collection reads."""
    c = ASSESSORS.collection(wildcards.collection)
    inputs = {}
    if c.bundle:
        inputs["bundle"] = released(c.bundle)
    if c.loader == "helm":
        inputs["run_list"] = released("helm_lite_runs")
    return inputs


def assessors_collection(wildcards):
    """The settings of a job's collection (config assessors.collections.<collection>)."""
    return recorded(ASSESSORS.collection(wildcards.collection))  # a param Snakemake records


def assessors_run_files(wildcards):
    """The per-split runs of one collection."""
    return ASSESSORS_PLAN.per_split(ASSESSORS_PLAN.results, wildcards.collection)


def assessors_prediction_files(wildcards):
    """The per-split prediction vectors of one collection (same order as the runs)."""
    return ASSESSORS_PLAN.per_split(ASSESSORS_PLAN.predictions, wildcards.collection)


def assessors_nref_files(wildcards):
    """The per-split n_ref sweeps of one collection."""
    return ASSESSORS_PLAN.per_split(ASSESSORS_PLAN.nref, wildcards.collection)


# Leave-one-model-out validation of `evalsci reference` against tinyBenchmarks (config
# assessors.lomo): its benchmarks, each read from the PredictaBoard bundle (every run) or from
# a collection's normalised success table.
ASSESSORS_LOMO = ASSESSORS.lomo
ASSESSORS_LOMO_BENCHMARKS = ASSESSORS.lomo_benchmarks
from evalsci.data.leaderboard import (  # noqa: E402
    LEADERBOARD_BENCHMARKS as _LOMO_LEADERBOARD,
)

# A collection switched off is skipped everywhere (schema: `enabled`), here too: said, not silent.
for _bench in set(ASSESSORS_LOMO.active_benchmarks) - set(ASSESSORS_LOMO_BENCHMARKS):
    print(
        f"assessors.lomo: benchmark {_bench!r} left out: its collection is switched off",
        file=_assessors_stderr,
    )


if not ASSESSORS_PLAN.judges_claims:
    print(
        "assessors claims: left out: the ledger judges the paper on the stand-ins "
        "cfi_ground_truth and predictaboard, and assessors.collections enables "
        f"{list(ASSESSORS_COLLECTIONS)}",
        file=_assessors_stderr,
    )


def assessors_lomo_source(wildcards):
    """The bundle (leaderboard benchmarks) or the success table (collections) a benchmark reads."""
    if wildcards.benchmark in _LOMO_LEADERBOARD:
        return {"bundle": released("predictaboard")}
    return {"success": ASSESSORS_PLAN.of(ASSESSORS_PLAN.success, wildcards.benchmark)}


# The files of the study's named targets, which depend on its settings: the Snakefile makes one
# rule per target of the artefact registry (src/evalsci/pipeline/artefacts.yaml) from these.
ASSESSORS_TARGETS = {
    "assessors_figure2": [
        ASSESSORS_PLAN.collections(ASSESSORS_PLAN.figure2),
        ASSESSORS_PLAN.collections(ASSESSORS_PLAN.figure2_table),
    ],
    "assessors_table3": [ASSESSORS_PLAN.table3_all],
    "assessors_figure8": [ASSESSORS_PLAN.nref_figures("figure8")],
    "assessors_figure9": [ASSESSORS_PLAN.nref_figures("figure9")],
    # empty unless the collections are the two stand-ins the ledger judges the paper on
    "assessors_claims": [ASSESSORS_PLAN.claims if ASSESSORS_PLAN.judges_claims else []],
    # empty when assessors.lomo is switched off
    "assessors_lomo": [
        (
            [ASSESSORS_PLAN.lomo_table, ASSESSORS_PLAN.lomo_tests, ASSESSORS_PLAN.lomo_figure]
            if ASSESSORS_LOMO_BENCHMARKS
            else []
        ),
    ],
}
