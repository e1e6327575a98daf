"""Time `evalsci audit --plot` on a CSV of TASKS tasks x 6 models, against the same audit
without the plot: wall time and peak memory of each, in a child process under
`/usr/bin/time -v`.

    .venv/bin/python benchmarks/audit_plot.py 60 300
    .venv/bin/python benchmarks/audit_plot.py --smoke      # 1 task (CI)

Task names of 16 to 48 characters, n from 20 to 2,000, 2 to 10 options; the CSV is written with
a fixed seed into a temporary directory. The goal (issue 32): 60 tasks under 10 s and 300 MB.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

MODELS = [
    f"org-{m}/model-{m}-{s}B-instruct" for m, s in zip("abcdef", (1, 3, 7, 8, 13, 70), strict=True)
]


def write_csv(path: Path, tasks: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    lines = ["model,task,n,correct,choices"]
    for i in range(tasks):
        task = f"benchmark_suite_{i:03d}_" + "subtask_" * (i % 5) + "x"
        n, k = (
            int(rng.choice([20, 50, 100, 250, 500, 1000, 2000])),
            int(rng.choice([2, 3, 4, 5, 10])),
        )
        for m in MODELS:
            lines.append(f"{m},{task},{n},{min(n, int(n * (1 / k + rng.random() * 0.4)))},{k}")
    path.write_text("\n".join(lines) + "\n")


def timed(args: list[str]) -> tuple[float, float]:
    """(wall s, peak RSS MB) of `python -m evalsci.cli audit ARGS` in a child process."""
    cmd = ["/usr/bin/time", "-v", sys.executable, "-m", "evalsci.cli", "audit", *args]
    run = subprocess.run(cmd, capture_output=True, text=True, env=os.environ, check=True)
    wall = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", run.stderr)
    h, m, s = wall.groups()
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", run.stderr)[1])
    return int(h or 0) * 3600 + int(m) * 60 + float(s), rss / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tasks", type=int, nargs="*", help="tasks in the CSV (one run each)")
    ap.add_argument("--smoke", action="store_true", help="1 task: the smallest plot (CI)")
    args = ap.parse_args()
    if args.smoke:
        args.tasks = [1]
    elif not args.tasks:
        ap.error("give at least one number of TASKS, or --smoke")
    print(
        "| tasks | audit alone | audit + --plot | peak RSS alone | peak RSS with --plot | pages |"
    )
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    for tasks in args.tasks:
        with tempfile.TemporaryDirectory() as tmp:
            f = Path(tmp) / "scores.csv"
            write_csv(f, tasks)
            base = timed([str(f), "--format", "csv"])
            out = Path(tmp) / "fig" / "p.png"
            plotted = timed([str(f), "--format", "csv", "--plot", str(out)])
            pages = len(list(out.parent.glob("*.png")))
        print(
            f"| {tasks} | {base[0]:.1f} s | {plotted[0]:.1f} s | {base[1]:.0f} MB | "
            f"{plotted[1]:.0f} MB | {pages} |"
        )


if __name__ == "__main__":
    main()
