"""`evalsci reference` select + predict on a 10,000-item x 100-model matrix (issue 36: < 60 s).

Responses are drawn from a 2PL IRT model (abilities and difficulties N(0, 1), 20 tasks of 500
items), written as the tidy per-item CSV, and both verbs run through the CLI's own entry point,
timed end to end (reading included); the baseline is reading the CSV alone.

    python benchmarks/reference_speed.py [--selector clustering_success]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from evalsci.assess.responses import read_responses
from evalsci.cli import main


def matrix(n_models=101, n_items=10_000, seed=0):
    rng = np.random.default_rng(seed)
    theta, b = rng.normal(size=n_models), rng.normal(size=n_items)
    y = (rng.random((n_models, n_items)) < 1 / (1 + np.exp(-(theta[:, None] - b)))).astype(int)
    model = np.repeat([f"m{i:03d}" for i in range(n_models)], n_items)
    item = np.tile(np.arange(n_items), n_models)
    return pd.DataFrame(
        {
            "model": model,
            "task": "t" + (item // 500).astype(str),
            "item": item,
            "correct": y.ravel(),
        }
    )


def run(selector: str) -> None:
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        df = matrix()
        known, new = df[df["model"] != "m100"], df[df["model"] == "m100"]
        known.to_csv(d / "known.csv", index=False)
        new.to_csv(d / "new.csv", index=False)
        t0 = time.perf_counter()
        read_responses([d / "known.csv"])
        t_read = time.perf_counter() - t0
        t0 = time.perf_counter()
        rc = main(["reference", "select", str(d / "known.csv"), "--n", "100", "--selector",
                   selector, "--out", str(d / "ref.csv")])  # fmt: skip
        t_sel = time.perf_counter() - t0
        t0 = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            rc |= main(["reference", "predict", str(d / "known.csv"), "--reference",
                        str(d / "ref.csv"), "--new", str(d / "new.csv")])  # fmt: skip
        t_pred = time.perf_counter() - t0
    assert rc == 0
    print(
        f"selector {selector}: 10,000 items x 100 known models, cores {os.cpu_count()}: read "
        f"{t_read:.1f} s; select {t_sel:.1f} s; predict {t_pred:.1f} s; select + predict "
        f"{t_sel + t_pred:.1f} s = {(t_sel + t_pred) / t_read:.1f} x reading the CSV once"
    )


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--selector", default="clustering_success")
    run(ap.parse_args().selector)
