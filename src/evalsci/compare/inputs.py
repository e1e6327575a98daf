"""Every model's score on every task, from any file `evalsci audit` reads or a tidy CSV.

`read_scores(paths)` returns one `Score` per (model, task): its item ids and 0/1 outcomes
where the file has them, else only n and the number correct. Sources:
- a tidy per-item CSV `model,task,item,correct` (evalsci.assess.responses reads it);
- a tidy per-task CSV `model,task,n,correct` (read here: the audit's own score CSV also needs
  the number of options, which a comparison does not);
- anything else through the audit's readers (evalsci.audit.readers.read_inputs: lm-eval,
  the Open LLM Leaderboard, inspect-ai, HELM, lighteval, Every Eval Ever, the audit's CSV).
A per-item metric that is not 0/1 is refused by the readers, naming the file and the key.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from evalsci.audit.records import AuditInputError
from evalsci.textsafe import printable

COUNT_CSV_COLUMNS = ("model", "task", "n", "correct")


@dataclass(frozen=True)
class Score:
    model: str
    task: str
    n: int
    correct: int
    source: str
    items: tuple[str, ...] | None = None
    outcomes: np.ndarray | None = None  # int8 0/1, aligned with items


def _header(path: Path) -> set[str]:
    if path.suffix != ".csv" or not path.is_file():
        return set()
    with open(path, encoding="utf-8-sig", newline="") as fh:
        return {c.strip() for c in next(csv.reader([fh.readline()]), [])}


def _whole(value: str, path: Path, line: int, key: str) -> int:
    try:
        out = int(value)
    except ValueError:
        raise AuditInputError(
            f"{path}:{line}: {key} must be a whole number, got {value!r}"
        ) from None
    if out < 0:
        raise AuditInputError(f"{path}:{line}: {key} must be >= 0, got {out}")
    return out


def _read_count_csv(path: Path) -> list[Score]:
    out = []
    with open(path, encoding="utf-8-sig", newline="") as fh:
        rows = csv.DictReader(fh)
        fields = [c.strip() for c in rows.fieldnames or []]
        rows.fieldnames = fields
        for line, row in enumerate(rows, start=2):
            if None in row or any(v is None for v in row.values()):
                raise AuditInputError(f"{path}:{line}: {len(fields)} columns expected")
            row = {k: v.strip() for k, v in row.items()}
            for key in ("model", "task"):
                if not row[key]:
                    raise AuditInputError(f"{path}:{line}: empty {key}")
            n = _whole(row["n"], path, line, "n")
            correct = _whole(row["correct"], path, line, "correct")
            if n < 1 or correct > n:
                raise AuditInputError(
                    f"{path}:{line}: need n >= 1 and correct <= n, got n={n} correct={correct}"
                )
            # names from anyone's file: control and bidi characters escaped (textsafe)
            model, task = printable(row["model"]), printable(row["task"])
            out.append(Score(model, task, n, correct, str(path)))
    return out


def _from_items(frame) -> list[Score]:
    out = []
    for (model, task), g in frame.groupby(["model", "task"], sort=True):
        outcomes = g["correct"].to_numpy(dtype=np.int8)
        out.append(
            Score(
                str(model),
                str(task),
                len(g),
                int(outcomes.sum()),
                str(g["source"].iloc[0]),
                tuple(g["item"].astype(str)),
                outcomes,
            )
        )
    return out


def read_scores(paths, metric: str | None = None) -> tuple[list[Score], list[str]]:
    """(every score found, the files and tasks passed over with their reasons).

    Each PATH is read on its own. A model found under two PATHs with a task in common (two
    runs of one model: 0-shot and 2-shot, two harness versions) is named `model [PATH]` in
    each, so the runs can be compared; within one PATH a (model, task) must be unique."""
    per_path = [_read_path(Path(p), metric) for p in paths]
    skipped = [s for _, sk in per_path for s in sk]
    where: dict[tuple[str, str], set[str]] = {}
    for p, (scores, _) in zip(paths, per_path, strict=True):
        for s in scores:
            where.setdefault((s.model, s.task), set()).add(str(p))
    rename = {m for (m, _), ps in where.items() if len(ps) > 1}
    out = []
    for p, (scores, _) in zip(paths, per_path, strict=True):
        out += [replace(s, model=f"{s.model} [{p}]") if s.model in rename else s for s in scores]
    return out, skipped


def _read_path(p: Path, metric: str | None) -> tuple[list[Score], list[str]]:
    from evalsci.assess.responses import read_item_csv

    scores, skipped = [], []
    if not p.exists():
        raise AuditInputError(f"{p}: no such file or directory")
    head = _header(p)
    if {"item", "correct"} <= head:
        scores += _from_items(read_item_csv(p))
    elif set(COUNT_CSV_COLUMNS) <= head:
        scores += _read_count_csv(p)
    else:
        from evalsci.audit.readers import read_inputs
        from evalsci.audit.records import NothingToAudit

        try:
            found = read_inputs([p], metric=metric)
        except NothingToAudit as e:
            return [], [str(e)]
        skipped += [
            f"{s.path}" + (f" {s.task}" if s.task else "") + f": {s.reason}" for s in found.skipped
        ]
        for r in found.results:
            items = outcomes = None
            if r.items is not None and r.outcomes is not None:
                items = tuple(map(str, r.items))
                outcomes = np.asarray(r.outcomes, dtype=np.int8)
            scores.append(Score(r.model, r.task, r.n, r.correct, r.source, items, outcomes))
        for f in found.frames:
            for row in f[["model", "task", "n", "correct", "source"]].itertuples(index=False):
                scores.append(
                    Score(
                        str(row.model), str(row.task), int(row.n), int(row.correct), str(row.source)
                    )  # fmt: skip
                )
    seen: dict[tuple[str, str], str] = {}
    for s in scores:
        key = (s.model, s.task)
        if key in seen:
            raise AuditInputError(
                f"model {s.model!r} task {s.task!r} appears twice under {p} ({seen[key]}, "
                f"{s.source}): give one run per model and task in each PATH"
            )
        seen[key] = s.source
    return scores, skipped
