"""Write judged tables as CSV, JSON or Markdown (the CLI's --format).

CSV goes through pyarrow's writer: pandas' `to_csv` formats floats in Python, ~20 s for a
million rows of 18 columns; Arrow's C++ writer takes a tenth of that. Floats are written in
their shortest round-trip form (like Python's repr), booleans as true/false, empty text as an
empty field; a text cell a spreadsheet would evaluate gets a leading `'` (textsafe.csv_cell). JSON keeps full precision (pandas' `to_json` rounds to 10 decimals, which would
zero tiny p-values).
"""

from __future__ import annotations

import io
import json
import math

import numpy as np
import pandas as pd

from evalsci.textsafe import FORMULA_PATTERN, FORMULA_START, csv_cell

from .columns import SKIPPED_COLUMNS


def _arrow_table(df: pd.DataFrame, words: dict | None = None):
    """`df` as an Arrow table of plain columns. Text columns go through a dictionary (codes +
    distinct values), so no Python string is made per row. `words`: the formula-safe text of
    categorical columns' categories ({column: Arrow strings}, `_category_words`), made once for
    a frame written in batches rather than once per batch."""
    import pyarrow as pa

    words = words or {}
    cols = {}
    for c in df.columns:
        s = df[c]
        if isinstance(s.dtype, pd.ArrowDtype) or _arrow_text(s.dtype):  # already Arrow
            cols[c] = _formula_safe(pa.array(s.array))
            continue
        if isinstance(s.dtype, pd.CategoricalDtype):
            codes = s.cat.codes.to_numpy()
            text = words[c] if c in words else _words(s.cat.categories)
        elif s.dtype == object or pd.api.types.is_string_dtype(s.dtype):
            codes, uniq = pd.factorize(s, use_na_sentinel=True)
            text = _words(uniq)
        elif s.dtype == np.float64:  # NaN (a test's empty side) is an empty field, not "nan"
            v = s.to_numpy()
            nan = np.isnan(v)  # a tenth of from_pandas' own search for NaN
            cols[c] = pa.array(v, mask=nan if nan.any() else None)
            continue
        else:  # NA (nullable integers) is an empty field too
            cols[c] = pa.array(s, from_pandas=True)
            continue
        mask = (codes < 0) if (codes < 0).any() else None  # numpy: pa.array takes no Arrow mask
        idx = pa.array(np.where(codes < 0, 0, codes).astype(np.int32), mask=mask)
        cols[c] = text.take(idx) if len(text) else pa.nulls(len(s), pa.string())
    return pa.table(cols)


def _arrow_text(dtype) -> bool:
    """Whether `dtype` is pandas' text held in Arrow (the `str` dtype pandas gives a column of
    Python strings): its values go to the writer as they are, not hashed back into codes."""
    return isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow"


def _words(values):
    """Distinct values as the Arrow strings a CSV cell shows (textsafe.csv_cell)."""
    import pyarrow as pa

    return pa.array(["" if v is None else csv_cell(str(v)) for v in values], type=pa.string())


def _category_words(df: pd.DataFrame) -> dict:
    """{categorical column: its categories' cell text}: a million-row frame's 10,000 model
    names are made text once, not once per CSV batch."""
    return {
        c: _words(df[c].cat.categories)
        for c in df.columns
        if isinstance(df[c].dtype, pd.CategoricalDtype)
    }


def _formula_safe(arr):
    """textsafe.csv_cell on an Arrow text column, vectorised (numbers pass unchanged)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
        return arr
    if not _may_start_formula(arr):
        return arr
    starts = pc.match_substring_regex(arr, FORMULA_PATTERN)
    if not pc.any(starts).as_py():
        return arr
    quote, empty = (pa.scalar(x, type=arr.type) for x in ("'", ""))  # pandas' text: large
    return pc.if_else(starts, pc.binary_join_element_wise(quote, arr, empty), arr)


#: the bytes a formula starts with (textsafe.FORMULA_START: ASCII, so never a byte inside a
#: multi-byte UTF-8 character)
_FORMULA_BYTES = np.frombuffer("".join(FORMULA_START).encode("ascii"), dtype=np.uint8)


def _may_start_formula(arr) -> bool:
    """Whether a value of an Arrow text array may start like a formula, from the first byte of
    each value read off its offsets and data buffers: a tenth of the regular expression's time
    on a million `file:line` sources. False means none does; True (a null slot may hold bytes)
    sends the column through the exact test."""
    import pyarrow as pa

    for chunk in arr.chunks if isinstance(arr, pa.ChunkedArray) else [arr]:
        _, offsets, data = chunk.buffers()
        if data is None:  # no bytes: every value empty
            continue
        wide = np.int64 if pa.types.is_large_string(chunk.type) else np.int32
        at = np.frombuffer(offsets, dtype=wide)[chunk.offset : chunk.offset + len(chunk) + 1]
        first = np.frombuffer(data, dtype=np.uint8)[at[:-1][at[1:] > at[:-1]]]
        if np.isin(first, _FORMULA_BYTES).any():
            return True
    return False


#: rows per CSV batch: the text of a million rows (~170 MB) is never held at once
CSV_BATCH = 100_000


def write_csv(df: pd.DataFrame, sink) -> None:
    """`df` as CSV to a binary file object, in batches of CSV_BATCH rows."""
    import pyarrow.csv as pcsv

    # Arrow converts and writes 8,192 rows at a time instead of its default 1,024: a tenth
    # less CPU on a million 26-column rows (the per-batch cost of 26 casts), the same bytes
    options = pcsv.WriteOptions(quoting_style="needed", batch_size=8192)
    words = _category_words(df)
    for start in range(0, max(len(df), 1), CSV_BATCH):
        table = _arrow_table(df.iloc[start : start + CSV_BATCH], words)
        if start == 0:
            writer = pcsv.CSVWriter(sink, table.schema, write_options=options)
        writer.write_table(table)
    writer.close()


def to_csv_bytes(df: pd.DataFrame) -> bytes:
    buf = io.BytesIO()
    write_csv(df, buf)
    return buf.getvalue()


def _plain(v):
    if v is pd.NA or v is None:  # a test's empty side (nullable integer columns)
        return None
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def to_json_text(obj, **extra) -> str:
    """A DataFrame as a list of records, or a dict of DataFrames (and `extra` plain values
    beside them), at full precision."""
    if isinstance(obj, pd.DataFrame):
        cols = list(obj.columns)
        obj = [
            {c: _plain(v) for c, v in zip(cols, row, strict=True)}
            for row in obj.itertuples(index=False, name=None)
        ]
    elif isinstance(obj, dict):
        out = {k: json.loads(to_json_text(v)) for k, v in obj.items()}
        return json.dumps(out | extra, indent=1)
    return json.dumps(obj, indent=1)


def skipped_frame(skipped) -> pd.DataFrame:
    """The files and tasks passed over, one row each (task empty for a whole file)."""
    rows = [(s.path, s.task, s.reason) for s in skipped]
    return pd.DataFrame(rows, columns=SKIPPED_COLUMNS, dtype=object)


def write_skipped_csv(skipped, columns: list[str], stream) -> None:
    """The skipped files and tasks as rows of the scores CSV (after its last row): `source`
    the file, `task` the task (empty for a whole file), `verdict` 'skipped', `note` the
    reason; every other field empty."""
    import csv

    if not skipped:
        return
    buf = io.StringIO()
    writer = csv.writer(buf, quoting=csv.QUOTE_MINIMAL, lineterminator="\n")
    for s in skipped:
        row = dict.fromkeys(columns, "")
        row |= {"source": s.path, "task": s.task or "", "verdict": "skipped", "note": s.reason}
        writer.writerow([row[c] for c in columns])
    stream.write(buf.getvalue())


def to_markdown(df: pd.DataFrame) -> str:
    return df.to_markdown(index=False, floatfmt=".4g")


def write(df: pd.DataFrame, fmt: str, stream) -> None:
    """`df` to a text stream in `fmt` (csv, json, md)."""
    if fmt == "csv":
        stream.flush()
        if hasattr(stream, "buffer"):
            write_csv(df, stream.buffer)
            stream.buffer.flush()
        else:
            stream.write(to_csv_bytes(df).decode("utf-8"))
    elif fmt == "json":
        stream.write(to_json_text(df) + "\n")
    else:
        stream.write(to_markdown(df) + "\n")
