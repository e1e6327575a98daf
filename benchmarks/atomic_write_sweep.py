"""Cost of atomic_path's sweep for a killed write's temporaries (issue 35 item 7), against the
same write without it, in a directory of N files (a resumable shard directory).

    python benchmarks/atomic_write_sweep.py [N] [--writes K]
    python benchmarks/atomic_write_sweep.py --smoke      # 200 files, 20 writes: a second
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from unittest import mock

from evalsci.pipeline import jobs


def _writes(d: Path, k: int) -> float:
    t0 = time.perf_counter()
    for i in range(k):
        with jobs.atomic_path(d / f"new{i}.csv.gz") as tmp:
            tmp.write_bytes(b"x")
    return (time.perf_counter() - t0) / k


def main(n: int = 10_000, k: int = 500) -> None:
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        for i in range(n):
            (d / f"shard{i}.csv.gz").write_bytes(b"x")
        with_sweep = _writes(d, k)
        with mock.patch.object(jobs, "remove_stale_temps", lambda path: []):
            without = _writes(d, k)
    print(
        f"{n} files in the directory: {with_sweep * 1e3:.3f} ms per atomic write with the "
        f"sweep, {without * 1e3:.3f} ms without (ratio {with_sweep / without:.2f})"
    )


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", type=int, nargs="?", default=10_000, help="files in the directory")
    ap.add_argument("--writes", type=int, default=500, help="atomic writes timed per variant")
    ap.add_argument("--smoke", action="store_true", help="tiny sizes, seconds (CI)")
    args = ap.parse_args()
    main(200, 20) if args.smoke else main(args.n, args.writes)
