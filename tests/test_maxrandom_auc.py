"""Expected maximum AUC of t random scorers: exact null distribution of the Mann-Whitney U
against brute force, simulation, and the Edgeworth approximation's stated error."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from evalsci.maxrandom import auc as auc_mod
from evalsci.maxrandom import max_random_auc, max_random_auc_tail


def brute_force_u_pmf(n_pos: int, n_neg: int) -> np.ndarray:
    """Every assignment of the ranks to positives is equally likely under the null."""
    N = n_pos + n_neg
    counts = np.zeros(n_pos * n_neg + 1)
    for pos in itertools.combinations(range(N), n_pos):
        # U = number of (positive, negative) pairs with the positive ranked higher
        u = sum(r - i for i, r in enumerate(pos))  # negatives below the i-th positive
        counts[u] += 1
    return counts / counts.sum()


@pytest.mark.parametrize("n_pos,n_neg", [(1, 1), (1, 5), (3, 4), (4, 3), (5, 6), (2, 9)])
def test_u_pmf_matches_brute_force(n_pos, n_neg):
    bf = brute_force_u_pmf(n_pos, n_neg)
    np.testing.assert_allclose(auc_mod.mann_whitney_pmf(n_pos, n_neg), bf, rtol=1e-13)
    m, n = sorted((n_pos, n_neg))
    np.testing.assert_allclose(auc_mod._pmf_recursion(m, n), bf, rtol=1e-13)
    np.testing.assert_allclose(auc_mod._pmf_gaussian_binomial(m, n), bf, rtol=1e-15)


def test_exact_methods_agree():
    """Float recursion vs exact-integer Gaussian binomial, relative, including far tails."""
    for m, n in [(30, 40), (7, 300)]:
        a, b = auc_mod._pmf_recursion(m, n), auc_mod._pmf_gaussian_binomial(m, n)
        assert b[0] == pytest.approx(1 / math.comb(m + n, m), rel=1e-15)
        np.testing.assert_allclose(a, b, rtol=1e-12)
    assert auc_mod.exact_feasible(30, 2000) and not auc_mod.exact_feasible(300, 300)


def test_u_pmf_matches_scipy_exact_p_values():
    """scipy's exact Mann-Whitney p-value for a statistic equal to u is P(U >= u)."""
    from scipy.stats import mannwhitneyu

    n_pos, n_neg = 6, 7
    pmf = auc_mod.mann_whitney_pmf(n_pos, n_neg)
    sf = np.cumsum(pmf[::-1])[::-1]  # P(U >= u)
    rng = np.random.default_rng(3)
    for _ in range(5):
        x = rng.permutation(13)
        pos, neg = x[:n_pos], x[n_pos:]
        u = int(sum((a > b) for a in pos for b in neg))
        res = mannwhitneyu(pos, neg, alternative="greater", method="exact")
        assert res.statistic == u
        assert res.pvalue == pytest.approx(sf[u], rel=1e-12)


def test_expected_max_auc_brute_force_tiny():
    n_pos, n_neg = 3, 4
    pmf = brute_force_u_pmf(n_pos, n_neg)
    F = np.cumsum(pmf)
    u = np.arange(pmf.size)
    for t in (1, 2, 10):
        exact = (u * (F**t - np.concatenate([[0], F[:-1]]) ** t)).sum() / (n_pos * n_neg)
        assert max_random_auc(n_pos, n_neg, t) == pytest.approx(exact, rel=1e-13)
    assert max_random_auc(n_pos, n_neg, 1) == pytest.approx(0.5, rel=1e-14)


def test_expected_max_auc_simulation():
    """Random scorers: iid uniform scores; AUC via the rank-sum; max over t; mean over reps."""
    rng = np.random.default_rng(7)
    n_pos, n_neg, t, reps = 10, 15, 5, 20_000
    scores = rng.random((reps, t, n_pos + n_neg))
    ranks = scores.argsort(axis=2).argsort(axis=2)  # 0-based ranks
    u = ranks[..., :n_pos].sum(axis=2) - n_pos * (n_pos - 1) / 2
    m = (u / (n_pos * n_neg)).max(axis=1)
    se = m.std() / np.sqrt(reps)
    assert abs(max_random_auc(n_pos, n_neg, t) - m.mean()) < 4 * se
    emp = (u.max(axis=1) >= 100).mean()  # counts, not m * n_pos * n_neg (float rounding)
    assert max_random_auc_tail(100, n_pos, n_neg, t) == pytest.approx(
        emp, abs=4 * np.sqrt(emp * (1 - emp) / reps))


def test_edgeworth_error_as_documented():
    """The documented approximation error of the large-sample path (auc.py docstring)."""
    ts = np.array([1.0, 10, 100, 1e4])
    for (m, n), (tol_small, tol_large) in {(200, 200): (3e-7, 1e-5),
                                            (40, 1000): (5e-6, 2e-4)}.items():
        exact = max_random_auc(m, n, ts)
        approx = auc_mod.MannWhitneyEdgeworth(m, n).expected_max(ts) / (m * n)
        err = np.abs(exact - approx)
        assert np.all(err[:3] < tol_small) and err[3] < tol_large, err


def test_large_sizes_use_the_approximation_and_behave():
    v = max_random_auc(1000, 3000, [1, 20, 200])
    assert v[0] == pytest.approx(0.5, abs=1e-9)
    assert 0.5 < v[1] < v[2] < 0.55
    assert isinstance(auc_mod.u_distribution(1000, 3000), auc_mod.MannWhitneyEdgeworth)
    # symmetric in the two class sizes, decreasing in size
    assert max_random_auc(30, 50, 10) == pytest.approx(max_random_auc(50, 30, 10), rel=1e-13)
    assert max_random_auc(10, 10, 10) > max_random_auc(30, 30, 10) > max_random_auc(300, 300, 10)
