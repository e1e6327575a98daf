"""`evalsci audit`: the max random baseline for a user's own evaluation results.

Yauney & Mimno ask for the max random baseline wherever a reported score is the best of
many tries (prompts, paraphrases, checkpoints, leaderboard submissions). This package reads
results as other tools write them and judges each (model, task) against both baselines:

  - the standard random baseline: expected accuracy of ONE uniform guesser;
  - the max random baseline: expected best accuracy of t uniform guessers on the same n items.

Inputs, detected by content (`read_inputs`):
  1. lm-evaluation-harness output (`--output_path ... --log_samples`): the results JSON and the
     per-task samples JSONL beside it. n and each item's number of choices come from the
     samples (one loglikelihood request per choice); the accuracy is the results' `acc`
     (or another per-item 0/1 metric, e.g. `acc_norm`), and the count of correct items is the
     sum of the samples' own 0/1 values, checked against it.
  2. A tidy CSV: model, task, n, accuracy or correct, choices or labels (JSON counts), optional t.

inspect-ai logs are not read: see docs/audit.md for why.

t: results of one task from several runs (several files, or several CSV rows) are the runs a
reader selects from, so t = their number, unless `t` is given (the CLI's --t, the CSV's t).

    >>> from evalsci.audit import audit_paths
    >>> audit_paths(["out/"])                                    # doctest: +SKIP
"""

from __future__ import annotations

from .judge import OUTPUT_COLUMNS, VERDICTS, audit_results, choices_label, verdict
from .readers import read_inputs
from .records import AuditInputError, Inputs, Result, Skipped

__all__ = [
    "AuditInputError",
    "Inputs",
    "Skipped",
    "Result",
    "read_inputs",
    "audit_results",
    "audit_inputs",
    "judge_inputs",
    "audit_paths",
    "verdict",
    "choices_label",
    "OUTPUT_COLUMNS",
    "VERDICTS",
]


def judge_inputs(found, t: int | None = None):
    """(the results frame of `read_inputs`' answer, its judged rows in the same order)."""
    from .frames import concat_frames, results_frame
    from .judge import audit_frame, check_t_option

    check_t_option(t)
    frame = concat_frames([results_frame(found.results), *found.frames])
    return frame, audit_frame(frame, t=t)


def audit_inputs(paths, t: int | None = None, metric: str = "acc"):
    """(one judged row per (model, task) result, the files and tasks passed over)."""
    found = read_inputs(paths, metric=metric)
    return judge_inputs(found, t=t)[1], found.skipped


def audit_paths(paths, t: int | None = None, metric: str = "acc"):
    """Read every input under `paths` and judge it: one row per (model, task) result."""
    return audit_inputs(paths, t=t, metric=metric)[0]
