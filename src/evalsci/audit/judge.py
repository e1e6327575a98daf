"""Judge results against the standard and the max random baseline (evalsci.maxrandom).

"Above" means accuracy > baseline, strictly. Tail p-values are at the exact count of
correct answers: P(X >= correct) for one guesser and P(max of t guessers >= correct).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping

import pandas as pd

from evalsci.maxrandom import max_random_baseline, max_random_tail, standard_baseline

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
]
# ordered from worst to best
VERDICTS = ("not_above_standard", "above_standard_only", "above_max")


def verdict(accuracy: float, standard: float, maximum: float) -> str:
    """Where an accuracy stands: not above the standard baseline, above it only, or above
    the max random baseline too (strict inequalities)."""
    if not accuracy > standard:
        return VERDICTS[0]
    return VERDICTS[2] if accuracy > maximum else VERDICTS[1]


def choices_label(labels: Mapping) -> int | str:
    """The number of choices when every item agrees, else the label counts as compact JSON
    ('{"2": 10, "4": 240}')."""
    labels = {int(k): int(v) for k, v in labels.items()}
    if len(labels) == 1:
        return next(iter(labels))
    return json.dumps({str(k): v for k, v in sorted(labels.items())}, separators=(", ", ": "))


def audit_results(results, t: int | None = None) -> pd.DataFrame:
    """One row per result (OUTPUT_COLUMNS). `t` overrides every result's own t; otherwise a
    result without t gets the number of results of its task."""
    results = list(results)
    if t is not None and (isinstance(t, bool) or int(t) != t or t < 1):
        raise ValueError(f"--t must be an integer >= 1, got {t!r}")
    per_task = Counter(r.task for r in results)
    rows = []
    for r in results:
        tt = int(t) if t is not None else (r.t if r.t is not None else per_task[r.task])
        p = {int(k): v for k, v in r.labels.items()}
        std = standard_baseline(r.n, p)
        mx = max_random_baseline(r.n, p, tt)
        p_std = float(max_random_tail(r.correct, r.n, p, 1))
        p_max = float(max_random_tail(r.correct, r.n, p, tt))
        acc = r.correct / r.n if r.accuracy is None else r.accuracy
        rows.append(
            {
                "model": r.model,
                "task": r.task,
                "accuracy": acc,
                "n": r.n,
                "choices": choices_label(r.labels),
                "t": tt,
                "standard": std,
                "max_baseline": mx,
                "p_standard": p_std,
                "p_max": p_max,
                "verdict": verdict(acc, std, mx),
                "source": r.source,
            }
        )
    return pd.DataFrame(rows, columns=OUTPUT_COLUMNS)
