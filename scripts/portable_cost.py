"""What portable arithmetic costs per job (issue 23; docs/benchmarks/portable.md).

Reruns the jobs that make the given outputs in a copy of a finished workdir, alternately with
`portable=false` and `portable=true` (and, with --pins, with each pin of
evalsci.pipeline.determinism.PORTABLE_ENV alone on top of portable=false), and prints each run's CPU
time from the job's `benchmark:` file and the ratio of the medians against portable=false.
Alternating the variants within one invocation keeps the ratios fair on a shared machine.

    python scripts/portable_cost.py WORKDIR OUTPUT... [--reps 2] [--pins] [--configfile F]

WORKDIR is a finished default run (`snakemake --cores 2 -d WORKDIR`); it is not modified.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from evalsci.pipeline.determinism import PORTABLE_ENV  # noqa: E402


def run_job(
    work: Path, output: str, portable: bool, env: dict[str, str], extra: list[str]
) -> float:
    """CPU-s of the job that makes `output` (its benchmark file), rerun in `work`."""
    start = time.time()
    cmd = [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(work)]
    cmd += ["--cores", "1", "--forcerun", output, "--until", output, output, *extra]
    cmd += ["--config", f"portable={str(portable).lower()}"]
    proc = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, **env})
    if proc.returncode:
        sys.exit(f"snakemake failed for {output}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    fresh = [p for p in (work / "logs").rglob("*.benchmark.tsv") if p.stat().st_mtime >= start]
    if len(fresh) != 1:
        sys.exit(f"{output}: expected one fresh benchmark file, found {fresh}")
    header, row = fresh[0].read_text().splitlines()[:2]
    return float(dict(zip(header.split("\t"), row.split("\t"), strict=True))["cpu_time"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("workdir", type=Path)
    ap.add_argument("outputs", nargs="+")
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--pins", action="store_true", help="also each pin alone")
    ap.add_argument("--configfile", help="the configuration WORKDIR was built with")
    args = ap.parse_args()
    variants = {"portable=false": (False, {}), "portable=true": (True, {})}
    if args.pins:
        for k, v in PORTABLE_ENV.items():
            variants[f"only {k}"] = (False, {k: v})
    with tempfile.TemporaryDirectory(prefix="evalsci-cost-") as tmp:
        work = Path(tmp) / "work"
        shutil.copytree(
            args.workdir, work, symlinks=True, ignore=shutil.ignore_patterns(".snakemake")
        )
        for output in args.outputs:
            times: dict[str, list[float]] = {name: [] for name in variants}
            for rep in range(args.reps):
                for name, (portable, env) in variants.items():
                    extra = ["--configfile", args.configfile] if args.configfile else []
                    t = run_job(work, output, portable, env, extra)
                    times[name].append(t)
                    print(f"{output}\t{name}\trep {rep + 1}\t{t:.1f} CPU-s", flush=True)
            base = statistics.median(times["portable=false"])
            for name, ts in times.items():
                med = statistics.median(ts)
                print(f"{output}\t{name}\tmedian {med:.1f} CPU-s\tratio {med / base:.2f}")


if __name__ == "__main__":
    main()
