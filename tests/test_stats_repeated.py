"""evalsci.stats.repeated: McNemar, Cochran's Q and the two-way mean's SE, against hand-computed
values, their textbook identities and a simulation of the crossed design they assume."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from evalsci.stats.repeated import cochran_q, mcnemar, min_mcnemar_p, two_way_mean


def test_mcnemar_counts_and_exact_p():
    a = np.array([1, 1, 1, 1, 1, 0, 0, 1, 0, 1])
    b = np.array([0, 0, 0, 0, 1, 0, 1, 1, 0, 1])
    a_only, b_only, p = mcnemar(a, b)
    assert (a_only, b_only) == (4, 1)
    # two-sided sign test on 4 of 5: 2 * P(X <= 1), X ~ Bin(5, 1/2) = 2 * 6/32
    assert p == pytest.approx(12 / 32)
    assert mcnemar(a, a)[2] == 1.0


def test_min_mcnemar_p_is_attained_and_bounds_every_table():
    for n in range(1, 9):
        ones, zeros = np.ones(n, int), np.zeros(n, int)
        assert mcnemar(ones, zeros)[2] == pytest.approx(min_mcnemar_p(n))
    assert min_mcnemar_p(4) == 0.125 and min_mcnemar_p(5) > 0.05 > min_mcnemar_p(6)


def test_cochran_q_hand_computed():
    # 4 items x 3 conditions: column totals 3, 1, 0; row totals 2, 1, 1, 0; N = 4
    x = np.array([[1, 1, 0], [1, 0, 0], [1, 0, 0], [0, 0, 0]])
    q, df, p = cochran_q(x)
    # Q = (c-1)(c sum C^2 - N^2) / (c N - sum R^2) = 2 (3*10 - 16) / (12 - 6) = 28/6
    assert q == pytest.approx(28 / 6) and df == 2
    assert p == pytest.approx(stats.chi2.sf(28 / 6, 2))


def test_cochran_q_with_two_conditions_is_mcnemars_chi_square():
    rng = np.random.default_rng(3)
    x = rng.integers(0, 2, size=(200, 2))
    b = int(((x[:, 0] == 1) & (x[:, 1] == 0)).sum())
    c = int(((x[:, 0] == 0) & (x[:, 1] == 1)).sum())
    q, df, _ = cochran_q(x)
    assert df == 1 and q == pytest.approx((b - c) ** 2 / (b + c))


def test_cochran_q_without_information_and_bad_input():
    assert cochran_q(np.ones((5, 3), int)) == (0.0, 2, 1.0)
    with pytest.raises(ValueError, match="0/1"):
        cochran_q(np.full((3, 2), 2))
    with pytest.raises(ValueError, match="conditions >= 2"):
        cochran_q(np.ones((3, 1), int))


def test_two_way_mean_one_curve_is_the_items_se():
    x = np.array([[1.0, 0.0, 1.0, 1.0, 0.0, 1.0]])
    m = two_way_mean(x)
    assert m.mean == pytest.approx(4 / 6)
    assert m.se == pytest.approx(x.std(ddof=1) / np.sqrt(6)) and m.df == 5


def test_two_way_mean_matches_the_mean_squares_formula():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(3, 40)) + rng.normal(size=(3, 1)) + rng.normal(size=(1, 40))
    r, n = x.shape
    gm = x.mean()
    ms_r = n * ((x.mean(1) - gm) ** 2).sum() / (r - 1)
    ms_i = r * ((x.mean(0) - gm) ** 2).sum() / (n - 1)
    resid = x - x.mean(1, keepdims=True) - x.mean(0, keepdims=True) + gm
    ms_e = (resid**2).sum() / ((r - 1) * (n - 1))
    m = two_way_mean(x)
    assert m.se == pytest.approx(np.sqrt((ms_r + ms_i - ms_e) / (r * n)))
    assert 1 < m.df < (r - 1) * (n - 1)


def test_two_way_interval_covers_the_crossed_design_mean():
    """Simulated crossed design (random curve effects, random item effects, noise): the 95%
    interval covers the true mean about 95% of the time, where the items-only SE (which
    ignores that the curves are a sample) falls far short."""
    rng = np.random.default_rng(1)
    cover = naive = 0
    reps = 400
    for _ in range(reps):
        x = rng.normal(0, 0.1, (3, 1)) + rng.normal(0, 0.2, (1, 64)) + rng.normal(0, 0.2, (3, 64))
        lo, hi = two_way_mean(x).interval()
        cover += lo <= 0 <= hi
        se_items = x.mean(0).std(ddof=1) / np.sqrt(64)
        naive += abs(x.mean()) <= 1.96 * se_items
    assert cover / reps > 0.9
    assert naive / reps < 0.85
