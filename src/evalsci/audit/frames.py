"""Results as columns: the form the judge works on, so that a million CSV rows never become a
million `Result` objects (each ~0.5 kB and a few microseconds to build).

A results frame has one row per score and the columns `FRAME_COLUMNS`:

    model, task        categorical strings
    n, correct         int64
    choices            int64: the number of options when every item has the same; 0 when mixed
    labels             str: '' when `choices` > 0, else canonical JSON {"options": items}
    source, line       where the score came from; line 0: no line (the source says it all)
    accuracy, t        float64, NaN when the input does not give it
    metric, run, choices_source, notes     str ('' when absent; notes joined with '; ')
    derived, limited   bool
    items, outcomes    object: per-item ids and 0/1 outcomes (None when absent), for --compare;
                       a frame without per-item results (a CSV) may leave both columns out
    settings           str: the run's settings as canonical JSON ('' when unknown), for
                       --compare's flag on pairs run differently

Readers that build few results return `Result`s (records.py); `results_frame` turns them into
this form. The tidy CSV reader builds the columns directly (readers/tidy_csv.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd
from pandas.api.types import union_categoricals

from .columns import FRAME_COLUMNS
from .records import Result


def labels_json(labels: Mapping) -> str:
    """Canonical JSON of label counts, sorted by number of options: '{"2": 10, "4": 240}'."""
    labels = {int(k): int(v) for k, v in labels.items()}
    return json.dumps({str(k): v for k, v in sorted(labels.items())}, separators=(", ", ": "))


def split_labels(labels: Mapping) -> tuple[int, str]:
    """(choices, labels) columns for one score's label counts."""
    labels = {int(k): int(v) for k, v in labels.items() if int(v) > 0}
    if len(labels) == 1:
        return next(iter(labels)), ""
    return 0, labels_json(labels)


def frame_labels(choices: int, labels: str, n: int) -> dict[int, int]:
    """The label counts {options: items} of one frame row."""
    if choices:
        return {int(choices): int(n)}
    return {int(k): int(v) for k, v in json.loads(labels).items()}


def results_frame(results: Iterable[Result]) -> pd.DataFrame:
    """`Result`s -> a results frame (FRAME_COLUMNS), in the given order."""
    rows = []
    for r in results:
        choices, labels = split_labels(r.labels)
        rows.append(
            (
                r.model,
                r.task,
                int(r.n),
                int(r.correct),
                choices,
                labels,
                r.source,
                0,
                np.nan if r.accuracy is None else float(r.accuracy),
                np.nan if r.t is None else float(r.t),
                r.metric or "",
                r.run or "",
                r.choices_source or "",
                "; ".join(r.notes),
                bool(r.derived),
                bool(r.limited),
                r.items,
                r.outcomes,
                json.dumps(r.settings, sort_keys=True, default=str) if r.settings else "",
            )
        )
    return typed_frame(pd.DataFrame(rows, columns=FRAME_COLUMNS))


def typed_frame(df: pd.DataFrame) -> pd.DataFrame:
    """`df` with the dtypes of a results frame (missing optional columns filled)."""
    defaults = {
        "labels": "",
        "line": 0,
        "accuracy": np.nan,
        "t": np.nan,
        "metric": "",
        "run": "",
        "choices_source": "",
        "notes": "",
        "derived": False,
        "limited": False,
        "items": None,
        "outcomes": None,
        "settings": "",
    }
    df = df.copy()
    for col, v in defaults.items():
        if col not in df:
            df[col] = v
    types = {"n": "int64", "correct": "int64", "choices": "int64", "line": "int64"}
    types |= {"accuracy": "float64", "t": "float64", "derived": bool, "limited": bool}
    df = df.astype(types)
    for col in ("model", "task", "source"):
        df[col] = df[col].astype("category")
    return df[FRAME_COLUMNS]


def per_item(frame: pd.DataFrame) -> bool:
    """Whether any score of the frame has per-item outcomes."""
    return "outcomes" in frame and frame["outcomes"].notna().any()


def concat_frames(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """Several results frames as one (categoricals unified)."""
    frames = [f for f in frames if len(f)]
    if not frames:
        return typed_frame(pd.DataFrame(columns=FRAME_COLUMNS))
    if len(frames) == 1:
        return frames[0].reset_index(drop=True)
    frames = [typed_frame(f) if "outcomes" not in f else f for f in frames]
    cats = {
        c: union_categoricals([f[c].astype("category") for f in frames])
        for c in ("model", "task", "source", "choices_source", "metric", "run")
    }
    out = pd.concat([f.drop(columns=list(cats)) for f in frames], ignore_index=True)
    for col, values in cats.items():
        out[col] = values
    return out[FRAME_COLUMNS]
