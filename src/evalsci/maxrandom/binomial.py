"""The number of correct guesses of ONE random classifier when every example has the same
success probability p: X ~ Binomial(n, p) (paper eq. 3).

scipy.stats.binom wraps Boost's incomplete beta, which keeps ~1e-12 relative accuracy in both
tails up to n = 1e6 (checked against mpmath in tests/test_maxrandom_exact.py); the cephes
`scipy.special.bdtrc` loses ~1e-9 there, so it is not used.
"""

from __future__ import annotations

import numpy as np


class BinomialCounts:
    """X ~ Binomial(n, p): cdf, survival function and pmf at integer k (any integer; k < 0 and
    k >= n are handled)."""

    def __init__(self, n: int, p: float):
        self.n, self.p = n, p
        self.mean = n * p
        self.var = n * p * (1.0 - p)

    def cdf_sf(self, k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(P(X <= k), P(X > k)), each computed directly so both keep relative accuracy."""
        from scipy import stats  # here, not at import: scipy.stats costs ~0.5 s per job

        k = np.asarray(k, dtype=float)
        return stats.binom.cdf(k, self.n, self.p), stats.binom.sf(k, self.n, self.p)

    def pmf(self, k: np.ndarray) -> np.ndarray:
        from scipy import stats

        return stats.binom.pmf(np.asarray(k, dtype=float), self.n, self.p)

    def __repr__(self) -> str:
        return f"BinomialCounts(n={self.n}, p={self.p})"
