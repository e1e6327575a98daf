"""Per-item outcomes of several models, from any per-item format `evalsci audit` reads.

`read_responses(paths)` returns a long frame `model, task, item, correct` (0/1), from
- a tidy per-item CSV with columns `model,task,item,correct` (read here: the audit's own tidy
  CSV holds one score per row, not items);
- anything else through the audit's readers (`evalsci.audit.readers.read_inputs`): lm-eval
  samples, inspect-ai logs, HELM per_instance_stats, lighteval details, Every Eval Ever
  `_samples.jsonl`. A result without per-item outcomes (an aggregate score) is passed over and
  said on stderr by the caller (`Responses.skipped`).

`success_matrix` turns the frame into models x items, keeping the items every model answered;
items dropped on the way are counted in `Matrix.dropped` so the caller can say so.

Runs of one model (`group_runs=True`, the CLI's `--group-runs`): each path given is one run
(a tidy CSV may instead name its runs in an optional `run` column), so one model may appear in
several; the matrix's rows are then runs, named `model [run]`, and `Matrix.groups` holds each
row's model, which `predict_new(groups=)` uses to leave out every run of a model (a sibling run
shares the model's outcomes, so leaving out only the run itself leaks its label).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from evalsci.audit.readers.item_csv import ITEM_CSV_COLUMNS, read_item_csv
from evalsci.audit.readers.item_csv import is_item_csv as _is_item_csv
from evalsci.audit.records import AuditInputError, NothingToAudit

__all__ = ["Responses", "Matrix", "read_responses", "success_matrix", "ITEM_CSV_COLUMNS"]


@dataclass
class Responses:
    frame: pd.DataFrame  # model, task, item, correct, kind (the file's format), [run]
    skipped: list[str] = field(default_factory=list)  # "path task: reason"


@dataclass
class Matrix:
    models: list[str]
    items: pd.DataFrame  # task, item (columns of `success`, in order)
    success: np.ndarray  # models x items, 0/1 int8
    dropped: int = 0  # items not answered by every model
    groups: list[str] | None = None  # the model of each row when rows are runs (group_runs)


def read_responses(paths, metric: str | None = None, group_runs: bool = False) -> Responses:
    """Every per-item outcome in `paths` (files or directories). With `group_runs`, a `run`
    column names each row's run: the path it was read from (or a tidy CSV's own `run`)."""
    if group_runs:
        got = [_read_responses([p], metric) for p in paths]
        for p, r in zip(paths, got, strict=True):
            own = r.frame["run"] if "run" in r.frame.columns else pd.Series(str(p), r.frame.index)
            r.frame["run"] = r.frame["model"] + " [" + own.astype(str) + "]"
        frame = pd.concat([r.frame for r in got], ignore_index=True)
        return Responses(_no_duplicates(frame, "run"), [s for r in got for s in r.skipped])
    r = _read_responses(paths, metric)
    return Responses(
        _no_duplicates(r.frame, "model").drop(columns="run", errors="ignore"), r.skipped
    )


def _read_responses(paths, metric: str | None) -> Responses:
    from evalsci.audit.readers import read_inputs

    parts, skipped, rest = [], [], []
    for p in map(Path, paths):
        if _is_item_csv(p):
            parts.append(read_item_csv(p))
        else:
            rest.append(p)
    if rest:
        found = read_inputs(rest, metric=metric)
        skipped += [f"{s.path}" + (f" {s.task}" if s.task else "") + f": {s.reason}"
                    for s in found.skipped]  # fmt: skip
        if found.frames:
            skipped.append("tidy score CSVs (model,task,n,...): aggregate scores, no items")
        for r in found.results:
            if r.items is None or r.outcomes is None:
                skipped.append(f"{r.source} {r.task}: an aggregate score, no per-item outcomes")
                continue
            parts.append(
                pd.DataFrame(
                    {
                        "model": r.model,
                        "task": r.task,
                        "item": list(map(str, r.items)),
                        "correct": np.asarray(r.outcomes, dtype=np.int8),
                        "source": r.source,
                        "kind": _kind(r.source),
                    }
                )
            )
    if not parts:
        # every file read, but only aggregate scores in them: valid input, nothing usable
        # (exit code 3, as the audit's); read_inputs has raised already on unreadable input
        raise (NothingToAudit if rest else AuditInputError)(
            "no per-item outcomes in " + ", ".join(map(str, paths)) + _listed(skipped)
        )
    return Responses(pd.concat(parts, ignore_index=True), skipped)


def _kind(source: str) -> str:
    """The audit's name for the format of the file a result was read from (`sniff`): the
    reference's run list needs it (inspect epochs, EEE sample hashes); "" if not a file."""
    from evalsci.audit.readers.sniff import sniff

    path = Path(source)
    try:
        return sniff(path) if path.is_file() else ""
    except (OSError, AuditInputError):
        return ""


def _no_duplicates(df: pd.DataFrame, row: str) -> pd.DataFrame:
    """`df` without its `source` column, after checking each (row, task, item) is once."""
    dup = df.duplicated([row, "task", "item"], keep=False)
    if dup.any():
        d = df[dup].sort_values([row, "task", "item"]).head(2)
        hint = (
            "give one run per model and task, or --group-runs (each path one run)"
            if row == "model"
            else "one path holds two runs of it"
        )
        raise AuditInputError(
            f"{row} {d[row].iloc[0]!r} task {d['task'].iloc[0]!r} item "
            f"{d['item'].iloc[0]!r} appears twice ({d['source'].iloc[0]}, "
            f"{d['source'].iloc[1]}): {hint}"
        )
    return df.drop(columns="source").reset_index(drop=True)


def _listed(skipped: list[str]) -> str:
    return ("; passed over:\n  " + "\n  ".join(skipped[:20])) if skipped else ""


def success_matrix(frame: pd.DataFrame, what: str = "known models") -> Matrix:
    """Models (or runs, where `frame` has a `run` column) x items over the items every row
    answered (sorted by task, item)."""
    if frame.empty:
        raise AuditInputError(f"no per-item outcomes for the {what}")
    row = "run" if "run" in frame.columns else "model"
    wide = frame.pivot(index=["task", "item"], columns=row, values="correct")
    complete = wide.notna().all(axis=1)
    if not complete.any():
        raise AuditInputError(
            f"the {what} share no items (per {row}: "
            + ", ".join(f"{m}: {n}" for m, n in frame.groupby(row).size().items())
            + " items): nothing to compare"
        )
    wide = wide[complete].sort_index()
    rows = [str(m) for m in wide.columns]
    groups = None
    if row == "run":
        model_of = dict(zip(frame["run"].astype(str), frame["model"].astype(str), strict=True))
        groups = [model_of[r] for r in rows]
    return Matrix(
        models=rows,
        items=wide.index.to_frame(index=False),
        success=wide.to_numpy(dtype=np.int8).T.copy(),
        dropped=int((~complete).sum()),
        groups=groups,
    )
