"""The number of correct guesses of ONE random classifier when every example has the same
success probability p: X ~ Binomial(n, p) (paper eq. 3).

scipy.stats.binom wraps Boost's incomplete beta, which keeps ~1e-12 relative accuracy in both
tails up to n = 1e6 (checked against mpmath in tests/test_maxrandom_exact.py); the cephes
`scipy.special.bdtrc` loses ~1e-9 there, so it is not used.

The kernels are called directly (`_binom_kernels`), with scipy.stats.binom's handling of the
support around them: importing scipy.stats costs ~1 s, and `evalsci audit` needs only these
three functions. `tests/test_maxrandom_binomial_kernels.py` checks every value, edges
included, bit for bit against scipy.stats.binom.
"""

from __future__ import annotations

import numpy as np


class BinomialCounts:
    """X ~ Binomial(n, p): cdf, survival function and pmf at integer k (any integer; k < 0 and
    k >= n are handled)."""

    def __init__(self, n: int, p: float):
        if not (0 <= p <= 1) or int(n) != n or n < 0:
            raise ValueError(f"Binomial(n, p) needs an integer n >= 0 and 0 <= p <= 1: {n}, {p}")
        self.n, self.p = n, p
        self.mean = n * p
        self.var = n * p * (1.0 - p)

    def cdf_sf(self, k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(P(X <= k), P(X > k)), each computed directly so both keep relative accuracy."""
        cdf, sf, _ = _binom_kernels()
        k = np.asarray(k, dtype=float)
        # scipy.stats.binom's rv_discrete.cdf / sf: the kernel on the support 0 <= k < n
        # (at floor(k), clipped to [0, 1]); 0 or 1 outside it; NaN stays NaN
        inside = (k >= 0) & (k < self.n) & np.isfinite(k)
        lo = np.where(k >= self.n, 1.0, 0.0)
        hi = np.where(k < 0, 1.0, 0.0)
        lo[np.isnan(k)] = hi[np.isnan(k)] = np.nan
        if inside.any():
            kk, n, p = np.floor(k[inside]), float(self.n), self.p
            lo[inside] = np.clip(cdf(kk, n, p), 0, 1)
            hi[inside] = np.clip(sf(kk, n, p), 0, 1)
        return lo[()], hi[()]

    def pmf(self, k: np.ndarray) -> np.ndarray:
        _, _, pmf = _binom_kernels()
        k = np.asarray(k, dtype=float)
        # rv_discrete.pmf: the kernel at integer k in 0..n (not floored), clipped; else 0
        inside = (k >= 0) & (k <= self.n) & (np.floor(k) == k)
        out = np.zeros(k.shape)
        out[np.isnan(k)] = np.nan
        if inside.any():
            out[inside] = np.clip(pmf(k[inside], float(self.n), self.p), 0, 1)
        return out[()]

    def __repr__(self) -> str:
        return f"BinomialCounts(n={self.n}, p={self.p})"


def _binom_kernels():
    """(cdf, sf, pmf) of Binomial(k; n, p): the Boost kernels that scipy.stats.binom calls
    (its `_cdf`, `_sf`, `_pmf`), from scipy.special, which loads in a fraction of the time."""
    from scipy.special import _ufuncs

    return _ufuncs._binom_cdf, _ufuncs._binom_sf, _ufuncs._binom_pmf
