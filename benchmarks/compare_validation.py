"""`evalsci compare`'s hierarchical model: interval coverage on simulated data, and speed.

Coverage (issue 43: 95% intervals cover the truth in 93-97% of >= 200 data sets). Each data
set d draws from `SeedSequence([seed, d])`:
    tasks J ~ uniform{10..60}; items per task n_j ~ log-uniform on [20, 2000] (both systems on
    the same n_j); mu ~ N(0, 0.5); beta ~ N(0, 0.3); sigma_U ~ U(0.3, 1.2);
    sigma_W ~ U(0, 0.3); U_j, W_jl and y_jl from the model (evalsci.compare.model).
and is fitted with the defaults of `evalsci compare` (evalsci.compare.fit.fit_cells: 4 chains x
500 draws after 500 warm-up, the checks and the refit). Recorded per data set: whether the
95% interval of beta, of the population effect in accuracy points and of each task's
log-odds effect theta_j covers the truth, divergences, the sampler's time. A fit refused as not
converged counts as a miss and is listed.

Speed (issue 43: under 60 s for 2 systems x 60 tasks x 1,000 items on 2 cores; the exact
cross-check alone under 2 s): the command `python -m evalsci.cli compare` end to end on a tidy
per-item CSV of that size (120,000 rows), and with --exact-only; wall and CPU seconds.

    python benchmarks/compare_validation.py [--datasets 200] [--seed 1] [--out DIR] [--smoke]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]


def simulate(d: int, seed: int, tasks=(10, 60), items=(20, 2000)):
    from scipy.special import expit

    from evalsci.compare.model import Cells

    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, d])))
    J = int(rng.integers(tasks[0], tasks[1] + 1))
    n = np.round(np.exp(rng.uniform(np.log(items[0]), np.log(items[1]), J))).astype(int)
    mu, beta = rng.normal(0, 0.5), rng.normal(0, 0.3)
    s_u, s_w = rng.uniform(0.3, 1.2), rng.uniform(0.0, 0.3)
    u, w = rng.normal(0, s_u, J), rng.normal(0, s_w, (J, 2))
    p_a, p_b = expit(mu + u + w[:, 0] - beta / 2), expit(mu + u + w[:, 1] + beta / 2)
    cells = Cells(
        tuple(f"t{j}" for j in range(J)), n, rng.binomial(n, p_a), n, rng.binomial(n, p_b)
    )
    truth = {
        "beta": beta,
        "effect_points": 100 * (expit(mu + beta / 2) - expit(mu - beta / 2)),
        "theta": beta + w[:, 1] - w[:, 0],
    }
    return cells, truth


def coverage(n_sets: int, seed: int, out: Path | None = None) -> pd.DataFrame:
    """One row per data set; with `out`, each row is appended to out/coverage_rows.jsonl as
    it is done (a long run can be read while it goes)."""
    from evalsci.compare.fit import NotConverged, fit_cells, interval

    rows = []
    for d in range(n_sets):
        cells, truth = simulate(d, seed)
        start = time.perf_counter()
        try:
            fit = fit_cells(cells)
        except NotConverged as e:
            rows.append(
                {"dataset": d, "tasks": len(cells.tasks), "converged": False, "note": str(e)}
            )
            continue
        row = {"dataset": d, "tasks": len(cells.tasks), "converged": True, "note": ""}
        for name in ("beta", "effect_points"):
            lo, hi = interval(fit.post[name])
            row[f"{name}_covered"] = bool(lo <= truth[name] <= hi)
        lo, hi = np.quantile(
            fit.post["theta"].reshape(-1, len(cells.tasks)), [0.025, 0.975], axis=0
        )
        row["theta_covered_share"] = float(((lo <= truth["theta"]) & (truth["theta"] <= hi)).mean())
        row["divergences"] = fit.divergences
        row["draws"] = fit.post["beta"].shape[1]
        row["seconds"] = time.perf_counter() - start
        rows.append(row)
        if out is not None:
            with open(out / "coverage_rows.jsonl", "a") as fh:
                fh.write(json.dumps(row) + "\n")
        print(f"data set {d}: {len(cells.tasks)} tasks, {row['seconds']:.1f} s", file=sys.stderr)
    return pd.DataFrame(rows)


def cpu_children() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def speed(tmp: Path, tasks=60, items=1000, seed=2) -> dict:
    rng = np.random.default_rng(seed)
    frames = []
    for j in range(tasks):
        base = rng.normal(0.3, 1.0)
        for model, shift in (("A", -0.1), ("B", 0.1)):
            p = 1 / (1 + np.exp(-(base + shift)))
            frames.append(
                pd.DataFrame(
                    {
                        "model": model,
                        "task": f"task{j:02d}",
                        "item": np.arange(items),
                        "correct": (rng.random(items) < p).astype(int),
                    }  # fmt: skip
                )
            )
    csv = tmp / "items.csv"
    pd.concat(frames).to_csv(csv, index=False)
    out = {}
    for label, extra in (("hierarchical + exact", []), ("exact only", ["--exact-only"])):
        cmd = [sys.executable, "-m", "evalsci.cli", "compare", str(csv), "--a", "A", "--b", "B",
               "--format", "csv", *extra]  # fmt: skip
        wall, cpu = time.perf_counter(), cpu_children()
        subprocess.run(cmd, check=True, capture_output=True, env=os.environ)
        out[label] = {"wall_s": time.perf_counter() - wall, "cpu_s": cpu_children() - cpu}
    return out


def coverage_summary(n_sets: int, args) -> dict:
    (args.out / "coverage_rows.jsonl").unlink(missing_ok=True)
    cov = coverage(n_sets, args.seed, args.out)
    cov.to_csv(args.out / "coverage.csv", index=False)
    ok = cov[cov["converged"]]
    return {
        "converged": int(cov["converged"].sum()),
        "beta_coverage": float(ok["beta_covered"].sum() / n_sets),
        "effect_points_coverage": float(ok["effect_points_covered"].sum() / n_sets),
        "theta_coverage": float(ok["theta_covered_share"].mean()),
        "datasets_with_divergences": int((ok["divergences"] > 0).sum()),
        "median_fit_s": float(ok["seconds"].median()),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", type=int, default=200, help="0: the speed part only")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=ROOT / "results" / "benchmarks" / "compare")
    ap.add_argument("--smoke", action="store_true", help="1 data set, 10 tasks x 100 items speed")
    ap.add_argument("--no-speed", action="store_true")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    n_sets = 1 if args.smoke else args.datasets
    summary = {"datasets": n_sets}
    if n_sets:
        summary.update(coverage_summary(n_sets, args))
    if not args.no_speed:
        with tempfile.TemporaryDirectory() as tmp:
            kw = {"tasks": 10, "items": 100} if args.smoke else {}
            summary["speed"] = speed(Path(tmp), **kw)
    (args.out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
