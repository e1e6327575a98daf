"""The maximum of t independent random classifiers' correct counts (paper eq. 2-11).

With F the cdf of one classifier's count X, the maximum M = max(X_1..X_t) has
P(M <= k) = F(k)^t, so

    E[M] = sum_{k=1}^{n} P(M >= k) = sum_{k=1}^{n} (1 - F(k-1)^t)          (eq. 8-9, rearranged)
    P(M >= c) = 1 - F(c-1)^t                                                (eq. 11)

1 - F^t cancels catastrophically when F is near 1 (large k) and F^t overflows nothing but
underflows for large t, so it is evaluated as -expm1(t * log F) with log F = log1p(-S) from
the survival function S = 1 - F wherever S < 1/2 (and log F otherwise). For t near the top of
the double range (t = 1e308) the product t * log F <= 0 overflows to -inf where |log F| > ~1.8:
there F^t = exp(-inf) = 0 is the correctly rounded value (F^t < e^-1e308), so that overflow is
expected and not reported (`_tlog`).

The sum runs only over the k-window where its terms are neither 1 nor 0 to double precision:
outside it Bernstein's inequality bounds each neglected term by e^-50 ~ 2e-22 (see `_window`).
"""

from __future__ import annotations

import math

import numpy as np

from ._bounds import bernstein_halfwidth

#: each term dropped outside the summation window is below exp(-LOG_INV_EPS)
LOG_INV_EPS = 50.0
#: cap on the (len(t) x window) block evaluated at once
_BLOCK = 4_000_000
#: the most terms one expected-max sum evaluates (about 30 s and 100 MB for a binomial on 2
#: cores; docs/maxrandom.md). Past it the sizes are refused before anything is allocated:
#: `baseline --n 1e20` asked for 754 GiB, `auc --n-pos 1 --n-neg 1e9` grew to 23 GB.
MAX_TERMS = 2_000_000


def log_cdf(dist, k) -> np.ndarray:
    """log P(X <= k), accurate both where P(X <= k) is tiny and where it is near 1."""
    return log_of(*dist.cdf_sf(k))


def log_of(F, S) -> np.ndarray:
    """log F from the cdf F and the survival function S = 1 - F at the same points."""
    with np.errstate(divide="ignore", invalid="ignore"):  # the branch np.where drops may warn
        return np.where(S < 0.5, np.log1p(-S), np.log(F))


def _tlog(t, logF) -> np.ndarray:
    """t * log F, broadcasting; -inf where it overflows (F^t is 0 in double precision there)."""
    with np.errstate(over="ignore"):
        return np.multiply(t, logF)


def _window(dist, tmax: float) -> tuple[int, int]:
    """k-range (lo, hi] whose terms 1 - F(k-1)^t must be summed explicitly.

    k <= lo: F(k-1) <= P(X <= mean - x_lo) <= e^-50, so the term is 1 - O(e^-50).
    k > hi: 1 - F(k-1)^t <= t P(X >= hi + 1) <= t e^-(50 + log t) = e^-50.
    """
    if hasattr(dist, "window"):  # distributions that are not sums of Bernoullis say their own
        lo, hi = dist.window(tmax)
    else:
        n = dist.n
        x_lo = bernstein_halfwidth(dist.var, LOG_INV_EPS, n)
        x_hi = bernstein_halfwidth(dist.var, LOG_INV_EPS + math.log(tmax), n)
        lo = max(0, math.floor(dist.mean - x_lo))
        hi = max(lo, min(n, math.ceil(dist.mean + x_hi)))
    if hi - lo > MAX_TERMS:
        raise ValueError(
            f"{dist!r}: the exact expected maximum sums {hi - lo:,} terms, more than the "
            f"{MAX_TERMS:,} this library evaluates (about 30 s): the counts that matter span "
            "that many values, so n is too large for an exact answer here"
        )
    return lo, hi


def expected_max_count(dist, t: np.ndarray, log_table=None) -> np.ndarray:
    """E[max of t counts] for a 1-d float array t (each >= 1). `log_table`: log F(j) for
    j = -1..n, when the caller has it (the same values log_cdf gives)."""
    t = np.asarray(t, dtype=float).ravel()
    if t.size == 0:
        return np.zeros(0)
    lo, hi = _window(dist, float(t.max()))
    # terms for k = lo+1 .. hi need log F(k-1), i.e. log F(j) for j = lo .. hi-1
    if log_table is None:
        logF = log_cdf(dist, np.arange(lo, hi))
    else:
        logF = log_table[lo + 1 : hi + 1]
    out = np.empty(t.size)
    step = max(1, _BLOCK // max(1, logF.size))
    for s in range(0, t.size, step):
        tt = t[s : s + step, None]
        out[s : s + step] = lo + (-np.expm1(_tlog(tt, logF[None, :]))).sum(axis=1)
    return out


def max_cdf_counts(dist, t: np.ndarray, k: np.ndarray) -> np.ndarray:
    """P(max <= k) = F(k)^t, shape t.shape + k.shape."""
    logF = log_cdf(dist, k)
    with np.errstate(over="ignore"):  # see _tlog
        return np.exp(np.multiply.outer(t, logF))


def max_tail_counts(dist, t: np.ndarray, correct: np.ndarray) -> np.ndarray:
    """P(max >= correct) = 1 - F(correct - 1)^t, broadcasting t against correct."""
    logF = log_cdf(dist, correct - 1)
    return -np.expm1(_tlog(t, logF))


def max_pmf_counts(dist, t: np.ndarray, k: np.ndarray) -> np.ndarray:
    """P(max = k) = F(k)^t - F(k-1)^t (eq. 7), written as
    F(k)^t * (1 - (1 - f(k)/F(k))^t) so it keeps relative accuracy where F(k) ~ F(k-1)."""
    F, S = dist.cdf_sf(k)
    f = dist.pmf(k)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # over: see _tlog
        logF = np.where(S < 0.5, np.log1p(-S), np.log(F))
        r = np.clip(np.where(F > 0, f / F, 0.0), 0.0, 1.0)
        log_prev_ratio = np.log1p(-r)  # log(F(k-1) / F(k))
        tt = np.asarray(t, dtype=float)[..., None]
        out = np.exp(tt * logF) * -np.expm1(tt * log_prev_ratio)
    return np.where(F > 0, out, 0.0)
