"""The Monte Carlo spread of the tapt permutation tests' summaries, from the exact sign-flip law.

The paper's p-values (App. D.1, Sections 8 and 9) are scipy Monte Carlo estimates at 10,000
resamples, unseeded: a summary of them (BH's smallest adjusted p of a family, a count of raw
p-values below alpha) is a random variable, and a verdict on it needs its seed-to-seed spread.
The accuracies are counts out of n, so every paired difference is an integer and the sign-flip
null law of a test is exact (`evalsci.stats.permutation.sign_flip_law`). From it:

- the limit of each p-value as the resamples grow (`tails`: P(<), P(=), P(>) of the observed
  statistic);
- the law of scipy's estimate at N resamples: the resamples fall below, on and above the
  observed statistic as a multinomial, so draws of that multinomial are draws of the p-values
  under other seeds (`evalsci.stats.permutation.monte_carlo_pvalues`), at no cost per seed;
- for a count of p-values below alpha, each task's probability of crossing alpha at N
  resamples (a binomial tail) and the count's law (their Poisson binomial).

benchmarks/tapt_seed_spread.py checks these laws against real seeds of `paired_mean_test`.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy.stats import binom

from evalsci.stats.permutation import monte_carlo_pvalues, sign_flip_tails
from evalsci.studies.tapt.columns import TAIL_COLUMNS
from evalsci.studies.tapt.data import COMPARISONS
from evalsci.studies.tapt.hierarchical import num_correct


def _diffs(g: pd.DataFrame, comparison: str, n) -> np.ndarray:
    control, treatment = COMPARISONS[comparison]
    return num_correct(g[treatment], n) - num_correct(g[control], n)


def task_tails(acc: pd.DataFrame, comparison: str) -> pd.DataFrame:
    """Per (config, lm, dataset): the exact tails of the paired test over its subsamples
    (`evalsci.studies.tapt.permutation`'s statistic, on integer counts)."""
    rows = []
    for (config, lm, n, dataset), g in acc.groupby(["config", "lm", "n", "dataset"], sort=True):
        d = _diffs(g.sort_values("subsample"), comparison, n)
        rows.append((config, lm, dataset, *sign_flip_tails(d)))
    return pd.DataFrame(rows, columns=["config", "lm", "dataset", *TAIL_COLUMNS])


def cell_tails(acc: pd.DataFrame, comparison: str) -> pd.DataFrame:
    """Per (config, lm): the exact tails of a sign-flip test with the tasks as units, each
    task's statistic its summed count difference over its subsamples (the tasks of a cell
    have equal subsample counts, so the sum is the cell mean of Table 1 up to a constant)."""
    rows = []
    for (config, lm, n), g in acc.groupby(["config", "lm", "n"], sort=True):
        sizes = g.groupby("dataset").size()
        if sizes.nunique() != 1:
            raise ValueError(f"{config} {lm}: tasks have unequal subsample counts {dict(sizes)}")
        per_task = [int(_diffs(t, comparison, n).sum()) for _, t in g.groupby("dataset", sort=True)]
        rows.append((config, lm, len(per_task), *sign_flip_tails(np.array(per_task))))
    return pd.DataFrame(rows, columns=["config", "lm", "n_tasks", *TAIL_COLUMNS])


def limit_pvalue(tails: pd.DataFrame, alternative: str) -> np.ndarray:
    """The exact p-values (the Monte Carlo p-values' limit) from the tails."""
    greater = tails["on"].to_numpy() + tails["above"].to_numpy()
    less = tails["below"].to_numpy() + tails["on"].to_numpy()
    p = {"greater": greater, "less": less, "two-sided": 2 * np.minimum(greater, less)}
    return np.clip(p[alternative], 0.0, 1.0)


def bh_min(p: np.ndarray) -> np.ndarray:
    """Benjamini-Hochberg's smallest adjusted p of each row: min over k of m p_(k) / k."""
    p = np.sort(np.atleast_2d(p), axis=1)
    m = p.shape[1]
    return np.clip((p * m / np.arange(1, m + 1)).min(axis=1), 0.0, 1.0)


def bh_min_draws(
    tails: pd.DataFrame, alternative: str, n_resamples: int, draws: int, seed
) -> np.ndarray:
    """`draws` values of BH's smallest adjusted p over the tasks of `tails` (one family), as
    scipy's Monte Carlo test at `n_resamples` gives them under `draws` different seeds."""
    cols = [
        monte_carlo_pvalues(tuple(r[c] for c in TAIL_COLUMNS), n_resamples, draws, rng=[*seed, i])[
            alternative
        ]
        for i, (_, r) in enumerate(tails.iterrows())
    ]
    return bh_min(np.column_stack(cols))


def crossing_probability(
    tails: pd.DataFrame, alternative: str, alpha: float, n_resamples: int
) -> np.ndarray:
    """Per task, P(scipy's p at `n_resamples` < alpha): the estimate is (X + 1) / (N + 1)
    with X ~ Binomial(N, p) and p the exact one-sided p-value."""
    if alternative not in ("greater", "less"):
        raise ValueError(f"crossing_probability: one-sided only, got {alternative!r}")
    p = limit_pvalue(tails, alternative)
    below = math.ceil(alpha * (n_resamples + 1) - 1) - 1  # the largest X with (X+1)/(N+1) < alpha
    return binom.cdf(below, n_resamples, p)


def count_law(probabilities) -> np.ndarray:
    """The law of a sum of independent Bernoulli variables (Poisson binomial): pmf over 0..k."""
    pmf = np.array([1.0])
    for q in probabilities:
        pmf = np.convolve(pmf, [1 - q, q])
    return pmf
