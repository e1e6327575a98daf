"""A fixed CPU workload, to tell a slower host from a slower workflow.

The same default DAG on the same idle 2-core machine took 14 min 59 s and 15 min 4 s on two
runs on 2026-11-24. Its embedding jobs, the same computation in both runs, differed by 10 %:
the host's speed drifts. Run this before and after a timing run (`python
scripts/machine_speed.py`) and compare the DAG's times only between runs whose numbers here
agree. The two parts mirror the DAG's two largest costs. Each is repeated and the best time is
kept:
- XGBoost: three fits like a generic assessor's (6,000 x 484, 64 bins, 100 trees, 1 thread);
- float32 matrix products like the MiniLM forward passes (1 thread).
"""

from __future__ import annotations

import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402


def xgboost_seconds(repeats: int = 2) -> float:
    from xgboost import XGBClassifier

    rng = np.random.default_rng(0)
    x = rng.normal(size=(6000, 484)).astype(np.float32)
    y = (x[:, 0] + rng.normal(size=6000) > 0).astype(int)
    best = np.inf
    for _ in range(repeats):
        t = time.perf_counter()
        for seed in range(3):
            XGBClassifier(tree_method="hist", n_jobs=1, max_bin=64, random_state=seed).fit(x, y)
        best = min(best, time.perf_counter() - t)
    return best


def matmul_seconds(repeats: int = 3) -> float:
    import torch

    torch.set_num_threads(1)
    g = torch.Generator().manual_seed(0)
    a = torch.randn(4096, 384, generator=g)
    w = torch.randn(384, 1536, generator=g)
    best = np.inf
    for _ in range(repeats):
        t = time.perf_counter()
        for _ in range(40):
            (a @ w).relu_() @ w.T
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    xgb, mm = xgboost_seconds(), matmul_seconds()
    print(f"xgboost: {xgb:.2f} s")
    print(f"float32 matmul: {mm:.2f} s")
    print(f"machine time (lower is faster): {xgb + mm:.2f} s")


if __name__ == "__main__":
    main()
