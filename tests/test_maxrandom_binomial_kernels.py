"""BinomialCounts calls scipy's Boost binomial kernels directly (binomial.py: importing
scipy.stats costs ~1 s per `evalsci audit`). Its cdf, sf and pmf must be scipy.stats.binom's
own values, bit for bit, on the support, at its edges and outside it (the audit's exact
p-values and every table built on them stay the same bytes)."""

import numpy as np
import pytest
from scipy import stats

from evalsci.maxrandom.binomial import BinomialCounts
from evalsci.maxrandom.poisson_binomial import PoissonBinomialCounts


def _ks(n: int) -> np.ndarray:
    k = np.arange(-3, n + 4, dtype=float)
    odd = np.array([-np.inf, np.inf, np.nan, 0.5, n - 0.5, n + 0.25, -0.5, 1e300])
    return np.concatenate([k, odd])


@pytest.mark.parametrize("n", [0, 1, 2, 7, 20, 1_319, 10_000])
@pytest.mark.parametrize("p", [0.0, 0.1, 0.2, 0.25, 1 / 3, 0.5, 0.9, 1.0])
def test_cdf_sf_pmf_are_scipy_stats_binom_bit_for_bit(n, p):
    k = _ks(n)
    b = BinomialCounts(n, p)
    cdf, sf = b.cdf_sf(k)
    np.testing.assert_array_equal(cdf, stats.binom.cdf(k, n, p), strict=True)
    np.testing.assert_array_equal(sf, stats.binom.sf(k, n, p), strict=True)
    np.testing.assert_array_equal(b.pmf(k), stats.binom.pmf(k, n, p), strict=True)
    # scalars come back as scalars, as from scipy
    for x in (-1.0, 0.0, float(n) / 2, float(n), np.nan):
        assert np.array_equal(b.cdf_sf(x), (stats.binom.cdf(x, n, p), stats.binom.sf(x, n, p)),
                              equal_nan=True)  # fmt: skip
        assert np.shape(b.cdf_sf(x)[0]) == () and np.shape(b.pmf(x)) == ()


def test_poisson_binomial_groups_use_the_same_pmf():
    """A mixed-options distribution convolves each group's binomial pmf: checked against a
    brute-force convolution of scipy.stats.binom's pmfs."""
    groups = [(0.5, 7), (0.25, 13), (0.1, 5)]
    n = sum(m for _, m in groups)
    pb = PoissonBinomialCounts(n, groups)
    f = np.array([1.0])
    for q, m in groups:
        f = np.convolve(f, stats.binom.pmf(np.arange(m + 1), m, q))
    np.testing.assert_allclose(pb.pmf(np.arange(n + 1)), f, rtol=1e-12, atol=1e-300)


def test_invalid_parameters_are_refused():
    for n, p in ((5, 1.5), (5, -0.1), (2.5, 0.5), (-1, 0.5)):
        with pytest.raises(ValueError, match="Binomial"):
            BinomialCounts(n, p)
