"""`evalsci audit` on a directory of many one-row tidy CSVs (issue 47 item 9), against the same
rows in one file, in one run: small files are read together (tidy_csv.read_small_frames), so
the cost grows linearly with the files. Before, 100,000 one-row files took 9 min, then a
MemoryError; one file with the same rows 2.5 s.

    python benchmarks/audit_many_files.py [FILES]
    python benchmarks/audit_many_files.py --smoke     # 500 files: seconds
"""

from __future__ import annotations

import argparse
import contextlib
import io
import tempfile
import time
from pathlib import Path

import pandas as pd

from evalsci.cli import main as evalsci

HEADER = "model,task,n,correct,choices\n"


def _row(i: int) -> str:
    return f"m{i % 7},t{i},100,{40 + i % 30},2\n"


def _audit(path: Path) -> tuple[float, str]:
    out = io.StringIO()
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        rc = evalsci(["audit", str(path), "--format", "csv"])
    if rc != 0:
        raise SystemExit(f"evalsci audit {path}: exit {rc}")
    return time.perf_counter() - t0, out.getvalue()


def main(files: int) -> None:
    with tempfile.TemporaryDirectory() as d:
        many, one = Path(d) / "many", Path(d) / "one.csv"
        many.mkdir()
        for i in range(files):
            (many / f"r{i:06d}.csv").write_text(HEADER + _row(i))
        one.write_text(HEADER + "".join(_row(i) for i in range(files)))
        t_many, out_many = _audit(many)
        t_one, out_one = _audit(one)
    a, b = (
        pd.read_csv(io.StringIO(o)).drop(columns="source").sort_values(["model", "task"])
        for o in (out_many, out_one)
    )
    pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True))
    print(
        f"{files:,} one-row files: {t_many:.2f} s; the same rows in one file: {t_one:.2f} s "
        f"(ratio {t_many / t_one:.1f}); {t_many / files * 1e3:.3f} ms per file"
    )


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", type=int, nargs="?", default=100_000, help="one-row CSV files")
    ap.add_argument("--smoke", action="store_true", help="500 files: seconds (CI)")
    args = ap.parse_args()
    main(500 if args.smoke else args.files)
