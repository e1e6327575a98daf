"""The study's questions to the shared `maxrandom` rule, and the lookup of its answers.

One request per distinct (n, labels, t, correct): its answer holds the standard baseline, the
expected max of t guessers and both tail probabilities at `correct`. The t sweep asks for the
expected max only (no `correct`). Keys are built from the parameters, so the runs tables and
the answers join without passing anything else around.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def run_key(n, labels: str, t, correct) -> str:
    return f"n={int(n)}|labels={labels}|t={int(t)}|c={int(correct)}"


def sweep_key(n, labels: str, t) -> str:
    return f"n={int(n)}|labels={labels}|t={int(t)}"


def sweep_ts(t_max: int, points: int, extra=()) -> np.ndarray:
    """Log-spaced t from 1 to t_max (rounded, unique), plus the t's a table uses."""
    grid = np.unique(np.round(np.logspace(0, np.log10(t_max), points)).astype(np.int64))
    return np.unique(np.concatenate([grid, np.asarray(list(extra), dtype=np.int64)]))


def build(
    runs: pd.DataFrame, sweep_runs: pd.DataFrame | None = None, ts: np.ndarray | None = None
) -> pd.DataFrame:
    """Request rows (maxrandom schema) for every run, and for the sweep's (n, labels) x ts."""
    rows = {}
    for r in runs[["n", "labels", "t", "correct"]].drop_duplicates().itertuples(index=False):
        rows[run_key(r.n, r.labels, r.t, r.correct)] = (r.n, r.labels, r.t, r.correct)
    if sweep_runs is not None and ts is not None:
        for r in sweep_runs[["n", "labels"]].drop_duplicates().itertuples(index=False):
            for t in ts:
                rows[sweep_key(r.n, r.labels, t)] = (r.n, r.labels, int(t), pd.NA)
    df = pd.DataFrame(
        [(k, *v) for k, v in sorted(rows.items())], columns=["key", "n", "labels", "t", "correct"]
    )
    df["correct"] = df["correct"].astype("Int64")
    return df


def attach(runs: pd.DataFrame, baselines: pd.DataFrame) -> pd.DataFrame:
    """Each run with its standard and max baselines and tails (baselines indexed by key, as
    `evalsci.maxrandom.requests.read_baselines` returns it)."""
    keys = [run_key(*r) for r in runs[["n", "labels", "t", "correct"]].itertuples(index=False)]
    missing = [k for k in keys if k not in baselines.index]
    if missing:
        raise KeyError(
            f"{len(missing)} runs have no maxrandom answer (rerun the audit_requests "
            f"rule), e.g. {missing[:2]}"
        )
    ans = baselines.loc[keys]
    out = runs.copy()
    out["standard"] = ans["standard"].to_numpy()
    out["max_baseline"] = ans["expected_max"].to_numpy()
    out["p_standard"] = ans["tail_standard"].to_numpy()
    out["p_max"] = ans["tail_max"].to_numpy()
    return out
