"""The audit's CSV writer against one that formats each distinct float once (issue 32 item 6).

`evalsci.audit.output.write_csv` hands Arrow's CSV writer plain float columns, which it casts
to text row by row. The alternative here formats each distinct value of a batch once
(`pandas.factorize`, Arrow cast, take), quotes text as Arrow's `needed` style does, and joins
the fields with `pyarrow.compute.binary_join_element_wise`, since Arrow's writer would quote
pre-formatted numbers as strings. Both write the judged frame of the million-row CSV of
`audit_csv.py`, interleaved, in this process; the bytes must be identical:

    python benchmarks/audit_csv_writer.py [ROWS] [--reps 3]
    python benchmarks/audit_csv_writer.py --smoke     # 2,000 rows: seconds (CI)
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from evalsci.audit import judge_inputs, read_inputs
from evalsci.audit.output import CSV_BATCH, write_csv

sys.path.insert(0, str(Path(__file__).parent))
from audit_csv import write_csv as write_input  # noqa: E402


def _take(codes: np.ndarray, words: pa.Array) -> pa.Array:
    mask = pa.array(codes < 0) if (codes < 0).any() else None
    return words.take(pa.array(np.where(codes < 0, 0, codes).astype(np.int32), mask=mask))


def _quote(a: pa.Array) -> pa.Array:
    return pc.binary_join_element_wise('"', pc.replace_substring(a, '"', '""'), '"', "")


def _text(s: pd.Series) -> pa.Array:
    if isinstance(s.dtype, pd.CategoricalDtype):
        words = pa.array([str(v) for v in s.cat.categories], type=pa.string())
        return _take(s.cat.codes.to_numpy(), _quote(words))
    if isinstance(s.dtype, (pd.StringDtype, pd.ArrowDtype)):
        a = pa.array(s.array)
        a = a.combine_chunks() if isinstance(a, pa.ChunkedArray) else a
        return _quote(a.cast(pa.string()))
    if s.dtype == object:
        codes, uniq = pd.factorize(s, use_na_sentinel=True)
        return _take(codes, _quote(pa.array([str(v) for v in uniq], type=pa.string())))
    if s.dtype == float:
        v = s.to_numpy()
        if not (np.signbit(v) & (v == 0)).any():  # factorize would merge -0.0 with 0.0
            codes, uniq = pd.factorize(v, use_na_sentinel=True)
            return _take(codes, pa.array(uniq, type=pa.float64()).cast(pa.string()))
    return pa.array(s, from_pandas=True).cast(pa.string())


def write_joined(df: pd.DataFrame, sink) -> None:
    sink.write((",".join(f'"{c}"' for c in df.columns) + "\n").encode())
    for start in range(0, len(df), CSV_BATCH):
        part = df.iloc[start : start + CSV_BATCH]
        cols = [_text(part[c]) for c in part.columns]
        line = pc.binary_join_element_wise(*cols, ",", null_handling="replace", null_replacement="")
        line = pc.binary_join_element_wise(line, "\n", "")
        off = np.frombuffer(line.buffers()[1], np.int32, len(line) + 1, line.offset * 4)
        sink.write(memoryview(line.buffers()[2])[off[0] : off[-1]])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("rows", type=int, nargs="?", default=1_000_000, help="rows of the CSV")
    ap.add_argument("--reps", type=int, default=3, help="interleaved repetitions")
    ap.add_argument("--smoke", action="store_true", help="2,000 rows, one repetition: seconds (CI)")
    args = ap.parse_args()
    if args.smoke:
        args.rows, args.reps = 2_000, 1
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "audit.csv"
        write_input(path, args.rows)
        _, df = judge_inputs(read_inputs([path]))
    ref = None
    for _ in range(args.reps):
        for name, fn in (("evalsci write_csv", write_csv), ("distinct + join", write_joined)):
            buf = io.BytesIO()
            t0 = time.process_time()
            fn(df, buf)
            cpu = time.process_time() - t0
            out = buf.getvalue()
            ref = out if ref is None else ref
            same = "same bytes" if out == ref else "DIFFERENT BYTES"
            print(f"{name:<18} cpu={cpu:6.3f} s  {len(out):,d} bytes  {same}", flush=True)


if __name__ == "__main__":
    main()
