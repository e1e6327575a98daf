"""A tidy CSV of results: one row per (model, task).

Columns: model, task, n, then `accuracy` (in [0, 1]) or `correct` (a count), then `choices`
(the same number of choices for every item) or `labels` (JSON {"choices": items}), and
optionally `t` (the number of tries the score was selected from).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd

from evalsci.maxrandom import correct_count

from ..records import AuditInputError, Result


def _int(v, field: str, where: str, minimum: int) -> int:
    try:
        f = float(v)
    except (TypeError, ValueError):
        f = math.nan
    if not math.isfinite(f) or not f.is_integer() or f < minimum:
        raise AuditInputError(
            f"{where}: field {field!r} must be an integer >= {minimum}, got {v!r}"
        )
    return int(f)


def _check_columns(path: Path, cols: set[str]) -> None:
    for need, alts in (
        ("model", ("model",)),
        ("task", ("task",)),
        ("n", ("n",)),
        ("accuracy or correct", ("accuracy", "correct")),
        ("choices or labels", ("choices", "labels")),
    ):
        got = [a for a in alts if a in cols]
        if not got:
            raise AuditInputError(f"{path}: missing column {need}")
        if len(got) > 1:
            raise AuditInputError(f"{path}: give only one of columns {' and '.join(got)}")


def _labels(r: dict, n: int, where: str) -> dict[int, int]:
    if "choices" in r:
        return {_int(r["choices"], "choices", where, 1): n}
    try:
        raw = json.loads(r["labels"])
        if not isinstance(raw, dict) or not raw:
            raise TypeError
        labels = {_int(k, "labels", where, 1): _int(v, "labels", where, 1) for k, v in raw.items()}
    except (TypeError, ValueError):
        raise AuditInputError(
            f"{where}: field 'labels' must be a JSON object "
            f'{{"choices": items}}, got {r["labels"]!r}'
        ) from None
    if sum(labels.values()) != n:
        raise AuditInputError(
            f"{where}: field 'labels' counts {sum(labels.values())} items but n = {n}"
        )
    return labels


def _correct(r: dict, n: int, where: str) -> tuple[int, float | None]:
    """(count of correct items, accuracy as given or None)."""
    if "accuracy" in r:
        try:
            acc = float(r["accuracy"])
        except ValueError:
            acc = math.nan
        if not (0 <= acc <= 1):
            raise AuditInputError(
                f"{where}: field 'accuracy' must be in [0, 1], got {r['accuracy']!r}"
            )
        return correct_count(acc, n), acc
    correct = _int(r["correct"], "correct", where, 0)
    if correct > n:
        raise AuditInputError(f"{where}: field 'correct' = {correct} exceeds n = {n}")
    return correct, None


def read_csv(path: str | Path) -> list[Result]:
    path = Path(path)
    try:
        df = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (OSError, ValueError) as e:
        raise AuditInputError(f"{path}: cannot read CSV ({e})") from None
    _check_columns(path, set(df.columns))
    if df.empty:
        raise AuditInputError(f"{path}: no rows")
    out = []
    for i, r in enumerate(df.to_dict("records"), start=2):  # line 1 is the header
        where = f"{path}:{i}"
        n = _int(r["n"], "n", where, 1)
        labels = _labels(r, n, where)
        correct, acc = _correct(r, n, where)
        t = _int(r["t"], "t", where, 1) if "t" in r and str(r["t"]).strip() != "" else None
        out.append(
            Result(
                model=r["model"],
                task=r["task"],
                n=n,
                correct=correct,
                labels=labels,
                source=str(path),
                accuracy=acc,
                t=t,
            )
        )
    return out
