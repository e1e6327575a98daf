# Helpers of the `tapt` rules (tapt.smk, tapt_recompute.smk): paths, the configurations of
# the source, the fits, shard lists and the rules' input functions. No rules here.
# Included by tapt_recompute.smk, which the Snakefile includes before tapt.smk.
import re

from evalsci.data.hf_classification import get_spec as _tapt_dataset_spec
from evalsci.studies.tapt import data as _tapt_data
from evalsci.studies.tapt import targets as _tapt_targets
from evalsci.studies.tapt.training import models as _tapt_models
from evalsci.studies.tapt.training import settings as _tapt_settings

TAPT = config["tapt"]
# on_failure "auto": a failed convergence check fails the job on the released data, but only
# warns on our own embedded recompute demo, whose few subsamples cannot pass the checks.
# A resolved copy: the config itself stays as the user wrote it.
# backend "auto": PyMC's NUTS under portable arithmetic (the same draws on every CPU), nutpie
# without it.
TAPT_BAYES = {
    **TAPT["bayes"],
    "backend": _tapt_targets.resolve_backend(TAPT["bayes"], config["portable"]),
    "on_failure": _tapt_targets.resolve_on_failure(TAPT["bayes"]["on_failure"], recompute("tapt")),
}
TAPT_ACCURACIES = "results/tapt/data/accuracies.csv"
TAPT_FIT = _tapt_targets.FIT
TAPT_TRAINING = TAPT["training"]
TAPT_TRAIN_SHARDS = "results/tapt/recompute/shards/m{m}/n{n}/{lm}/{dataset}"
TAPT_TRAIN_ACCURACIES = "results/tapt/recompute/accuracies/m{m}/n{n}/{lm}/{dataset}"


def tapt_lm_regex(zero_shot):
    names = [
        lm
        for lm in TAPT_TRAINING["lm_types"]
        if _tapt_settings.is_zero_shot(TAPT_TRAINING, lm) == zero_shot
    ]
    return "|".join(re.escape(x) for x in names) or "^$"


def tapt_recompute_accuracy_files(wildcards=None):
    """Every accuracies.csv the configured recompute runs write (for the analysis rules)."""
    return [
        f"{TAPT_TRAIN_ACCURACIES.format(**r)}/accuracies.csv"
        for r in _tapt_settings.runs(TAPT_TRAINING)
    ]


def tapt_shard_files(wildcards):
    n_sub = _tapt_settings.num_subsamples(TAPT_TRAINING, int(wildcards.n))
    base = TAPT_TRAIN_SHARDS.format(**wildcards)
    return {
        kind: [f"{base}/{i:03d}.{kind}.{ext}" for i in range(1, n_sub + 1)]
        for kind, ext in (("accuracies", "csv"), ("predictions", "csv.gz"), ("metrics", "csv"))
    }


def tapt_shard_inputs(wildcards):
    """The data (the glue bundle for sst2, or local files) and a converted checkpoint."""
    inputs = {}
    files = TAPT_TRAINING["data_files"].get(wildcards.dataset)
    if files:
        inputs["data_files"] = files
    elif _tapt_dataset_spec(wildcards.dataset).source == "glue":
        inputs["glue"] = released("glue")
    model = _tapt_settings.lm_type(TAPT_TRAINING, wildcards.lm)["model"]
    for i, path in enumerate(_tapt_models.required_inputs(model, config["lm"].get("models"))):
        inputs[f"model{i}"] = path
    return inputs


def tapt_shard_params(wildcards):
    return {
        "settings": _tapt_settings.run_settings(TAPT_TRAINING, wildcards.lm, wildcards.dataset),
        "lm_models": config["lm"].get("models", {}),
        "device": TAPT_TRAINING["device"],
        "cpu_dtype": config["lm"]["cpu_dtype"],
        "revision": TAPT_TRAINING.get("revisions", {}).get(wildcards.dataset),  # None: hub.lock
    }


def tapt_configs():
    """Configurations of the source (recompute: those of the training rules' files)."""
    return _tapt_targets.present_configs(
        recompute("tapt"), tapt_recompute_accuracy_files, _tapt_data.RELEASED_CONFIGS
    )


def tapt_fit_stems():
    return _tapt_targets.fit_stems(TAPT, tapt_configs())


def tapt_meta_configs():
    return _tapt_targets.meta_configs(TAPT, tapt_configs())


def tapt_targets(kind):
    """Output files of the named targets with a variable number of files (Snakefile, tapt)."""
    if kind == "differences":
        return [f for c in tapt_configs() for f in figure("tapt", f"differences_{c}")]
    if kind == "posterior_predictive":
        return [
            f
            for fam in _tapt_targets.families(tapt_fit_stems())
            for name in (f"posterior_predictive_{fam}", f"beta_{fam}")
            for f in figure("tapt", name)
        ]
    if kind == "meta_analysis":
        if not tapt_meta_configs():
            return []
        return [*table("tapt", "meta_analysis"), *figure("tapt", "meta_analysis")]
    raise ValueError(f"no tapt target kind {kind!r}")


def tapt_accuracies_source(wildcards):
    """The accuracies the analysis reads: the recompute rules' files, or the released bundle."""
    if recompute("tapt"):
        return {"files": tapt_recompute_accuracy_files()}
    return {"bundle": released("pretrain_on_test")}


def tapt_family_draws(wildcards):
    return _tapt_targets.family_draws(tapt_fit_stems(), wildcards.family)


def tapt_meta_slices(wildcards):
    return expand("results/tapt/meta/{config}_slices.csv", config=tapt_meta_configs())


# The files of the study's named targets, which depend on its settings: the Snakefile makes one
# rule per target of the artefact registry (src/evalsci/pipeline/artefacts.yaml) from these.
TAPT_TARGETS = {
    "tapt_table1": [
        table("tapt", "table1"),
    ],
    "tapt_task_level": [
        table("tapt", "task_level"),
    ],
    "tapt_differences": [
        tapt_targets("differences"),
    ],
    "tapt_permutation": [
        table("tapt", "permutation_tests"),
        table("tapt", "permutation_summary"),
    ],
    "tapt_beta_posteriors": [
        table("tapt", "beta_posteriors"),
    ],
    "tapt_posterior_predictive": [
        tapt_targets("posterior_predictive"),
    ],
    "tapt_meta_analysis": [
        tapt_targets("meta_analysis"),
    ],
    "tapt_simulations": [
        table("tapt", "prior_predictive"),
        figure("tapt", "prior_predictive"),
        table("tapt", "recovery"),
        figure("tapt", "recovery"),
    ],
    "tapt_pca": [
        table("tapt", "pca"),
        figure("tapt", "pca"),
    ],
}
