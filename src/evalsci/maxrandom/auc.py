"""The max random baseline for AUC: the expected maximum AUC of t random scorers.

A random scorer gives every example an independent continuous score, so its AUC on n_pos
positives and n_neg negatives is U / (n_pos n_neg), with U the Mann-Whitney statistic under
the null (all (n_pos + n_neg)! orderings equally likely). As for accuracy, the maximum of t
independent scorers has P(max U <= u) = F(u)^t, and the same `max_order` formulas apply.

The null distribution of U, exact where affordable (`exact_feasible`), by one of two methods:
- the Gaussian binomial coefficient [n_pos + n_neg, n_pos]_q, whose coefficient of q^u counts the
  orderings with U = u (Mann & Whitney 1947), built in exact Python integers by multiplying by
  (1 - q^(n+i)) and dividing by (1 - q^i) for i = 1..min(n_pos, n_neg); each probability is
  then one correctly rounded int / int division. Cost ~ min * n_pos * n_neg big-int additions,
  cheap for unbalanced classes;
- the recursion over the last-ranked example in floating point,
      P_{i,j}(u) = i/(i+j) P_{i-1,j}(u - j) + j/(i+j) P_{i,j-1}(u),
  a mixture of positive terms (keeps relative accuracy in the tails); cost ~ (n_pos n_neg)^2 / 4
  flops, cheaper for balanced classes.
Beyond both budgets (e.g. 300 x 300, 100 x 1000 and up) the distribution comes from
`mann_whitney_tilted.MannWhitneyTilted`: exponentially tilted Fourier inversion of the closed-form
generating function, with every value's relative error bounded by a computed bound below
REL_TOL = 1e-9 (or a ValueError naming the sizes and the point). No approximation is returned
unbounded anywhere. Since every F(k) and S(k) = 1 - F(k) has relative error <= eps = REL_TOL,
each term t F^t |d log F| of the expected-max sum is <= eps, so E[max U] is within
eps (hi - lo) of the exact value and the expected max AUC within eps (relative error <= 2 eps).
Measured time and memory: docs/maxrandom.md (AUC section), benchmarks/maxrandom_auc.py.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ._checks import check_counts, check_counts_within, check_n, check_t
from .mann_whitney_tilted import REL_TOL, MannWhitneyTilted  # noqa: F401  (REL_TOL re-exported)

#: exact null distribution when either method's cost stays below these (about 1-2 s each)
EXACT_MAX_RECURSION_PAIRS = 40_000  # n_pos * n_neg for the floating-point recursion
EXACT_MAX_INTEGER_OPS = 10_000_000  # min(n_pos, n_neg) * n_pos * n_neg for the integer method
#: largest n_pos * n_neg for which the pmf/cdf over every U is materialised (the rule's
#: distributions.csv caps rows at requests.MAX_DISTRIBUTION_ROWS = 2,000,001 the same way)
MAX_DISTRIBUTION_PAIRS = 2_000_000


def exact_feasible(n_pos: int, n_neg: int) -> bool:
    return (
        n_pos * n_neg <= EXACT_MAX_RECURSION_PAIRS
        or min(n_pos, n_neg) * n_pos * n_neg <= EXACT_MAX_INTEGER_OPS
    )


def mann_whitney_pmf(n_pos: int, n_neg: int) -> np.ndarray:
    """Exact null pmf of U over u = 0..n_pos*n_neg (symmetric in the two sample sizes)."""
    m, n = sorted((int(n_pos), int(n_neg)))
    return _mann_whitney_pmf(m, n)


@functools.lru_cache(maxsize=64)
def _mann_whitney_pmf(m: int, n: int) -> np.ndarray:
    # pick the cheaper exact method (rough op costs measured on one core)
    recursion_cost = (m * n) ** 2 / 4 / 2.5e8
    integer_cost = m * m * n / 5e6
    out = _pmf_recursion(m, n) if recursion_cost < integer_cost else _pmf_gaussian_binomial(m, n)
    out.setflags(write=False)
    return out


def _pmf_gaussian_binomial(m: int, n: int) -> np.ndarray:
    """Coefficients of [m + n, m]_q in exact integers, divided by C(m + n, m)."""
    c = np.array([1], dtype=object)
    for i in range(1, m + 1):
        a = np.zeros(c.size + n + i, dtype=object)  # times (1 - q^(n+i))
        a[: c.size] = c
        a[n + i :] -= c
        # divided by (1 - q^i): b[j] = a[j] + b[j - i], a cumulative sum with stride i
        pad = np.zeros(-(-a.size // i) * i, dtype=object)
        pad[: a.size] = a
        c = np.cumsum(pad.reshape(-1, i), axis=0).ravel()[: i * n + 1]
    total = math.comb(m + n, m)
    return np.array([int(x) / total for x in c], dtype=float)  # correctly rounded int / int


def _pmf_recursion(m: int, n: int) -> np.ndarray:
    """Recursion over the last-ranked example, in probabilities (positive mixture)."""
    rows = [np.ones(1) for _ in range(m + 1)]  # rows[i] = P_{i,j} for the current j
    for j in range(1, n + 1):
        for i in range(1, m + 1):
            new = np.zeros(i * j + 1)
            new[: i * (j - 1) + 1] = (j / (i + j)) * rows[i]  # last-ranked is a negative
            new[j:] += (i / (i + j)) * rows[i - 1]  # last-ranked is a positive: beats all j
            rows[i] = new
    return rows[m]


class MannWhitneyCounts:
    """Exact null distribution of U, with the interface `max_order` expects."""

    def __init__(self, n_pos: int, n_neg: int):
        self.n = n_pos * n_neg
        self.mean = self.n / 2.0
        self.var = self.n * (n_pos + n_neg + 1) / 12.0
        self._pmf = mann_whitney_pmf(n_pos, n_neg)
        self._cdf = np.cumsum(self._pmf)
        self._sf = np.append(np.cumsum(self._pmf[::-1])[::-1][1:], 0.0)

    def window(self, tmax: float) -> tuple[int, int]:
        return 0, self.n  # small enough to sum every term

    def __repr__(self) -> str:
        return f"Mann-Whitney U (n_pos * n_neg = {self.n})"

    def cdf_sf(self, k):
        k = np.asarray(k, dtype=np.int64)
        i = np.clip(k, 0, self.n)
        return (np.where(k < 0, 0.0, self._cdf[i]), np.where(k < 0, 1.0, self._sf[i]))

    def pmf(self, k):
        k = np.asarray(k, dtype=np.int64)
        inside = (k >= 0) & (k <= self.n)
        return np.where(inside, self._pmf[np.clip(k, 0, self.n)], 0.0)


def u_distribution(n_pos: int, n_neg: int):
    """Null distribution of the Mann-Whitney U: exact arrays (small sizes) or the tilted
    inversion with bounded relative error (large); both give `max_order` what it needs."""
    n_pos, n_neg = _sizes(n_pos, n_neg)
    return _u_distribution(*sorted((n_pos, n_neg)))


@functools.lru_cache(maxsize=32)
def _u_distribution(m: int, n: int):
    if exact_feasible(m, n):
        return MannWhitneyCounts(m, n)
    return MannWhitneyTilted(m, n)


def _sizes(n_pos, n_neg) -> tuple[int, int]:
    try:
        n_pos = check_n(n_pos)
    except ValueError:
        raise ValueError(f"n_pos must be an integer >= 1, got n_pos={n_pos!r}") from None
    try:
        n_neg = check_n(n_neg)
    except ValueError:
        raise ValueError(f"n_neg must be an integer >= 1, got n_neg={n_neg!r}") from None
    return n_pos, n_neg


def max_random_auc(n_pos, n_neg, t):
    """Expected maximum AUC of t random scorers on n_pos positives and n_neg negatives.

    Relative error <= 2 REL_TOL (module doc); a size or t whose error cannot be bounded
    raises ValueError. Returns a float, or an ndarray shaped like `t` when t is an array. t = 1 gives 0.5."""
    from . import max_order

    n_pos, n_neg = _sizes(n_pos, n_neg)
    t_arr, scalar = check_t(t)
    dist = u_distribution(n_pos, n_neg)
    e = max_order.expected_max_count(dist, t_arr.ravel())
    res = np.clip(e.reshape(t_arr.shape) / dist.n, 0.0, 1.0)
    return float(res) if scalar else res


def max_random_auc_tail(u, n_pos, n_neg, t):
    """P(max U of t random scorers >= u), u an integer Mann-Whitney count (AUC * n_pos * n_neg,
    rounded: use `correct_count(auc, n_pos * n_neg)`), in 0..n_pos*n_neg (else ValueError).
    Relative error <= 2 REL_TOL where the value is a normal double (values below ~1e-308:
    absolute error < 1e-322), else ValueError."""
    from . import max_order

    n_pos, n_neg = _sizes(n_pos, n_neg)
    c, c_scalar = check_counts(u, "u")
    check_counts_within(c, n_pos * n_neg, "u", "n_pos*n_neg")  # an AUC outside [0, 1]
    t_arr, t_scalar = check_t(t)
    res = max_order.max_tail_counts(u_distribution(n_pos, n_neg), t_arr, c)
    return float(res) if (c_scalar and t_scalar) else res


def max_auc_pmf_cdf(n_pos, n_neg, t) -> tuple[np.ndarray, np.ndarray]:
    """(pmf, cdf) of the max U over u = 0..n_pos*n_neg for scalar t."""
    from . import max_order

    n_pos, n_neg = _sizes(n_pos, n_neg)
    if n_pos * n_neg > MAX_DISTRIBUTION_PAIRS:
        raise ValueError(
            f"distribution of U over {n_pos * n_neg} values is too large to write "
            f"(n_pos={n_pos}, n_neg={n_neg}; limit {MAX_DISTRIBUTION_PAIRS})"
        )
    t_arr, _ = check_t(t)
    dist = u_distribution(n_pos, n_neg)
    k = np.arange(dist.n + 1)
    return max_order.max_pmf_counts(dist, t_arr, k), max_order.max_cdf_counts(dist, t_arr, k)
