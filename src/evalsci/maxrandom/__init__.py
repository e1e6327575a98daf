"""The max random baseline (Yauney & Mimno, *Stronger Random Baselines*, eq. 1-11, App. A).

The expected maximum accuracy of t classifiers that guess uniformly at random on n examples,
its distribution, and tail probabilities, exact (relative error < 1e-10 against mpmath) for
n up to 1e6 and t up to 1e12, and ~1000x faster than the reference package.

`p` is the probability that a random guess is correct, in one of three forms:
  - a float: the same p for every example (binomial);
  - a sequence of n floats: one p per example (Poisson binomial);
  - a dict {number of labels: number of examples}: p = 1/labels (keys may be strings "4").

Counts vs accuracies: tail functions take `correct`, an integer COUNT of correct answers.
A non-integer float raises ValueError; convert an accuracy with `correct_count(accuracy, n)`,
which ROUNDS (0.29 * 100 = 28.999... is 29 correct answers; flooring would give 28).

    >>> from evalsci.maxrandom import max_random_baseline, max_random_tail
    >>> round(max_random_baseline(100, 0.5, 10), 4)      # paper Section 4 quotes 0.575
    0.5768
    >>> max_random_tail(62, 100, 0.5, [1, 10])           # P(max >= 62) for t = 1 and t = 10
    array([0.01048937, 0.10007845])

`max_random_auc(n_pos, n_neg, t)` is the same idea for the AUC of random scorers.
`evalsci.maxrandom.requests` reads and writes the `maxrandom` rule's CSVs (imports pandas).
"""

from __future__ import annotations

import functools

import numpy as np

from . import max_order
from ._checks import check_counts, check_counts_within, check_n, check_t
from .auc import max_random_auc, max_random_auc_tail
from .binomial import BinomialCounts
from .poisson_binomial import PoissonBinomialCounts, count_distribution, success_groups

__all__ = [
    "max_random_baseline",
    "max_random_tail",
    "standard_tail",
    "standard_lower_tail",
    "standard_baseline",
    "max_pmf",
    "max_cdf",
    "correct_count",
    "max_random_auc",
    "max_random_auc_tail",
    "count_distribution",
]


@functools.lru_cache(maxsize=256)
def _cached_distribution(n: int, groups: tuple[tuple[float, int], ...]):
    # keyed on the normalised groups, so float/list/dict forms of the same p share an entry
    if len(groups) == 1:
        return BinomialCounts(n, groups[0][0])
    return PoissonBinomialCounts(n, list(groups))


def _distribution(n, p):
    n = check_n(n)
    groups = tuple(success_groups(n, p))
    return n, _cached_distribution(n, groups)


def _out(x: np.ndarray, scalar: bool):
    return float(x) if scalar else x


def max_random_baseline(n, p, t):
    """Expected maximum accuracy of t random classifiers on n examples (paper eq. 9).

    Returns a float in [0, 1], or an ndarray shaped like `t` when t is an array.
    t = 1 gives the standard baseline (mean of p)."""
    n, dist = _distribution(n, p)
    t_arr, scalar = check_t(t)
    res = max_order.expected_max_count(dist, t_arr.ravel()).reshape(t_arr.shape) / n
    return _out(np.clip(res, 0.0, 1.0), scalar)


def standard_baseline(n, p) -> float:
    """Expected accuracy of ONE random classifier (paper eq. 1): the mean success probability."""
    n, dist = _distribution(n, p)
    return float(dist.mean / n)


def max_random_tail(correct, n, p, t):
    """P(max of t random classifiers' correct counts >= correct) = 1 - F(correct - 1)^t (eq. 11).

    `correct` is an integer count (scalar or array; integer-valued floats accepted, other floats
    raise ValueError: use `correct_count`). Broadcasts `correct` against `t`; t = 1 is the
    standard baseline's tail P(X >= correct). Where one classifier's P(X >= correct) is below
    the normal double range (< 2^-1022: subnormal, or 0 below 2^-1075), its rounding adds an
    absolute error of up to t * 2^-1075 to the max tail (below 1e-311 for t <= 1e12; up to
    3e-16 at t = 1e308) on top of the relative bound."""
    n, dist = _distribution(n, p)
    c, c_scalar = check_counts(correct)
    check_counts_within(c, n)
    t_arr, t_scalar = check_t(t)
    res = max_order.max_tail_counts(dist, t_arr, c)
    return _out(res, c_scalar and t_scalar)


def count_tables(n, p, t) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For a 1-d array t and every count c = 0..n: (the max random baseline per t, shape
    t.shape; P(max of t >= c), shape t.shape + (n+1,); P(X <= c), shape (n+1,)). One
    evaluation of the count distribution's cdf and survival function over -1..n serves all
    three (`evalsci audit` judges every score of an (n, options) from them); each value is the
    one max_random_baseline, max_random_tail and standard_lower_tail give, the same
    elementwise formulas at the same points."""
    n, dist = _distribution(n, p)
    t_arr, _ = check_t(t)
    F, S = dist.cdf_sf(np.arange(-1, n + 1))
    logF = max_order.log_of(F, S)
    baseline = max_order.expected_max_count(dist, t_arr.ravel(), log_table=logF) / n
    upper = -np.expm1(max_order._tlog(t_arr[..., None], logF[:-1]))
    return np.clip(baseline, 0.0, 1.0), upper, np.asarray(F[1:], dtype=float)


def standard_tail(correct, n, p):
    """P(X >= correct) for one random classifier (paper eq. 10-11, left)."""
    return max_random_tail(correct, n, p, 1)


def standard_lower_tail(correct, n, p):
    """P(X <= correct) for one random classifier: the p-value of a one-sided exact test that
    an accuracy is BELOW chance. Computed as the cdf itself (not 1 - P(X > correct)), so it
    keeps its relative accuracy where it is tiny."""
    n, dist = _distribution(n, p)
    c, scalar = check_counts(correct)
    check_counts_within(c, n)
    return _out(np.asarray(dist.cdf_sf(c)[0], dtype=float), scalar)


def max_cdf(n, p, t) -> np.ndarray:
    """P(max <= k) for k = 0..n: shape (n+1,) for scalar t, t.shape + (n+1,) otherwise."""
    n, dist = _distribution(n, p)
    t_arr, _ = check_t(t)
    return max_order.max_cdf_counts(dist, t_arr, np.arange(n + 1))


def max_pmf(n, p, t) -> np.ndarray:
    """P(max = k) for k = 0..n (paper eq. 7): shape (n+1,) for scalar t, else t.shape + (n+1,)."""
    n, dist = _distribution(n, p)
    t_arr, _ = check_t(t)
    return max_order.max_pmf_counts(dist, t_arr, np.arange(n + 1))


def correct_count(accuracy, n):
    """Number of correct answers for an accuracy on n examples, by ROUNDING half up
    (0.29 * 100 = 28.999... -> 29; flooring would give 28). Scalar in, int out; array in,
    int64 array out."""
    n = check_n(n)
    scalar = np.ndim(accuracy) == 0
    try:
        acc = np.asarray(accuracy, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(
            f"accuracy must be a number in [0, 1], got accuracy={accuracy!r}"
        ) from None
    bad = ~np.isfinite(acc) | (acc < 0) | (acc > 1)
    if np.any(bad):
        first = float(acc[bad].flat[0] if acc.ndim else acc)
        raise ValueError(f"accuracy must be a number in [0, 1], got accuracy={first!r}")
    counts = np.floor(acc * n + 0.5).astype(np.int64)
    return int(counts) if scalar else counts
