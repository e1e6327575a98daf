"""The column schemas of the files the `mc_icl` study writes, in one place: a shard's
scores, the accuracies, the Section 5.2 values, the summary table and the findings."""

from __future__ import annotations

KEY_COLUMNS = ["model", "dataset", "trial", "set", "permutation", "k", "demo", "example", "label"]

ACCURACY_COLUMNS = ["model", "dataset", "trial", "permutation", "k", "accuracy"]

VALUE_COLUMNS = ["model", "dataset", "trial", "demo", "value", "z"]

SUMMARY_COLUMNS = [
    "model",
    "dataset",
    "n",
    "zero_shot",
    "one_shot_mean",
    "one_shot_min",
    "one_shot_max",
    "one_shot_below_zero_shot",
    "one_shot_prompts",
    "k_max_mean",
    "best_k",
    "best_k_accuracy",
    "best_prompt",
    "random",
    "max_random_best_k",
    "max_random_best_prompt",
]

FINDING_COLUMNS = [
    "model",
    "dataset",
    "finding",
    "n",
    "curves",
    "K",
    "ours",
    "uncertainty",
    "test",
    "p",
    "outcome",
    "reason",
]
