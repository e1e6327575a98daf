"""One target locally and through workflow/profiles/slurm on a local single-node Slurm.

    EVALSCI_MIRROR=../shared/released .venv/bin/python benchmarks/local_slurm.py \
        [--target baselines_table1] [--outputs results/baselines/tables/table1.csv ...]
    .venv/bin/python benchmarks/local_slurm.py --smoke    # no cluster: a dry run (CI)

Starts a throw-away cluster with tests/slurm/local_cluster.sh (needs slurm-wlm, munge, root),
builds the target in a fresh directory with `snakemake --cores 2`, then in another fresh
directory with `--profile workflow/profiles/slurm` (the template unchanged, plus a 2 s
first status check), and stops the cluster. Printed: the
local wall and CPU time, the cluster run's wall time, its Slurm jobs (rule, partition, run
time), the sha256 of every output from both runs and whether they are identical, and last
`speedup: <local wall / cluster wall>x`: below 1 on one node, where the cluster adds sbatch,
a Snakemake start inside each job and status polling, and nothing runs in parallel.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLUSTER = ROOT / "tests" / "slurm" / "local_cluster.sh"


def run(cmd, env, cwd=None):
    t0 = time.perf_counter()
    proc = subprocess.run(
        cmd, env=env, cwd=cwd, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{proc.stdout[-5000:]}")
    return proc.stdout, wall


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--target", default="baselines_table1")
    ap.add_argument(
        "--outputs",
        nargs="+",
        default=[f"results/baselines/tables/table1.{ext}" for ext in ("csv", "md", "tex")],
    )
    ap.add_argument(
        "--smoke",
        action="store_true",
        help="no cluster: a dry run of the target through the slurm profile (CI; ~10 s)",
    )
    args = ap.parse_args()
    if args.smoke:  # the profile and its template still parse and plan the target's jobs
        with tempfile.TemporaryDirectory(prefix="evalsci-slurm-smoke-") as wd:
            profile = str(ROOT / "workflow" / "profiles" / "slurm")
            snakemake = [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile")]
            out, wall = run(
                [*snakemake, "-d", wd, "-n", "--profile", profile, args.target], env=None
            )
        jobs = re.search(r"^total\s+(\d+)", out, re.M)
        print(f"dry run through the slurm profile: {jobs[1] if jobs else '?'} jobs, {wall:.1f} s")
        return

    base = Path(tempfile.mkdtemp(prefix="evalsci-slurm-bench-"))
    cluster_dir, local_wd, slurm_wd = base / "cluster", base / "local", base / "slurm"
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([env.get("PATH", ""), "/usr/sbin", "/sbin"])
    snakemake = [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile")]
    try:
        subprocess.run(
            ["bash", str(CLUSTER), "start", str(cluster_dir)],
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        env["SLURM_CONF"] = str(cluster_dir / "etc" / "slurm.conf")
        env["PATH"] = os.pathsep.join([str(cluster_dir / "bin"), env["PATH"]])

        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        _, local_wall = run([*snakemake, "-d", str(local_wd), "--cores", "2", args.target], env)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        local_cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

        out, slurm_wall = run(
            [
                *snakemake,
                "-d",
                str(slurm_wd),
                "--profile",
                str(ROOT / "workflow" / "profiles" / "slurm"),
                "--slurm-init-seconds-before-status-checks",
                "2",
                args.target,
            ],
            env,
        )
        ids = re.findall(r"submitted with SLURM jobid (\d+)", out)
        print(f"local:   {local_wall:.1f} s wall, {local_cpu:.1f} CPU-s (user+sys)")
        print(f"cluster: {slurm_wall:.1f} s wall, {len(ids)} Slurm jobs")
        for jid in ids:
            text = subprocess.run(
                ["scontrol", "-o", "show", "job", jid],
                env=env,
                text=True,
                capture_output=True,
                check=True,
            ).stdout
            f = dict(kv.split("=", 1) for kv in text.split() if "=" in kv)
            print(
                f"  job {jid}: {f['Comment']} partition={f['Partition']} "
                f"state={f['JobState']} run time={f['RunTime']}"
            )
        same = True
        for name in args.outputs:
            a, b = sha256(local_wd / name), sha256(slurm_wd / name)
            same &= a == b
            print(f"  {name}: local {a} cluster {b} {'identical' if a == b else 'DIFFER'}")
        print(f"outputs identical: {same}")
        print(f"speedup: {local_wall / slurm_wall:.2f}x")
    finally:
        subprocess.run(["bash", str(CLUSTER), "stop", str(cluster_dir)], env=env)
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
