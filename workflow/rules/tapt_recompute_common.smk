# Helpers of the `tapt` recompute rules (tapt_recompute.smk): paths, shard lists, inputs.
# Kept apart from the rules so each rule file holds rules only.
import re

from evalsci.data.hf_classification import get_spec as _tapt_dataset_spec
from evalsci.studies.tapt.training import models as _tapt_models
from evalsci.studies.tapt.training import settings as _tapt_settings

TAPT_TRAINING = config["tapt"]["training"]
TAPT_TRAIN_SHARDS = "results/tapt/recompute/shards/m{m}/n{n}/{lm}/{dataset}"
TAPT_TRAIN_ACCURACIES = "results/tapt/recompute/accuracies/m{m}/n{n}/{lm}/{dataset}"


def _tapt_lm_regex(zero_shot):
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


def _tapt_shards(wildcards):
    n_sub = _tapt_settings.num_subsamples(TAPT_TRAINING, int(wildcards.n))
    base = TAPT_TRAIN_SHARDS.format(**wildcards)
    return {
        kind: [f"{base}/{i:03d}.{kind}.{ext}" for i in range(1, n_sub + 1)]
        for kind, ext in (("accuracies", "csv"), ("predictions", "csv.gz"), ("metrics", "csv"))
    }


def _tapt_shard_inputs(wildcards):
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


def _tapt_shard_params(wildcards):
    return {
        "settings": _tapt_settings.run_settings(TAPT_TRAINING, wildcards.lm, wildcards.dataset),
        "lm_models": config["lm"].get("models", {}),
        "device": TAPT_TRAINING["device"],
        "cpu_dtype": config["lm"]["cpu_dtype"],
        "revision": TAPT_TRAINING.get("revisions", {}).get(wildcards.dataset),  # None: hub.lock
    }
