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
Beyond both budgets (e.g. 300 x 300, 100 x 1000 and up), a documented APPROXIMATION: the Edgeworth expansion of Fix & Hodges (1955),
      F(u) ~ Phi(z) - phi(z) g2/24 (z^3 - 3z),  z = (u + 1/2 - mu) / sigma,
  mu = n_pos n_neg / 2, sigma^2 = n_pos n_neg (n_pos + n_neg + 1) / 12, excess kurtosis
  g2 = -6 (n_pos^2 + n_neg^2 + n_pos n_neg + n_pos + n_neg) / (5 n_pos n_neg (n_pos + n_neg + 1)).
  Measured against the exact distribution (tests/test_baselines_auc.py): at 200 x 200 the
  expected max AUC errs by < 3e-7 for t <= 100 and < 1e-5 for t <= 1e4; at 40 x 1000 by
  < 5e-6 for t <= 100 and < 2e-4 for t <= 1e4. It is accurate near the centre only, so it
  degrades for large t (far tails) and for very unbalanced classes.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import special

from ._checks import check_counts, check_n, check_t

#: exact null distribution when either method's cost stays below these (about 1-2 s each)
EXACT_MAX_RECURSION_PAIRS = 40_000  # n_pos * n_neg for the floating-point recursion
EXACT_MAX_INTEGER_OPS = 10_000_000  # min(n_pos, n_neg) * n_pos * n_neg for the integer method
#: largest n_pos * n_neg for which the (approximate) pmf/cdf over every U is materialised
MAX_DISTRIBUTION_PAIRS = 20_000_000


def exact_feasible(n_pos: int, n_neg: int) -> bool:
    return (n_pos * n_neg <= EXACT_MAX_RECURSION_PAIRS
            or min(n_pos, n_neg) * n_pos * n_neg <= EXACT_MAX_INTEGER_OPS)


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
        a[n + i:] -= c
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

    def cdf_sf(self, k):
        k = np.asarray(k, dtype=np.int64)
        i = np.clip(k, 0, self.n)
        return (np.where(k < 0, 0.0, self._cdf[i]), np.where(k < 0, 1.0, self._sf[i]))

    def pmf(self, k):
        k = np.asarray(k, dtype=np.int64)
        inside = (k >= 0) & (k <= self.n)
        return np.where(inside, self._pmf[np.clip(k, 0, self.n)], 0.0)


class MannWhitneyEdgeworth:
    """Edgeworth approximation of the null distribution of U (see module docstring)."""

    def __init__(self, n_pos: int, n_neg: int):
        m, n = n_pos, n_neg
        self.n = m * n
        self.mean = self.n / 2.0
        self.var = self.n * (m + n + 1) / 12.0
        self.sd = math.sqrt(self.var)
        self.g2 = -6.0 * (m * m + n * n + m * n + m + n) / (5.0 * m * n * (m + n + 1))

    def _z(self, k):
        return (np.asarray(k, dtype=float) + 0.5 - self.mean) / self.sd

    def _corr(self, z):
        phi = np.exp(-0.5 * z * z) / math.sqrt(2 * math.pi)
        return phi * (self.g2 / 24.0) * (z**3 - 3 * z)

    def cdf_sf_z(self, z):
        c = self._corr(z)
        F = np.clip(special.ndtr(z) - c, 0.0, 1.0)
        S = np.clip(special.ndtr(-z) + c, 0.0, 1.0)
        return F, S

    def _log_cdf_z(self, z):
        F, S = self.cdf_sf_z(z)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(S < 0.5, np.log1p(-S), np.log(F))

    def cdf_sf(self, k):
        k = np.asarray(k)
        F, S = self.cdf_sf_z(self._z(k))
        F = np.where(k < 0, 0.0, np.where(k >= self.n, 1.0, F))
        S = np.where(k < 0, 1.0, np.where(k >= self.n, 0.0, S))
        return F, S

    def pmf(self, k):
        k = np.asarray(k)
        F1, S1 = self.cdf_sf(k)
        F0, S0 = self.cdf_sf(k - 1)
        # difference on the side where it does not cancel
        return np.clip(np.where(self._z(k) > 0, S0 - S1, F1 - F0), 0.0, 1.0)

    def expected_max(self, t: np.ndarray) -> np.ndarray:
        """E[max U] ~ mean + sd * E_G[max Z], integrating 1 - G^t and G^t over a fine z-grid
        (the count sum becomes this integral by the midpoint rule, error ~ 1/sd^2)."""
        t = np.asarray(t, dtype=float).ravel()
        zmax = math.sqrt(2 * (50 + math.log(max(float(t.max()), 1.0)))) + 2.0
        # integrate each side separately: 1 - G^t jumps by 1 at z = 0 in the combined integrand
        z_up, z_lo = np.linspace(0.0, zmax, 20_001), np.linspace(-zmax, 0.0, 20_001)
        logF_up, logF_lo = self._log_cdf_z(z_up), self._log_cdf_z(z_lo)
        out = np.empty(t.size)
        for i, ti in enumerate(t):
            out[i] = (np.trapezoid(-np.expm1(ti * logF_up), z_up)
                      - np.trapezoid(np.exp(ti * logF_lo), z_lo))
        e = self.mean + self.sd * out
        return np.clip(e, 0, self.n)


def u_distribution(n_pos: int, n_neg: int):
    """Exact (small) or Edgeworth (large) null distribution of the Mann-Whitney U."""
    n_pos, n_neg = _sizes(n_pos, n_neg)
    if exact_feasible(n_pos, n_neg):
        return MannWhitneyCounts(n_pos, n_neg)
    return MannWhitneyEdgeworth(n_pos, n_neg)


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

    Exact where `exact_feasible`, Edgeworth approximation above (module doc).
    Returns a float, or an ndarray shaped like `t` when t is an array. t = 1 gives 0.5."""
    from . import max_order

    n_pos, n_neg = _sizes(n_pos, n_neg)
    t_arr, scalar = check_t(t)
    dist = u_distribution(n_pos, n_neg)
    if isinstance(dist, MannWhitneyEdgeworth):
        e = dist.expected_max(t_arr.ravel())
    else:
        e = max_order.expected_max_count(dist, t_arr.ravel())
    res = np.clip(e.reshape(t_arr.shape) / dist.n, 0.0, 1.0)
    return float(res) if scalar else res


def max_random_auc_tail(u, n_pos, n_neg, t):
    """P(max U of t random scorers >= u), u an integer Mann-Whitney count (AUC * n_pos * n_neg,
    rounded: use `correct_count(auc, n_pos * n_neg)`)."""
    from . import max_order

    n_pos, n_neg = _sizes(n_pos, n_neg)
    c, c_scalar = check_counts(u, "u")
    t_arr, t_scalar = check_t(t)
    res = max_order.max_tail_counts(u_distribution(n_pos, n_neg), t_arr, c)
    return float(res) if (c_scalar and t_scalar) else res


def max_auc_pmf_cdf(n_pos, n_neg, t) -> tuple[np.ndarray, np.ndarray]:
    """(pmf, cdf) of the max U over u = 0..n_pos*n_neg for scalar t."""
    from . import max_order

    n_pos, n_neg = _sizes(n_pos, n_neg)
    if n_pos * n_neg > MAX_DISTRIBUTION_PAIRS:
        raise ValueError(f"distribution of U over {n_pos * n_neg} values is too large to write "
                         f"(n_pos={n_pos}, n_neg={n_neg}; limit {MAX_DISTRIBUTION_PAIRS})")
    t_arr, _ = check_t(t)
    dist = u_distribution(n_pos, n_neg)
    k = np.arange(dist.n + 1)
    return max_order.max_pmf_counts(dist, t_arr, k), max_order.max_cdf_counts(dist, t_arr, k)
