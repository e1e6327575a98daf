"""What each pin of portable arithmetic costs (issue 23; docs/benchmarks/portable.md).

    .venv/bin/python benchmarks/portable.py [--reps 3] [--n 256]
    .venv/bin/python benchmarks/portable.py --smoke     # numpy workload, one round (CI)

Four workloads, each the heavy part of a workflow job, each run in a fresh process (the pins
are read when a library loads) on one thread, with the CPU seconds of the workload alone
(imports and model loading excluded):
- embed: all-MiniLM-L6-v2 sentence embeddings of n prompts, float32 (assessors_embed);
- numpy: exp, log1p and sin of 2 million doubles, 20 times (the maxrandom rule's kind of work);
- blas: 40 float64 800 x 800 matrix products and an SVD (tapt PCA, scikit-learn);
- numba: a generic-CPU numba loop with math calls, as nutpie's log density (tapt fits).
Variants, interleaved rep by rep so a shared machine's drift hits them alike: none
(portable=false), all pins (portable=true), and each pin alone. Printed: the median CPU
seconds and its ratio to none, per workload; last `speedup: <ratio>x`, none against all
pins for the embedding workload (the most expensive pin: below 1 means portable is slower).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from evalsci.pipeline.determinism import PORTABLE_ENV, apply_portable  # noqa: E402

CHILD = r"""
import json, os, sys, time
w, n, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])  # rounds: 20 / 40 / 20
import numpy as np
if w == "embed":
    import torch
    torch.set_num_threads(1)
    from evalsci.studies.assessors.features import embed_sentences
    texts = [f"Question {i}: is {i} * 7 larger than {i + 3} squared? Answer yes or no." for i in range(n)]
    embed_sentences(texts[:8], progress=False)  # load and warm up
    t = time.process_time(); embed_sentences(texts, progress=False)
elif w == "numpy":
    x = np.random.default_rng(0).uniform(0.1, 20, 2_000_000)
    t = time.process_time()
    for _ in range(rounds):
        np.exp(-x); np.log1p(x); np.sin(x)
elif w == "blas":
    a = np.random.default_rng(0).normal(size=(800, 800))
    t = time.process_time()
    for _ in range(2 * rounds):
        a = a @ a.T; a /= np.abs(a).max()
    np.linalg.svd(a)
elif w == "numba":
    import math, numba
    @numba.njit(fastmath=True)
    def f(v):
        s = 0.0
        for x in v:
            s += math.exp(-0.5 * x * x) - math.log1p(abs(x)) * 0.25
        return s
    v = np.random.default_rng(0).normal(size=2_000_000)
    f(v[:10])
    t = time.process_time()
    for _ in range(rounds):
        f(v)
print(json.dumps(time.process_time() - t))
"""

PINS = {
    "embed": ["ATEN_CPU_CAPABILITY", "ONEDNN_MAX_CPU_ISA", "MKL_ENABLE_INSTRUCTIONS", "MKL_CBWR"],
    "numpy": ["NPY_DISABLE_CPU_FEATURES", "GLIBC_TUNABLES"],
    "blas": ["OPENBLAS_CORETYPE"],
    "numba": ["NUMBA_CPU_NAME", "GLIBC_TUNABLES"],
}


def measure(workload: str, n: int, env: dict[str, str], rounds: int = 20) -> float:
    base = {k: v for k, v in os.environ.items() if k not in PORTABLE_ENV}
    threads = {v: "1" for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
    out = subprocess.run(
        [sys.executable, "-c", CHILD, workload, str(n), str(rounds)],
        env={**base, **threads, **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--n", type=int, default=256, help="prompts for the embedding workload")
    ap.add_argument("--workloads", nargs="+", default=list(PINS), choices=list(PINS))
    ap.add_argument(
        "--smoke",
        action="store_true",
        help="the numpy workload, one round, one repetition: seconds (CI)",
    )
    args = ap.parse_args()
    rounds = 20
    if args.smoke:
        args.workloads, args.reps, rounds = ["numpy"], 1, 1
    every = {}
    apply_portable(True, every)
    ratio = {}
    for w in args.workloads:
        variants = {"none": {}, "all pins": every}
        variants |= {f"only {p}": {p: every[p]} for p in PINS[w]}
        times: dict[str, list[float]] = {k: [] for k in variants}
        for _ in range(args.reps):
            for name, env in variants.items():
                times[name].append(measure(w, args.n, env, rounds))
        base = statistics.median(times["none"])
        for name, ts in times.items():
            med = statistics.median(ts)
            print(f"{w}\t{name}\t{med:.2f} CPU-s\tratio {med / base:.2f}", flush=True)
        ratio[w] = statistics.median(times["all pins"]) / base
    if "embed" in ratio:
        print(f"speedup: {1 / ratio['embed']:.2f}x")


if __name__ == "__main__":
    main()
