"""evalsci.stats.permutation: the paired sign-flip test against exact enumeration; BH."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.stats import false_discovery_control

from evalsci.stats.permutation import paired_mean_test


def _exact_p(d, alternative):
    """Enumerate all 2^k sign patterns of the paired differences (the null distribution)."""
    stats = np.array([np.mean(np.array(s) * d) for s in itertools.product([1, -1], repeat=len(d))])
    obs = d.mean()
    if alternative == "greater":
        return np.mean(stats >= obs - 1e-12)
    return np.mean(stats <= obs + 1e-12)


def test_known_case_three_positive_pairs():
    # Differences 1, 2, 3: only the all-positive pattern reaches mean 2, so p = 1/8.
    mean, p = paired_mean_test([2, 3, 4], [1, 1, 1], alternative="greater", rng=0)
    assert mean == 2.0
    assert p == pytest.approx(1 / 8)
    _, p_less = paired_mean_test([2, 3, 4], [1, 1, 1], alternative="less", rng=0)
    assert p_less == pytest.approx(1.0)


@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_matches_exact_enumeration(alternative):
    rng = np.random.default_rng(3)
    x = rng.integers(0, 50, 10)
    y = rng.integers(0, 50, 10)
    _, p = paired_mean_test(x, y, alternative=alternative, rng=1)
    assert p == pytest.approx(_exact_p((x - y).astype(float), alternative))


def test_monte_carlo_is_seeded_and_close_to_exact_limit():
    rng = np.random.default_rng(5)
    x, y = rng.normal(0.1, 1, 40), rng.normal(0, 1, 40)
    p1 = paired_mean_test(x, y, n_resamples=5000, rng=np.random.default_rng(7))[1]
    p2 = paired_mean_test(x, y, n_resamples=5000, rng=np.random.default_rng(7))[1]
    assert p1 == p2
    # Large-sample check: the sign-flip null of the mean is ~ N(0, sum(d^2)/n^2).
    from scipy.stats import norm

    d = x - y
    approx = norm.sf(d.mean() / (np.sqrt((d**2).sum()) / len(d)))
    assert p1 == pytest.approx(approx, abs=0.03)


def test_rejects_bad_input():
    with pytest.raises(ValueError, match="equal length"):
        paired_mean_test([1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match="at least 2"):
        paired_mean_test([1], [0])


def test_benjamini_hochberg_known_values():
    # Benjamini & Hochberg (1995) step-up: adjusted p_(k) = min_{j>=k} p_(j) m / j. Sorted
    # 0.01, 0.03, 0.04, 0.20 give 0.04, 0.06, 0.0533, 0.20 -> running minimum from the top.
    p = np.array([0.01, 0.04, 0.03, 0.20])
    got = false_discovery_control(p, method="bh")
    assert got == pytest.approx([0.04, 0.04 * 4 / 3, 0.04 * 4 / 3, 0.20])


@pytest.mark.parametrize("n_pairs", [14, 20, 51, 100])
@pytest.mark.parametrize("alternative", ["greater", "less", "two-sided"])
def test_fast_null_distribution_gives_scipys_pvalues_bit_for_bit(n_pairs, alternative):
    """The direct sign-flip draws reproduce scipy.stats.permutation_test exactly (same draws
    from the same generator), on integer counts as the tapt tests use, with ties."""
    from scipy import stats

    for seed in range(5):
        data = np.random.default_rng(100 + seed)
        x = data.integers(0, 40, n_pairs).astype(float)
        y = x - data.integers(-3, 4, n_pairs)  # small differences: many tied null values
        ours = paired_mean_test(
            x, y, alternative=alternative, n_resamples=2_001, rng=np.random.default_rng([seed, 9])
        )
        ref = stats.permutation_test(
            (x, y),
            lambda a, b, axis: np.mean(a - b, axis=axis),
            permutation_type="samples",
            vectorized=True,
            alternative=alternative,
            n_resamples=2_001,
            rng=np.random.default_rng([seed, 9]),
        )
        assert ours == (np.mean(x - y), ref.pvalue)


def test_fast_path_leaves_the_generator_where_scipy_leaves_it():
    from scipy import stats

    x, y = np.arange(15.0), np.arange(15.0)[::-1]
    a, b = np.random.default_rng(3), np.random.default_rng(3)
    paired_mean_test(x, y, n_resamples=1_001, rng=a)  # 15,015 draws: odd, a buffered half
    stats.permutation_test(
        (x, y),
        lambda u, v, axis: np.mean(u - v, axis=axis),
        permutation_type="samples",
        vectorized=True,
        n_resamples=1_001,
        rng=b,
    )
    assert a.integers(0, 2**32, 8).tolist() == b.integers(0, 2**32, 8).tolist()
