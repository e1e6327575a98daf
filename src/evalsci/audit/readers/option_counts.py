"""Tasks whose items have different numbers of options, for results without per-item records.

`option_counts.csv` (built by scripts/build_option_counts.py, each row with its source) gives
per task the least and most options and, where the released prompts give it, the histogram
{options: items}. For a score read without its items (lm-eval without --log_samples, an EEE
aggregate without samples):

  - the histogram, when n is the whole task (not a --limit run): the exact label counts;
  - otherwise the least and most options bound the baselines. Both baselines are monotone in
    each item's chance 1/k (a guesser's count, and so the best of t guessers' counts, grows
    stochastically with each item's chance, by coupling), so every item at the least options
    gives the upper bound and every item at the most options the lower bound: exact bounds.
    The score's labels are set to the upper bound (its verdict is then conservative: above
    the max baseline means above it for any mix of options), and `options_range` carries
    (least, most) for the judge's note (`evalsci.audit.option_bounds`).
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from functools import cache
from importlib import resources

TABLE = "option_counts.csv"


@dataclass(frozen=True)
class OptionCounts:
    task: str
    least: int
    most: int
    histogram: dict[int, int] | None
    source: str


@cache
def table() -> dict[str, OptionCounts]:
    text = resources.files(__package__).joinpath(TABLE).read_text(encoding="utf-8")
    rows = csv.DictReader(line for line in text.splitlines() if not line.startswith("#"))
    out = {}
    for r in rows:
        raw = json.loads(r["histogram"]) if r["histogram"] else None
        hist = {int(k): int(v) for k, v in raw.items()} if raw else None
        out[r["task"]] = OptionCounts(r["task"], int(r["min"]), int(r["max"]), hist, r["source"])
    return out


def options_for(task: str, n: int, limited: bool) -> dict | None:
    """Result fields (labels, options_range, choices_source, notes) for a score of `task` on
    n items read without its items, or None when the table does not know the task."""
    known = table().get(task)
    if known is None:
        return None
    hist = known.histogram
    if hist is not None and sum(hist.values()) == n and not limited:
        return {
            "labels": dict(hist),
            "options_range": None,
            "choices_source": f"option-count histogram of the whole task ({known.source})",
            "notes": (),
        }
    if known.least == known.most:
        return {
            "labels": {known.least: n},
            "options_range": None,
            "choices_source": f"option counts ({known.source})",
            "notes": (),
        }
    why = "a subset of the task" if hist is not None else "no histogram"
    return {
        "labels": {known.least: n},
        "options_range": (known.least, known.most),
        "choices_source": f"options per item between {known.least} and {known.most} "
        f"({known.source})",
        "notes": (
            f"options per item unknown ({why}): between {known.least} and {known.most}; "
            f"baselines, p-values and verdict at {known.least} options each (the upper "
            "bounds: conservative)",
        ),
    }
