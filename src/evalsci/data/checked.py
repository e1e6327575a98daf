"""Read the files a study consumes so that every failure names the file, column and row.

A released bundle was verified when it was fetched, but a rule may read it days later; so
`read_csv`/`read_json` first re-check the bundle the file lies in against its SHA256SUMS
(`evalsci.data.released.verify_bundle`, cached by a stat key (size, mtime, ctime, inode): a stat
per file when nothing changed). Then the content checks below say what is wrong and where, instead of a
pandas or sklearn error deep inside a job (or, worse, a silently different table).

Row numbers in messages are 1-based data rows, i.e. line `row + 1` of a CSV with a header.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd


class DataFileError(ValueError):
    """An input file is unreadable, or its content is not what the study expects."""


def verify_released(path: str | Path, error: type[Exception]) -> None:
    from evalsci.data.released import ReleasedDataError, verify_file

    try:
        verify_file(path)
    except ReleasedDataError as e:
        raise error(str(e)) from None


def read_csv(
    path: str | Path, error: type[Exception] = DataFileError, verify: bool = True, **kwargs
) -> pd.DataFrame:
    """pd.read_csv(path) that names the file on any failure (a corrupt .gz raises
    BadGzipFile/EOFError/zlib.error without one) and re-verifies released files."""
    path = Path(path)
    if verify:
        verify_released(path, error)
    try:
        return pd.read_csv(path, **kwargs)
    except Exception as e:  # noqa: BLE001 - any reader failure gets the file name
        raise error(f"cannot read {path}: {type(e).__name__}: {e}") from e


def read_json(path: str | Path, error: type[Exception] = DataFileError, verify: bool = True):
    """json.loads of a file, naming the file on any failure."""
    path = Path(path)
    if verify:
        verify_released(path, error)
    try:
        return json.loads(path.read_text())
    except Exception as e:  # noqa: BLE001
        raise error(f"cannot read {path}: {type(e).__name__}: {e}") from e


def require_columns(df: pd.DataFrame, columns: Iterable[str], path, error=DataFileError) -> None:
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise error(f"{path}: missing columns {missing} (has {list(df.columns)})")


def read_checked(path: str | Path, columns: Iterable[str], error=DataFileError) -> pd.DataFrame:
    """Read a CSV and fail naming the file (unreadable) or the missing columns."""
    df = read_csv(path, error)
    require_columns(df, columns, path, error)
    return df


def numeric(
    df: pd.DataFrame,
    column: str,
    path,
    *,
    lo: float | None = None,
    hi: float | None = None,
    integer: bool = False,
    allow_nan: bool = False,
    tol: float = 0.0,
    error=DataFileError,
) -> pd.Series:
    """df[column] as numbers, every value checked; the first bad one is named with its row.
    `tol`: slack on the bounds (released probabilities exceed 1 by ~1e-12 of float noise)."""
    raw = df[column]
    if pd.api.types.is_bool_dtype(raw):
        raw = raw.astype(int)
    # text columns ("abc", "True") hold what is not a number: coerce, then name it below
    if pd.api.types.is_numeric_dtype(raw):
        values = raw.to_numpy(dtype=float)
        bad = np.zeros(len(values), bool) if allow_nan else np.isnan(values)
    else:
        values = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=float)
        bad = np.isnan(values) & (raw.notna().to_numpy() | (not allow_nan))
    where = "not a number"
    if not bad.any():
        with np.errstate(invalid="ignore"):
            finite = ~np.isnan(values)
            out = finite & ~np.isfinite(values)
            if lo is not None:
                out |= finite & (values < lo - tol)
            if hi is not None:
                out |= finite & (values > hi + tol)
            if integer:
                out |= finite & (values != np.floor(values))
        bad, where = out, _range(lo, hi, integer)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise error(f"{path}: column {column!r}, row {i + 1}: {_show(raw.iloc[i])} is {where}")
    return pd.Series(values, index=df.index, name=column)


def binary(df: pd.DataFrame, column: str, path, error=DataFileError) -> pd.Series:
    """A 0/1 column (2, 0.5, "0.5", "abc" raise, naming the row)."""
    values = numeric(df, column, path, error=error)
    bad = (values.to_numpy() != 0) & (values.to_numpy() != 1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise error(
            f"{path}: column {column!r}, row {i + 1}: {_show(df[column].iloc[i])} is not 0 or 1"
        )
    return values.astype(np.int8)


def expect_count(found: int, expected: int, what: str, path, error=DataFileError) -> None:
    if found != expected:
        raise error(
            f"{path}: {found} {what}, expected {expected} (file cut or edited after "
            "it was verified? re-fetch the bundle: delete it and rerun)"
        )


def _show(value) -> str:
    """A cell as the file has it: numbers plain (2, 0.5), text quoted ('abc')."""
    if isinstance(value, str):
        return repr(value)
    return repr(value.item() if hasattr(value, "item") else value)


def _range(lo, hi, integer) -> str:
    kind = "an integer" if integer else "a number"
    if lo is not None and hi is not None:
        return f"not {kind} in [{lo}, {hi}]"
    if lo is not None:
        return f"not {kind} >= {lo}"
    if hi is not None:
        return f"not {kind} <= {hi}"
    return f"not {kind}"
