"""Leave-one-model-out validation of `evalsci reference` against tinyBenchmarks (issue 36).

Benchmarks (config `assessors.lomo.benchmarks`):
- BBH, MuSR, MMLU-Pro, MATH: the Open LLM Leaderboard v2 0/1 results in the PredictaBoard
  bundle, *every run* kept (`evalsci.data.leaderboard.read_runs`; a run lacking an item is left
  out and counted in the log). Several models have two or more runs;
- cfi_ground_truth: the study's normalised success table of that collection (one run per LLM).

For each of `held_out_models` models drawn at random (seeded), every run of that model is a
"new" model and the runs of all other models are the known ones (`lomo_splits`; no run of a
held-out model is ever in training: checked here and in tests/test_assessors_lomo.py). For each
n of `n_reference`, four methods estimate each held-out run's accuracy on the benchmark from n
of its outcomes:
- `random_mean`: n items drawn uniformly, their mean; interval: normal with the finite
  population correction, mean +- z sqrt(m (1 - m) / n (N - n) / (N - 1));
- `tinybenchmarks_irt`, `tinybenchmarks_pirt`, `tinybenchmarks_gpirt`: tinyBenchmarks' anchor,
  p-IRT and gp-IRT estimators on n IRT anchor points (`evalsci.assess.tinybench`); the paper
  gives no interval (coverage NaN);
- `generic_random`: the paper's generic assessor on n random reference items (the paper's
  `random` selector), success features only (`evalsci.assess.refset.predict_new`: MMLU-Pro has
  no released prompts, so no embedding features on every benchmark);
- `reference_default`: `evalsci reference`'s default (selector `DEFAULT_SELECTOR`, estimator
  `DEFAULT_ESTIMATOR`: the reference mean, the same assessor and p-IRT stacked); generic_random and
  reference_default carry `predict_new`'s split-conformal interval
  at `level`.
Per run and method: |estimate - accuracy| (accuracy over every item of the benchmark), the
per-item AUC of its P(success) on the items it did not observe (a constant predictor, the random
mean, has AUC 0.5 by definition), and whether the interval covers the accuracy. A held-out
model's runs are averaged, so every number has one value per held-out model; the summary gives
the mean and its standard error over held-out models, and `paired_tests` tests the default
against gp-IRT (and against the random mean) paired over held-out models: two-sided paired
t-tests on the per-model differences of absolute error, Holm over the benchmark x n family of
each comparison, at `test_level`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from evalsci.data.leaderboard import LEADERBOARD_BENCHMARKS
from evalsci.studies.assessors.columns import LOMO_COLUMNS

from .settings import Lomo

__all__ = [
    "LEADERBOARD_BENCHMARKS",
    "METHODS",
    "FIGURE_METHODS",
    "Runs",
    "leaderboard_runs",
    "collection_runs",
    "held_out_models",
    "lomo_splits",
    "run_benchmark",
    "summarise",
    "paired_tests",
]

log = logging.getLogger(__name__)

METHODS = (
    "random_mean",
    "tinybenchmarks_irt",
    "tinybenchmarks_pirt",
    "tinybenchmarks_gpirt",
    "generic_random",
    "reference_default",
)
FIGURE_METHODS = ("random_mean", "tinybenchmarks_gpirt", "generic_random", "reference_default")


@dataclass
class Runs:
    """0/1 outcomes of runs (rows) on a benchmark's items (columns)."""

    benchmark: str
    run: list[str]  # run ids, unique
    model: np.ndarray  # the model of each run
    items: list[str]
    success: np.ndarray  # runs x items, int8


def leaderboard_runs(
    bundle_dir: str | Path, benchmark: str, name: Callable[[str], str] = lambda p: p
) -> Runs:
    """Every run of a PredictaBoard benchmark: the subtask files side by side (items
    `<subtask>/<id>`), runs lacking any item left out (logged). `name` maps an upstream path
    to the stored one (the workflow's bundle keeps files gzipped), as in
    `evalsci.data.leaderboard.discover_pairs`."""
    from evalsci.data.leaderboard import RESULTS_DIR, read_runs

    prefix = LEADERBOARD_BENCHMARKS[benchmark]
    root = Path(bundle_dir)
    single = root / name(f"{RESULTS_DIR}/{prefix}_results.csv")
    if single.is_file():
        files = [("", single)]
    else:
        pattern = Path(name(f"{RESULTS_DIR}/{prefix}__*_results.csv")).name
        found = sorted((root / RESULTS_DIR).glob(pattern))
        files = [(f.name.split("__", 1)[1].split("_results.csv")[0], f) for f in found]
    if not files:
        raise FileNotFoundError(f"no {prefix} results files under {root / RESULTS_DIR}")
    blocks, models, stamps = [], None, None
    for sub, f in files:
        df = read_runs(f)
        if models is None:
            models, stamps = df["model"].to_numpy(), df["timestamp"].to_numpy()
        elif not (np.array_equal(df["model"], models) and np.array_equal(df["timestamp"], stamps)):
            raise ValueError(f"{f}: its runs (model, timestamp) are not those of {files[0][1]}")
        block = df.drop(columns=["model", "timestamp"])
        block.columns = [f"{sub}/{c}" if sub else str(c) for c in block.columns]
        blocks.append(block)
    wide = pd.concat(blocks, axis=1)
    complete = wide.notna().all(axis=1).to_numpy()
    if not complete.all():
        log.info(
            "%s: %d of %d runs lack some items: left out", benchmark, (~complete).sum(), len(wide)
        )
    wide, models = wide[complete], models[complete]
    run = [f"{m}#{k}" for k, m in enumerate(models)]
    return Runs(benchmark, run, models, list(wide.columns), wide.to_numpy().astype(np.int8))


def collection_runs(success_path: str | Path, benchmark: str) -> Runs:
    """One run per LLM from a collection's normalised success table (`assessors_data`)."""
    from .collections import read_success

    succ = read_success(success_path)
    llms = list(succ.columns)
    return Runs(
        benchmark, llms, np.array(llms), list(succ.index), succ.to_numpy().T.astype(np.int8)
    )


def subsample_items(runs: Runs, max_items: int | None, seed: int) -> Runs:
    """At most `max_items` items, drawn uniformly (seeded), in their order."""
    n = len(runs.items)
    if not max_items or max_items >= n:
        return runs
    keep = np.sort(np.random.default_rng(seed).choice(n, size=max_items, replace=False))
    return Runs(
        runs.benchmark, runs.run, runs.model, [runs.items[i] for i in keep], runs.success[:, keep]
    )


def held_out_models(runs: Runs, k: int, seed: int) -> list[str]:
    """k distinct models drawn uniformly (seeded), sorted."""
    models = np.unique(runs.model)
    if len(models) < 3:
        raise ValueError(f"{runs.benchmark}: leave-one-model-out needs at least 3 models")
    pick = np.random.default_rng(seed).choice(len(models), size=min(k, len(models)), replace=False)
    return sorted(str(m) for m in models[pick])


def lomo_splits(runs: Runs, held: Sequence[str]):
    """(model, training run positions, held-out run positions) for each held-out model: every
    run of the model is held out, no run of it is in training (asserted)."""
    for h in held:
        test = np.flatnonzero(runs.model == h)
        train = np.flatnonzero(runs.model != h)
        assert len(test) and h not in set(runs.model[train]), h
        yield h, train, test


def _matrix(runs: Runs, rows: np.ndarray):
    from evalsci.assess.responses import Matrix

    return Matrix(
        models=[runs.run[i] for i in rows],
        items=pd.DataFrame({"task": runs.benchmark, "item": runs.items}),
        success=runs.success[rows],
    )


def _auc(y: np.ndarray, p: np.ndarray, seen: np.ndarray) -> float:
    from evalsci.assess.classifiers import auc

    rest = np.ones(len(y), dtype=bool)
    rest[seen] = False
    return auc(y[rest], p[rest])


def _fold(runs: Runs, h, train, test, ns, cfg: Lomo, seed: int) -> list[dict]:
    from scipy.stats import norm

    from evalsci.assess.refset import (
        DEFAULT_ESTIMATOR,
        DEFAULT_SELECTOR,
        predict_new,
        select_reference,
    )
    from evalsci.assess.tinybench import TinyBenchmarks

    y = runs.success
    n_items = y.shape[1]
    level = cfg.level
    z = norm.ppf(0.5 + level / 2)
    ns = [n for n in ns if n < n_items]
    rng = np.random.default_rng(seed)
    m = _matrix(runs, train)
    tiny = TinyBenchmarks.fit_grid(y[train], ns, dims=cfg.irt_dims, seed=seed)
    base = {
        "benchmark": runs.benchmark,
        "held_out_model": h,
        "n_items": n_items,
        "n_train_runs": len(train),
        "n_train_models": len(np.unique(runs.model[train])),
    }
    rows = []

    def add(n, j, method, est, auc, low=np.nan, high=np.nan):
        acc = float(y[j].mean())
        rows.append(
            {
                **base,
                "n_reference": n,
                "run": runs.run[j],
                "method": method,
                "estimate": float(est),
                "accuracy": acc,
                "abs_error": abs(float(est) - acc),
                "auc": auc,
                "low": low,
                "high": high,
                "covered": float(low <= acc <= high) if np.isfinite(low) else np.nan,
            }
        )

    for n in ns:
        pick = np.sort(rng.choice(n_items, size=n, replace=False))
        fpc = (n_items - n) / (n_items - 1)
        for j in test:
            mean = float(y[j, pick].mean())
            half = z * np.sqrt(mean * (1 - mean) / n * fpc)
            add(n, j, "random_mean", mean, 0.5, max(0.0, mean - half), min(1.0, mean + half))
            est = tiny[n].estimate(y[j, tiny[n].anchors])
            a = _auc(y[j], est["p"], tiny[n].anchors)
            for k in ("irt", "pirt", "gpirt"):
                add(n, j, f"tinybenchmarks_{k}", est[k], a)
        for method, selector, estimator in (
            ("generic_random", "random", "assessor"),
            ("reference_default", DEFAULT_SELECTOR, DEFAULT_ESTIMATOR),
        ):
            ref = select_reference(m, n, selector, seed=seed)
            keys = list(zip(ref["task"], ref["item"], strict=True))
            cols = _positions(runs, ref)
            new = {runs.run[j]: dict(zip(keys, y[j, cols], strict=True)) for j in test}
            acc, items = predict_new(
                m,
                ref,
                new,
                alpha=1 - level,
                seed=seed,
                max_rows=cfg.max_rows,
                max_calibration=cfg.max_calibration,
                estimator=estimator,
                groups=runs.model[train],
            )
            for j in test:
                r = acc[acc["model"] == runs.run[j]].iloc[0]
                p = items.loc[items["model"] == runs.run[j], "p_success"].to_numpy()
                seen = np.flatnonzero(items.loc[items["model"] == runs.run[j], "reference"])
                add(n, j, method, r["accuracy_estimate"], _auc(y[j], p, seen), r["low"], r["high"])
    return rows


def _positions(runs: Runs, ref: pd.DataFrame) -> np.ndarray:
    pos = {it: i for i, it in enumerate(runs.items)}
    return np.array([pos[i] for i in ref["item"]])


def run_benchmark(runs: Runs, cfg: Lomo, seed: int) -> pd.DataFrame:
    """Every (held-out model, n, run, method) row of one benchmark (`LOMO_COLUMNS`)."""
    runs = subsample_items(runs, cfg.max_items, seed)
    held = held_out_models(runs, cfg.held_out_models, seed)
    log.info(
        "%s: %d runs of %d models, %d items; held out %s",
        runs.benchmark,
        len(runs.run),
        len(np.unique(runs.model)),
        len(runs.items),
        held,
    )
    rows = []
    for k, (h, train, test) in enumerate(lomo_splits(runs, held)):
        rows += _fold(runs, h, train, test, cfg.n_reference, cfg, seed + k)
    out = pd.DataFrame(rows, columns=LOMO_COLUMNS)
    for c in ("estimate", "accuracy", "abs_error", "auc", "low", "high"):
        out[c] = out[c].astype(float).round(6)  # the same bytes on any CPU
    return out


def _per_model(res: pd.DataFrame) -> pd.DataFrame:
    """One value per (benchmark, n, method, held-out model): the mean over its runs."""
    keys = ["benchmark", "n_reference", "method", "held_out_model"]
    return res.groupby(keys, sort=False)[["abs_error", "auc", "covered"]].mean().reset_index()


def summarise(res: pd.DataFrame) -> pd.DataFrame:
    """Mean and SE over held-out models of the absolute error, per-item AUC and coverage."""
    per = _per_model(res)
    g = per.groupby(["benchmark", "n_reference", "method"], sort=False)
    out = g.size().rename("n_models").reset_index()
    for c in ("abs_error", "auc", "covered"):
        mean = g[c].mean().to_numpy()
        se = (g[c].std(ddof=1) / np.sqrt(g[c].count())).to_numpy()
        out[c] = mean
        out[f"{c}_se"] = se
    out = out.rename(columns={"covered": "coverage", "covered_se": "coverage_se"})
    order = {m: i for i, m in enumerate(METHODS)}
    out["_o"] = out["method"].map(order)
    return out.sort_values(["benchmark", "n_reference", "_o"], kind="stable").drop(columns="_o")


def paired_tests(res: pd.DataFrame, level: float) -> pd.DataFrame:
    """reference_default against each of tinybenchmarks_gpirt and random_mean: the absolute
    error's difference (default - other) per held-out model; two-sided one-sample t-test of
    the differences (the paired t-test), Holm over the benchmark x n family of each comparison.
    No differences (all zero) or fewer than 2 models: p = 1."""
    from scipy.stats import ttest_1samp

    from evalsci.stats.multiple import holm

    per = _per_model(res).set_index(["benchmark", "n_reference", "method", "held_out_model"])
    err = per["abs_error"].unstack("method")
    out = []
    for other in ("tinybenchmarks_gpirt", "random_mean"):
        rows = []
        for (bench, n), g in err.groupby(level=["benchmark", "n_reference"], sort=False):
            d = (g["reference_default"] - g[other]).to_numpy()
            p = float(ttest_1samp(d, 0.0).pvalue) if len(d) > 1 and np.any(d != d[0]) else 1.0
            rows.append(
                {
                    "benchmark": bench,
                    "n_reference": n,
                    "versus": other,
                    "n_models": len(d),
                    "mean_difference": float(d.mean()),
                    "difference_se": float(d.std(ddof=1) / np.sqrt(len(d)))
                    if len(d) > 1
                    else np.nan,
                    "p_value": p,
                }
            )
        part = pd.DataFrame(rows)
        part["p_holm"] = holm(part["p_value"].to_numpy())
        out.append(part)
    t = pd.concat(out, ignore_index=True)
    sig = t["p_holm"] < level
    t["verdict"] = np.where(
        sig & (t["mean_difference"] < 0),
        "default better",
        np.where(sig & (t["mean_difference"] > 0), "default worse", "no difference shown"),
    )
    t["level"] = level
    return t
