# Helpers of the `assessors` rules (assessors.smk): paths and input functions. No rules here.
from sys import stderr as _assessors_stderr

from evalsci.studies.assessors.names import check_released_names as _assessors_check_names
from evalsci.studies.assessors.settings import AssessorsSettings as _assessors_settings

# The study's settings, built once (a frozen, typed object): the rules, scripts and functions
# take this, not the config dict. Its collections are the enabled ones (`enabled: false`
# switches one off).
ASSESSORS = _assessors_settings.from_config(config["assessors"])
ASSESSORS_COLLECTIONS = ASSESSORS.collection_names
# A typo in a collection's LLM or dataset names stops the parse, not the first job.
for _collection in ASSESSORS.collections:
    _assessors_check_names(_collection)


def assessors_dir(collection):
    return f"results/assessors/{collection}"


def assessors_data_files(collection):
    """The normalised tables, embeddings and splits a per-split job reads."""
    d = f"{assessors_dir(collection)}/data"
    return {
        "instances": f"{d}/instances.csv.gz",
        "success": f"{d}/success.csv.gz",
        "embeddings": f"{d}/embeddings.npy",
        "splits": f"{d}/splits.csv",
        "irt": f"{d}/irt.npz",
    }


def assessors_split_names(collection):
    return ASSESSORS.collection(collection).split_names


def assessors_table(collection, name):
    """A per-collection paper table (CSV, Markdown, LaTeX)."""
    return multiext(f"{assessors_dir(collection)}/tables/{name}", ".csv", ".md", ".tex")


def assessors_figure(collection, name):
    """A per-collection paper figure (PDF, PNG)."""
    return multiext(f"{assessors_dir(collection)}/figures/{name}", ".pdf", ".png")


def assessors_source(wildcards):
    """The released bundle (and, for HELM, the run list) a collection reads."""
    c = ASSESSORS.collection(wildcards.collection)
    inputs = {}
    if c.bundle:
        inputs["bundle"] = released(c.bundle)
    if c.loader == "helm":
        inputs["run_list"] = released("helm_lite_runs")
    return inputs


def assessors_nref_collections(fig):
    return [c.name for c in ASSESSORS.collections if c.nref_figure == fig]


def assessors_collection(wildcards):
    """The settings of a job's collection (config assessors.collections.<collection>)."""
    return ASSESSORS.collection(wildcards.collection)


def assessors_run_files(wildcards):
    """The per-split runs of one collection."""
    return [
        f"{assessors_dir(wildcards.collection)}/runs/{s}.csv.gz"
        for s in assessors_split_names(wildcards.collection)
    ]


def assessors_prediction_files(wildcards):
    """The per-split prediction vectors of one collection (same order as the runs)."""
    return [
        f"{assessors_dir(wildcards.collection)}/runs/{s}_predictions.npz"
        for s in assessors_split_names(wildcards.collection)
    ]


def assessors_nref_files(wildcards):
    """The per-split n_ref sweeps of one collection."""
    return [
        f"{assessors_dir(wildcards.collection)}/nref/{s}.csv.gz"
        for s in assessors_split_names(wildcards.collection)
    ]


# Leave-one-model-out validation of `evalsci reference` against tinyBenchmarks (config
# assessors.lomo): its benchmarks, each read from the PredictaBoard bundle (every run) or from
# a collection's normalised success table.
ASSESSORS_LOMO = ASSESSORS.lomo
ASSESSORS_LOMO_BENCHMARKS = ASSESSORS.lomo_benchmarks
from evalsci.studies.assessors.lomo import (  # noqa: E402
    LEADERBOARD_BENCHMARKS as _LOMO_LEADERBOARD,
)

# A collection switched off is skipped everywhere (schema: `enabled`), here too: said, not silent.
for _bench in set(ASSESSORS_LOMO.active_benchmarks) - set(ASSESSORS_LOMO_BENCHMARKS):
    print(
        f"assessors.lomo: benchmark {_bench!r} left out: its collection is switched off",
        file=_assessors_stderr,
    )


def assessors_lomo_source(wildcards):
    """The bundle (leaderboard benchmarks) or the success table (collections) a benchmark reads."""
    if wildcards.bench in _LOMO_LEADERBOARD:
        return {"bundle": released("predictaboard")}
    return {"success": assessors_data_files(wildcards.bench)["success"]}


def assessors_lomo_outputs(kind):
    """The leave-one-model-out table, its paired tests, or its figure."""
    if kind == "figure":
        return multiext("results/assessors/figures/lomo", ".pdf", ".png")
    name = "lomo" if kind == "table" else "lomo_tests"
    return multiext(f"results/assessors/tables/{name}", ".csv", ".md", ".tex")


# The files of the study's named targets, which depend on its settings: the Snakefile makes one
# rule per target of the artefact registry (src/evalsci/artefacts.yaml) from these.
ASSESSORS_TARGETS = {
    "assessors_figure2": [
        [assessors_figure(c, "figure2") for c in ASSESSORS_COLLECTIONS],
        [assessors_table(c, "figure2") for c in ASSESSORS_COLLECTIONS],
    ],
    "assessors_table3": [
        table("assessors", "table3"),
    ],
    "assessors_figure8": [
        [assessors_figure(c, "figure8") for c in assessors_nref_collections("figure8")],
    ],
    "assessors_figure9": [
        [assessors_figure(c, "figure9") for c in assessors_nref_collections("figure9")],
    ],
    # empty when assessors.lomo is switched off
    "assessors_lomo": [
        (
            [assessors_lomo_outputs(k) for k in ("table", "tests", "figure")]
            if ASSESSORS_LOMO_BENCHMARKS
            else []
        ),
    ],
}
