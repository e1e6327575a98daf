"""The column schemas of the files the `assessors` study writes, in one place: a split's
experiment results, the leave-one-model-out runs and the n_ref figures' tables."""

from __future__ import annotations

RESULT_COLUMNS = [
    "split",
    "method",
    "features",
    "selector",
    "classifier",
    "n_ref",
    "llm",
    "llm_role",
    "eval_set",
    "auc",
    "n_pos",
    "n_neg",
]

LOMO_COLUMNS = [
    "benchmark",
    "n_reference",
    "held_out_model",
    "run",
    "method",
    "estimate",
    "accuracy",
    "abs_error",
    "auc",
    "low",
    "high",
    "covered",
    "n_items",
    "n_train_runs",
    "n_train_models",
]

NREF_COLUMNS = [
    "split",
    "n_ref",
    "features",
    "llm",
    "llm_role",
    "eval_set",
    "auc",
    "n_pos",
    "n_neg",
]
