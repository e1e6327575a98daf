"""The column schemas of the audit's frames and files, in one place: a results frame, the
judged scores (`evalsci audit` output), the skipped inputs, the pairwise tests and their
groups, the counts tables and the runs tables of study `audit`."""

from __future__ import annotations

FRAME_COLUMNS = [
    "model",
    "task",
    "n",
    "correct",
    "choices",
    "labels",
    "source",
    "line",
    "accuracy",
    "t",
    "metric",
    "run",
    "choices_source",
    "notes",
    "derived",
    "limited",
    "items",
    "outcomes",
    "settings",
]

OUTPUT_COLUMNS = [
    "model",
    "task",
    "accuracy",
    "n",
    "choices",
    "t",
    "standard",
    "max_baseline",
    "p_standard",
    "p_max",
    "verdict",
    "source",
    # added by issue 22; the first twelve keep their order
    "t_rule",
    "metric",
    "derived",
    "limited",
    "choices_source",
    "note",
    # added by issue 31: verdicts are tests (the module docstring)
    "point_verdict",
    "p_below",
    "p_standard_adjusted",
    "p_max_adjusted",
    "p_below_adjusted",
    "adjust",
    "alpha",
    "family_size",
]

#: `--columns short`: what most readers of a score need (every column: OUTPUT_COLUMNS)
SHORT_COLUMNS = [
    "model",
    "task",
    "accuracy",
    "n",
    "choices",
    "t",
    "max_baseline",
    "p_max_adjusted",
    "verdict",
]

SKIPPED_COLUMNS = ["path", "task", "reason"]
#: a per-item CSV's required columns (readers/item_csv.py): one row per item answered
ITEM_CSV_COLUMNS = ("model", "task", "item", "correct")

TEST_COLUMNS = [
    "task",
    "test",
    "model_a",
    "model_b",
    "n_items",
    "accuracy_a",
    "accuracy_b",
    "a_only",
    "b_only",
    "t",
    "p",
    "p_adjusted",
    "separated",
    "group_a",
    "group_b",
    "status",
    "settings_differ",
]

GROUP_COLUMNS = ["task", "group", "models", "best_accuracy", "worst_accuracy"]

COUNT_COLUMNS = [
    "task",
    "n",
    "choices",
    "t_kind",
    "t",
    "runs",
    "above_standard",
    "above_max",
    "flipped",
    "above_standard_test",
    "above_max_test",
]

RUN_COLUMNS = [
    "source",
    "task",
    "model",
    "shots",
    "run",
    "t_kind",
    "t",
    "n",
    "labels",
    "correct",
    "accuracy",
]

# a judged run of the study sweep: its baselines, p-values and verdicts (evalsci.audit.counts.judge)
RUN_DETAIL_COLUMNS = [
    "task",
    "model",
    "shots",
    "run",
    "t_kind",
    "t",
    "n",
    "choices",
    "labels",
    "correct",
    "accuracy",
    "standard",
    "max_baseline",
    "p_standard",
    "p_max",
    "p_below",
    "point_verdict",
    "verdict",
]
