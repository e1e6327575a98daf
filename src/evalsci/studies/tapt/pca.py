"""Appendix G (Figure 6): the evaluation bias of fitting PCA on test features.

The experiment of Section 4 with PCA as the unsupervised step and linear regression as the
supervised one, on synthetic data (sklearn `make_regression`: 20 features, 10 informative,
effective rank r, noise sd 1, random_state 123). Per trial i, train (m rows) is split off with
random_state 42 + i, then extra and test (n rows each) with random_state 43 + i. Three R^2 on
test: base (raw features), extra (PCA fitted on extra), test (PCA fitted on test), PCA with
int(0.6 r) components. Reported: mean(R^2_test - R^2_extra) +- 1.96 SE per (r, n).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from evalsci.pipeline.progress import progress_bar
from evalsci.studies.tapt.columns import PCA_COLUMNS


def _fit_predict(x_train, y_train, x_test):
    """Ordinary least squares with an intercept (sklearn LinearRegression's estimator)."""
    a = np.column_stack([np.ones(len(x_train)), x_train])
    coef, *_ = np.linalg.lstsq(a, y_train, rcond=None)
    return coef[0] + x_test @ coef[1:]


def _r2(y, pred):
    """R^2 on the evaluated set (sklearn r2_score)."""
    return 1.0 - np.sum((y - pred) ** 2) / np.sum((y - y.mean()) ** 2)


def _pca_basis(x, k):
    """Mean and top-k principal axes (sklearn PCA's full SVD; axis signs do not affect OLS)."""
    mean = x.mean(axis=0)
    _, _, vt = np.linalg.svd(x - mean, full_matrices=False)
    return mean, vt[:k].T


def _r2_pca(pca_fit_x, x_train, y_train, x_test, y_test, k):
    mean, axes = _pca_basis(pca_fit_x, k)
    pred = _fit_predict((x_train - mean) @ axes, y_train, (x_test - mean) @ axes)
    return _r2(y_test, pred)


def pca_experiment(
    *,
    ranks=(5, 10, 15, 20),
    ns=tuple(range(25, 501, 25)),
    m: int = 100,
    n_trials: int = 2000,
    n_samples: int = 10_000,
    random_state: int = 123,
) -> pd.DataFrame:
    """Mean and SE over trials of R^2_test - R^2_extra (bias) and R^2_extra - R^2_base.

    PCA and OLS are computed with numpy (SVD, least squares): the same estimators as
    sklearn's PCA and LinearRegression without their per-call overhead (the test suite
    checks the equality), which makes the 160,000 trials of the paper's grid affordable."""
    from sklearn.datasets import make_regression
    from sklearn.model_selection import train_test_split

    rows = []
    for rank in ranks:
        x, y = make_regression(
            n_samples=n_samples,
            n_features=20,
            n_informative=10,
            effective_rank=rank,
            noise=1.0,
            random_state=random_state,
        )
        k = int(0.6 * rank)
        idx = np.arange(len(x))
        for n in progress_bar(ns, desc=f"PCA rank {rank}", mininterval=5):
            bias, boost = np.empty(n_trials), np.empty(n_trials)
            for i in range(n_trials):
                # The authors' seeds: train split 42 + i, extra/test split 43 + i.
                tr, rest = train_test_split(idx, train_size=m, random_state=42 + i)
                ex, te = train_test_split(rest, train_size=n, test_size=n, random_state=43 + i)
                base = _r2(y[te], _fit_predict(x[tr], y[tr], x[te]))
                r2_extra = _r2_pca(x[ex], x[tr], y[tr], x[te], y[te], k)
                r2_test = _r2_pca(x[te], x[tr], y[tr], x[te], y[te], k)
                bias[i], boost[i] = r2_test - r2_extra, r2_extra - base
            se = np.sqrt(n_trials)
            rows.append(
                (
                    rank,
                    n,
                    n_trials,
                    bias.mean(),
                    bias.std(ddof=1) / se,
                    boost.mean(),
                    boost.std(ddof=1) / se,
                )
            )
    return pd.DataFrame(rows, columns=list(PCA_COLUMNS))


def plot_pca(table: pd.DataFrame, outputs) -> None:
    import matplotlib.pyplot as plt

    from evalsci.plots import savefig

    fig, ax = plt.subplots(figsize=(5, 3.2))
    for rank, g in table.groupby("effective_rank"):
        ax.plot(g["n"], g["bias_mean"], label=f"effective rank {rank}")
        ax.fill_between(
            g["n"],
            g["bias_mean"] - 1.96 * g["bias_se"],
            g["bias_mean"] + 1.96 * g["bias_se"],
            alpha=0.25,
        )
    ax.axhline(0, color="k", lw=0.8)
    ax.set_xlabel("n (extra and test size)")
    ax.set_ylabel(r"mean $R^2_{test} - R^2_{extra}$")
    ax.set_title(
        f"PCA on test features: evaluation bias ({table['n_trials'].iloc[0]} trials, 95% CI)"
    )
    ax.legend(fontsize=7)
    savefig(fig, outputs)
