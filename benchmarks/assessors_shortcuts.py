"""CPU-seconds of the assessors' per-LLM baselines and AUCs: plain calls against the shortcuts.

In the shapes of one `predictaboard` split job (issue 15): the reference-only baseline (per
selector, 12 LLMs fitted on the same 100 x 384 reference embeddings), the specific assessor
(8 test LLMs on the same 1,700 x 384 training embeddings) and 1,200 AUCs. Baseline: one
`fit_predict` / `roc_auc_score` per call; shortcut: `fit_predict_shared` (XGBoost's training
matrix binned once) and `auc` (`roc_curve` + `auc`). Both give the same bits (asserted here and
in tests/test_assessors_speed.py). 1 thread; CPU-seconds (process time), so the number holds on
a loaded machine.

    OMP_NUM_THREADS=1 PYTHONPATH=src .venv/bin/python benchmarks/assessors_shortcuts.py
    .venv/bin/python benchmarks/assessors_shortcuts.py --smoke   # small shapes, seconds (CI)
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

os.environ.setdefault("OMP_NUM_THREADS", "1")


def _cpu(fn):
    t = time.process_time()
    out = fn()
    return time.process_time() - t, out


def main(smoke: bool = False) -> None:
    from sklearn.metrics import roc_auc_score

    from evalsci.assess.classifiers import auc, fit_predict, fit_predict_shared

    rng = np.random.default_rng(0)
    w = rng.normal(size=384)

    def task(n, n_llm):
        x = rng.normal(size=(n, 384)).astype(np.float32)
        ys = [
            ((x @ w) / 20 + rng.normal(size=n) > t).astype(int) for t in np.linspace(-1, 1, n_llm)
        ]
        return x, ys, [rng.normal(size=(600, 384)).astype(np.float32)]

    tasks = [task(100, 12) for _ in range(8)] + [task(1700, 8)]
    if smoke:
        tasks = [task(100, 2), task(200, 2)]
    name = "xgboost_bins64"
    t_plain, plain = _cpu(
        lambda: [[fit_predict(name, x, y, xe) for y in ys] for x, ys, xe in tasks]
    )
    t_shared, shared = _cpu(
        lambda: [fit_predict_shared(name, x, [(y, xe) for y in ys]) for x, ys, xe in tasks]
    )
    for a, b in zip(plain, shared, strict=True):
        for pa, pb in zip(a, b, strict=True):
            assert all(np.array_equal(u, v) for u, v in zip(pa, pb, strict=True))
    print(
        f"baselines fitted per LLM ({sum(len(t[1]) for t in tasks)} XGBoost fits): "
        f"{t_plain:.2f} CPU-s plain, {t_shared:.2f} shared ({t_plain / t_shared:.2f}x)"
    )

    pairs = [
        ((rng.random(500) < 0.4).astype(int), rng.random(500).astype(np.float32))
        for _ in range(50 if smoke else 1200)
    ]
    t_sk, a = _cpu(lambda: [roc_auc_score(y, p) for y, p in pairs])
    t_ours, b = _cpu(lambda: [auc(y, p) for y, p in pairs])
    assert a == b
    print(
        f"{len(pairs):,} AUCs: {t_sk:.2f} CPU-s roc_auc_score, {t_ours:.2f} roc_curve + auc "
        f"({t_sk / t_ours:.2f}x)"
    )
    total_before, total_after = t_plain + t_sk, t_shared + t_ours
    print(f"together: {total_before:.2f} -> {total_after:.2f} CPU-s")
    print(f"speedup: {total_before / total_after:.2f}x")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--smoke", action="store_true", help="small shapes, seconds (CI)")
    main(ap.parse_args().smoke)
