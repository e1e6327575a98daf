"""A per-item CSV: one row per item answered, `model,task,item,correct` (0/1) [, run, choices].

`evalsci reference` and `evalsci compare` read these as they are (`evalsci.assess.responses`
takes them from here). For the audit each (model, task[, run]) becomes one score: n its items,
`correct` their sum, each item's number of options its `choices` value (an integer >= 2; a
column of the file, or `--choices K` for every item); items and outcomes are kept, so
`--compare` pairs models on them. Without options the audit cannot judge a score (the baseline
is 1/options): the error says how to give them, and where per-item files are read as they are.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pandas as pd

from ...textsafe import UNSAFE, printable
from ..columns import ITEM_CSV_COLUMNS
from ..records import AuditInputError, Result, labels_of

__all__ = ["ITEM_CSV_COLUMNS", "is_item_csv", "read", "read_item_csv"]

NO_OPTIONS = (
    "{path}: a per-item CSV (model,task,item,correct) without the items' numbers of options: "
    "the random baseline needs them; add a `choices` column (each item's options) or give "
    "--choices K (every item has K options). For per-item work without baselines: "
    "`evalsci compare` (model against model on the same items) and `evalsci reference` "
    "(predict a model's items from reference items) read this file as it is"
)


def is_item_csv(path: Path) -> bool:
    """A .csv whose header has `item` and `correct` (and no `n`: the tidy score CSV's)."""
    if path.suffix != ".csv" or not path.is_file():
        return False
    with open(path, encoding="utf-8-sig", newline="") as fh:
        head = {c.strip() for c in next(csv.reader([fh.readline()]), [])}
    return {"item", "correct"} <= head and "n" not in head


def read_item_csv(path: Path, keep: tuple[str, ...] = ("run",)) -> pd.DataFrame:
    """The rows as strings stripped, `correct` as int8 0/1, with `source` and `kind`; the
    optional columns `keep` where the file has them. Errors name the file and line."""
    df = pd.read_csv(path, dtype=str, keep_default_na=False).rename(columns=str.strip)
    missing = [c for c in ITEM_CSV_COLUMNS if c not in df.columns]
    if missing:
        raise AuditInputError(f"{path}: missing columns {missing}; need {list(ITEM_CSV_COLUMNS)}")
    df = df[[*ITEM_CSV_COLUMNS, *(c for c in keep if c in df.columns)]]
    df = df.apply(lambda s: s.str.strip())
    bad = ~df["correct"].isin(["0", "1"])
    if bad.any():
        line = int(np.flatnonzero(bad.to_numpy())[0]) + 2
        raise AuditInputError(
            f"{path}:{line}: correct must be 0 or 1, got {df['correct'][bad].iloc[0]!r}"
        )
    for c in df.columns.drop("correct"):
        empty = df[c] == ""
        if empty.any():
            raise AuditInputError(f"{path}:{int(np.flatnonzero(empty)[0]) + 2}: empty {c}")
    for c in df.columns.drop("correct"):  # names from anyone's file: escaped (textsafe)
        if df[c].str.contains(UNSAFE, regex=True).any():
            df[c] = df[c].map(printable)
    df["correct"] = df["correct"].astype(np.int8)
    df["source"] = str(path)
    df["kind"] = "csv"
    return df


def _options(path: Path, df: pd.DataFrame, choices: int | None) -> np.ndarray:
    """Each row's number of options: the `choices` column, else `--choices`, else an error."""
    if "choices" not in df.columns:
        if choices is None:
            raise AuditInputError(NO_OPTIONS.format(path=path))
        return np.full(len(df), int(choices))
    raw = df["choices"]
    ok = raw.str.fullmatch(r"\d+")
    vals = pd.to_numeric(raw.where(ok), errors="coerce")
    bad = ~ok | (vals < 2)
    if bad.any():
        i = int(np.flatnonzero(bad.to_numpy())[0])
        raise AuditInputError(
            f"{path}:{i + 2}: choices must be an integer >= 2 (the item's number of options), "
            f"got {raw.iloc[i]!r}"
        )
    return vals.to_numpy(dtype=np.int64)


def read(path: Path, choices: int | None = None) -> list[Result]:
    """One Result per (model, task[, run]) of a per-item CSV. A second row of the same item
    within a score is an error naming both lines."""
    path = Path(path)
    df = read_item_csv(path, keep=("run", "choices"))
    opts = _options(path, df, choices)
    df["options"] = opts
    df["line"] = np.arange(2, len(df) + 2)
    keys = ["model", "task", *(["run"] if "run" in df.columns else [])]
    dup = df.duplicated([*keys, "item"], keep=False)
    if dup.any():
        first = df[dup].groupby([*keys, "item"], sort=False)["line"].apply(list).iloc[0]
        raise AuditInputError(
            f"{path}:{first[1]}: item repeats line {first[0]} within one score "
            f"({', '.join(keys)}, item): one row per item"
        )
    out = []
    for key, g in df.groupby(keys, sort=False):
        model, task, *run = key
        outcomes = tuple(int(x) for x in g["correct"])
        item_opts = tuple(int(x) for x in g["options"])
        n, correct = len(outcomes), sum(outcomes)
        out.append(
            Result(
                model=str(model),
                task=str(task),
                n=n,
                correct=correct,
                labels=labels_of(item_opts),
                source=str(path),
                accuracy=correct / n,
                items=tuple(g["item"]),
                outcomes=outcomes,
                item_options=item_opts,
                run=f"{path}:{run[0]}" if run else None,
                choices_source="choices column" if "choices" in g.columns else "--choices",
            )
        )
    return out
