"""Expected maximum AUC of t random scorers: the null distribution of the Mann-Whitney U against
brute force, exact integers (Gaussian binomial coefficients) and simulation; the large-size
path (tilted Fourier inversion) against exact integers with its computed error bound, tails down
to 1e-300, unbalanced sizes; an unboundable value raises."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from evalsci.maxrandom import auc as auc_mod
from evalsci.maxrandom import max_random_auc, max_random_auc_tail
from evalsci.maxrandom.mann_whitney_tilted import REL_TOL, MannWhitneyTilted


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
        emp, abs=4 * np.sqrt(emp * (1 - emp) / reps)
    )


def exact_lower_counts(m: int, n: int, K: int) -> list[int]:
    """Exact integer coefficients of q^0..q^K of the Gaussian binomial [m+n, m]_q: the
    generating function truncated at degree K (exact, since both operations are)."""
    c = np.zeros(K + 1, dtype=object)
    c[0] = 1
    for i in range(1, m + 1):
        k = n + i
        if k <= K:
            c[k:] = c[k:] - c[: K + 1 - k]
        rows = -(-(K + 1) // i)
        pad = np.zeros(rows * i, dtype=object)
        pad[: K + 1] = c
        c = np.cumsum(pad.reshape(rows, i), axis=0).ravel()[: K + 1]
    return [int(x) for x in c]


def log_exact(num: int, den: int) -> float:
    return math.log(num) - math.log(den)  # math.log takes arbitrarily large ints


@pytest.mark.parametrize("m,n", [(30, 40), (7, 300), (50, 200)])
def test_tilted_pmf_cdf_every_value_vs_exact_integers(m, n):
    """Every pmf and cdf value of the lower half (tails down to 1 / C(m+n, m)) within its
    computed bound, every bound within REL_TOL; measured error ~1e-13."""
    d = MannWhitneyTilted(m, n)
    counts = exact_lower_counts(m, n, d.half)
    total = math.comb(m + n, m)
    exact_lp = np.array([log_exact(c, total) for c in counts])
    exact_lF = np.array([log_exact(c, total) for c in itertools.accumulate(counts)])
    lp, rel_p = d.log_pmf_range(0, d.half)
    lF, rel_F = d.log_cdf_lower(np.arange(d.half + 1))
    err_p, err_F = np.abs(np.expm1(lp - exact_lp)), np.abs(np.expm1(lF - exact_lF))
    assert np.all(rel_p <= REL_TOL) and np.all(rel_F <= REL_TOL)
    assert np.all(err_p <= rel_p) and np.all(err_F <= rel_F)
    assert err_p.max() < 1e-11 and err_F.max() < 1e-11


@pytest.mark.parametrize(
    "m,n,xs,path",
    [
        (600, 600, [3050, 3150, 3300], "default"),  # P(U <= x) ~ 1e-301 .. 1e-298
        (600, 600, [3300], "fourier"),  # the same tail by the tilted blocks alone
        (
            150,
            4000,
            [0, 40, 1000, 3999, 4500, 5200],
            "default",
        ),  # unbalanced; 1/C(4150,150) ~ 1e-279
        (150, 4000, [4500, 8000], "fourier"),
    ],
)
def test_far_lower_tails_vs_exact_integers(m, n, xs, path, monkeypatch):
    from evalsci.maxrandom import mann_whitney_tilted

    d = MannWhitneyTilted(m, n)
    if path == "fourier":  # no truncated recursion: tilted Fourier blocks only
        monkeypatch.setattr(mann_whitney_tilted, "_HARDING_TERMS", 0)
        d._deep = -1
    counts = list(itertools.accumulate(exact_lower_counts(m, n, max(xs))))
    total = math.comb(m + n, m)
    lF, rel = d.log_cdf_lower(np.array(xs))
    exact = np.array([log_exact(counts[x], total) for x in xs])
    err = np.abs(np.expm1(lF - exact))
    assert np.all(err <= rel) and np.all(rel <= REL_TOL), (err, rel)
    assert err.max() < 1e-11
    assert exact.min() < math.log(1e-200)
    if path == "default":
        # the public tail: P(max of t=1 >= u) = P(U >= u) = P(U <= mn - u) by symmetry
        for x, e in zip(xs, exact, strict=True):
            tail = max_random_auc_tail(m * n - x, m, n, 1)
            assert tail == pytest.approx(math.exp(e), rel=2 * REL_TOL)
    elif m == 150:  # where the blocks cannot bound the error (U near 0, V small) they raise
        with pytest.raises(ValueError, match=rf"U=\d+ \(n_pos={m}, n_neg={n}\)"):
            MannWhitneyTilted(m, n).log_pmf_range(0, 1000)


def test_expected_max_and_tails_vs_exact_distribution():
    """The tilted path against the exact integer distribution through the same max_order code."""
    from evalsci.maxrandom import max_order

    m, n = 120, 150
    exact, tilted = auc_mod.MannWhitneyCounts(m, n), MannWhitneyTilted(m, n)
    ts = np.array([1.0, 2, 10, 1e4, 1e12])
    e_exact = max_order.expected_max_count(exact, ts) / (m * n)
    e_tilted = max_order.expected_max_count(tilted, ts) / (m * n)
    np.testing.assert_allclose(e_tilted, e_exact, rtol=2 * REL_TOL)
    assert np.max(np.abs(e_tilted / e_exact - 1)) < 1e-12
    u = np.array([9000, 12000, 15000, 17500])
    tail_exact = max_order.max_tail_counts(exact, ts[:, None], u)
    tail_tilted = max_order.max_tail_counts(tilted, ts[:, None], u)
    np.testing.assert_allclose(tail_tilted, tail_exact, rtol=2 * REL_TOL)


def test_issue_13_values():
    """The exact values quoted in issue 13, where the old Edgeworth path returned 0.67973,
    0.7249, 0.0 and 2.09e-7."""
    assert max_random_auc(250, 250, 1e12) == pytest.approx(0.68116, abs=1e-5)
    assert max_random_auc(60, 3000, 1e12) == pytest.approx(0.7567, abs=1e-4)
    assert max_random_auc_tail(43750, 250, 250, 10) == pytest.approx(1.64e-14, rel=0.01)
    assert max_random_auc_tail(126000, 60, 3000, 10) == pytest.approx(2.73e-7, rel=0.002)
    assert isinstance(auc_mod.u_distribution(250, 250), MannWhitneyTilted)


def test_unboundable_value_raises(monkeypatch):
    """A value whose error cannot be bounded to REL_TOL raises, naming the sizes."""
    from evalsci.maxrandom import mann_whitney_tilted

    monkeypatch.setattr(mann_whitney_tilted, "REL_TOL", 1e-30)
    auc_mod._u_distribution.cache_clear()
    try:
        with pytest.raises(ValueError, match=r"n_pos=300, n_neg=310"):
            max_random_auc(300, 310, 10)
    finally:
        auc_mod._u_distribution.cache_clear()


def test_large_sizes_behave():
    v = max_random_auc(1000, 3000, [1, 20, 200])
    assert v[0] == pytest.approx(0.5, rel=1e-12)
    assert 0.5 < v[1] < v[2] < 0.55
    assert isinstance(auc_mod.u_distribution(1000, 3000), MannWhitneyTilted)
    # symmetric in the two class sizes, decreasing in size
    assert max_random_auc(300, 500, 10) == pytest.approx(max_random_auc(500, 300, 10), rel=1e-15)
    assert max_random_auc(10, 10, 10) > max_random_auc(30, 30, 10) > max_random_auc(300, 300, 10)


def _expm1_sample() -> np.ndarray:
    rng = np.random.default_rng(0)
    re_, im = (rng.normal(size=2000) * 10.0 ** rng.uniform(-12, 1, 2000) for _ in range(2))
    return re_ + 1j * im


def test_numpy_complex_expm1_is_the_bounded_formula():
    """The error bound of mann_whitney_tilted._expm1_rows assumes numpy's complex expm1 is
    expm1(x) cos y - 2 sin(y/2)^2 + i e^x sin y, each function the C library's scalar one (numpy's
    complex loops call libm; its real ufuncs may instead use SIMD loops that round otherwise on
    AVX-512, so the reference is built from `math`, which calls the same libm). A numpy that
    changes the formula must fail here."""
    z = _expm1_sample()
    ref = np.array(
        [
            complex(
                math.expm1(x) * math.cos(y) - 2 * math.sin(0.5 * y) ** 2, math.exp(x) * math.sin(y)
            )
            for x, y in zip(z.real, z.imag, strict=True)
        ]
    )
    assert np.array_equal(np.expm1(z), ref)


def test_numpy_complex_expm1_is_within_the_bound_on_this_cpu():
    """The bound _expm1_rows states for exact arguments, 4 eps (|expm1 x| + min(2, y^2/2) +
    |im|), holds against a 200-bit mpmath expm1: checked on whatever CPU runs the tests."""
    import mpmath

    from evalsci.maxrandom.mann_whitney_tilted import _expm1_rows

    z = _expm1_sample()
    v, err = _expm1_rows(z.real, z.imag)
    # the argument-rounding part of err is 2 eps e^x (|x| + |y|): take it off for exact inputs
    bound = err - 2 * np.finfo(float).eps * np.exp(z.real) * (np.abs(z.real) + np.abs(z.imag))
    with mpmath.workprec(200):
        true = [mpmath.expm1(mpmath.mpc(c.real, c.imag)) for c in z]
        off = np.array(
            [float(abs(mpmath.mpc(a.real, a.imag) - t)) for a, t in zip(v, true, strict=True)]
        )
    assert np.all(off <= bound)


def test_values_below_the_normal_double_range():
    """Below e^-746 (Chernoff) a cdf is 0; between that and 2.2e-308 it is subnormal with an
    absolute error below 2^-1070; above, the relative bound holds. None of them raises."""
    from evalsci.maxrandom.mann_whitney_tilted import LOG_MIN_NORMAL, LOG_UNDERFLOW

    d = MannWhitneyTilted(1000, 1000)
    lf, err = d.log_cdf_lower(np.array([60_000, 65_000, 80_000]))
    assert lf[0] == -np.inf
    assert LOG_UNDERFLOW < lf[1] < LOG_MIN_NORMAL and err[1] * math.exp(lf[1]) <= 2.0**-1070
    assert lf[2] > LOG_MIN_NORMAL and err[2] <= REL_TOL
    assert 0 < max_random_auc_tail(10**6 - 65_000, 1000, 1000, 1) < 1e-300


def test_distribution_of_the_max_large_size():
    """pmf/cdf of the max over every U (what the rule writes for distribution=true)."""
    m, n, t = 300, 310, 5
    pmf, cdf = auc_mod.max_auc_pmf_cdf(m, n, t)
    assert pmf.size == m * n + 1 and np.all(pmf >= 0)
    assert pmf.sum() == pytest.approx(1.0, abs=1e-12) and cdf[-1] == 1.0
    np.testing.assert_allclose(np.cumsum(pmf)[cdf > 1e-3], cdf[cdf > 1e-3], rtol=1e-9)
    k = np.arange(m * n + 1)
    assert (k * pmf).sum() / (m * n) == pytest.approx(max_random_auc(m, n, t), rel=1e-9)


@pytest.mark.parametrize(
    "m,n,x,informative",
    [(30, 40, 600, True), (30, 40, 100, False), (20, 200, 300, True), (80, 90, 3000, True)],
)
def test_frequency_bound_holds_against_the_exact_characteristic_function(m, n, x, informative):
    """|phi_s(theta_j)| <= beta_j (the Bernoulli-conditioning bound that decides which
    frequencies may be left out), with phi_s from the exact integer pmf, wherever |phi_s| is
    above the float FFT's noise (1e-12); and beta is not trivial except deep in the tail
    (x = 100 of 1,200: V small, where the truncated recursion takes over)."""
    d = MannWhitneyTilted(m, n)
    p = auc_mod._pmf_gaussian_binomial(m, n)
    s = d.tilt(x)
    ks, _ = d.cgf(s)
    u = np.arange(p.size)
    ps = np.exp(np.log(p) + s * u - ks)
    assert ps.sum() == pytest.approx(1.0, rel=1e-12)  # K(s) is the exact normaliser
    L = 1 << math.ceil(math.log2(p.size + 1))
    beta, _ = d._bernoulli_bound(s, ks, L, 1e-25)
    phi = np.abs(np.fft.rfft(np.concatenate([ps, np.zeros(L - ps.size)])))[: beta.size]
    above = phi[1:] > 1e-12
    assert np.all(phi[1:][above] <= beta[1:][above] * (1 + 1e-9))
    assert np.any(beta[1:] < 1e-3) == informative
