"""Cost of atomic_path's sweep for a killed write's temporaries (issue 35 item 7), against the
same write without it, in a directory of N files (a resumable shard directory).

    python benchmarks/atomic_write_sweep.py [N]
"""

from __future__ import annotations

import sys
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
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000)
