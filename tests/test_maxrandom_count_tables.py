"""`count_tables`: the tables `evalsci audit` judges every score of an (n, options) from, made
from one evaluation of the count distribution, must be the bits of the functions each value
stands for (max_random_baseline, max_random_tail, standard_lower_tail) and, for one guesser,
scipy's binomial tails."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binom

from evalsci.maxrandom import (
    count_tables,
    max_random_baseline,
    max_random_tail,
    standard_lower_tail,
)

T = np.array([1.0, 2.0, 10.0, 1000.0])


@pytest.mark.parametrize(
    "n, p", [(50, 0.25), (1319, {4: 1319}), (100, {2: 30, 4: 70}), (10_000, 0.1), (1, 0.5)]
)
def test_count_tables_are_the_bits_of_each_function(n, p):
    baseline, upper, lower = count_tables(n, p, T)
    counts = np.arange(n + 1)
    assert upper.shape == (len(T), n + 1) and lower.shape == (n + 1,)
    np.testing.assert_array_equal(baseline, max_random_baseline(n, p, T), strict=True)
    want = max_random_tail(counts[None, :], n, p, T[:, None])
    np.testing.assert_array_equal(upper, want, strict=True)
    np.testing.assert_array_equal(lower, standard_lower_tail(counts, n, p), strict=True)


@pytest.mark.parametrize("n, q", [(50, 0.25), (1319, 0.25), (10_000, 0.1)])
def test_count_tables_of_one_guesser_are_scipys_binomial_tails(n, q):
    _, upper, lower = count_tables(n, q, T)
    c = np.arange(n + 1)
    for got, want in ((upper[0], binom.sf(c - 1, n, q)), (lower, binom.cdf(c, n, q))):
        normal = want > 1e-300
        np.testing.assert_allclose(got[normal], want[normal], rtol=1e-12)
