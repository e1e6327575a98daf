"""tinyBenchmarks' estimators (evalsci.assess.tinybench) against independent computations.

No number of the authors' is reachable offline (their IRT parameters, lambdas and leaderboard
data are Git LFS objects absent from their repository's snapshot), so each estimator is
checked against a property or a computation that does not reuse its code: exact fractions,
a brute-force likelihood, a brute-force MSE minimum, and data simulated from the IRT model.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from evalsci.assess import tinybench as tb

pytest.importorskip("torch")


def _simulate(n_models, n_items, dims, seed):
    """0/1 outcomes drawn from the MIRT 2PL with known parameters; also the P matrix."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=(n_models, dims))
    a = np.abs(rng.normal(size=(n_items, dims)))
    b = rng.normal(size=n_items)
    p = 1 / (1 + np.exp(-(theta @ a.T - b)))
    return (rng.random(p.shape) < p).astype(float), p


def test_gp_irt_lambda_is_the_mse_minimising_weight_exactly():
    # The paper's rationale: the anchor mean is unbiased with variance s2 = v / (4 n), p-IRT
    # has bias b and (next to it) no variance; MSE(l) = l^2 s2 + (1 - l)^2 b^2. Its minimum,
    # found here by exact rational arithmetic on the quadratic's vertex and by a brute-force
    # grid, is the lambda of training_irt.ipynb's get_lambda(b, v / (4 n)).
    for b, v, n in [(Fraction(1, 50), Fraction(1, 5), 100), (Fraction(3, 100), Fraction(2, 9), 10)]:
        s2 = v / (4 * n)
        # MSE(l) = l^2 (s2 + b^2) - 2 l b^2 + b^2: vertex at l = b^2 / (s2 + b^2)
        exact = b**2 / (s2 + b**2)
        assert tb.gp_irt_lambda(float(b), float(v), n) == pytest.approx(float(exact), abs=1e-15)
        grid = np.linspace(0, 1, 100001)
        mse = grid**2 * float(s2) + (1 - grid) ** 2 * float(b) ** 2
        assert abs(grid[np.argmin(mse)] - tb.gp_irt_lambda(float(b), float(v), n)) <= 1e-5


def test_p_irt_and_gp_irt_by_hand_with_fractions():
    y = np.array([1, 0, 1, 1])
    p_rest = np.array([0.25, 0.5, 0.75, 0.5, 0.5, 0.25])
    # lambda_hat = 4 / 10; mean anchors 3/4; mean rest 11/24
    want = Fraction(4, 10) * Fraction(3, 4) + Fraction(6, 10) * Fraction(11, 24)
    got = tb.p_irt(y, p_rest, 10)
    assert got == pytest.approx(float(want), abs=1e-15)
    w = np.array([0.1, 0.2, 0.3, 0.4])
    anchor = Fraction(1, 10) + Fraction(3, 10) + Fraction(4, 10)
    assert tb.anchor_estimate(y, w) == pytest.approx(float(anchor), abs=1e-15)
    lam = Fraction(1, 3)
    assert tb.gp_irt(float(anchor), got, float(lam)) == pytest.approx(
        float(lam * anchor + (1 - lam) * want), abs=1e-15
    )


def test_every_item_an_anchor_gives_the_naive_mean():
    y, _ = _simulate(40, 30, 2, seed=1)
    fit = tb.TinyBenchmarks.fit(y[1:], n=30, dims=2, seed=0)
    assert sorted(fit.anchors) == list(range(30))
    np.testing.assert_allclose(fit.weights, 1 / 30, rtol=0, atol=1e-15)
    est = fit.estimate(y[0, fit.anchors])
    mean = float(Fraction(int(y[0].sum()), 30))
    for k in ("irt", "pirt", "gpirt"):
        assert est[k] == pytest.approx(mean, abs=1e-12), k


def test_fit_ability_is_the_brute_force_likelihood_maximum():
    rng = np.random.default_rng(3)
    items = tb.ItemParams(np.abs(rng.normal(size=(60, 1))) + 0.2, rng.normal(size=60))
    y = (rng.random(60) < 0.6).astype(float)
    theta = tb.fit_ability(y, items)
    grid = np.linspace(-6, 6, 120001)
    z = grid[:, None] * items.disc[:, 0][None, :] - items.diff[None, :]
    ll = (y * -np.logaddexp(0, -z) + (1 - y) * -np.logaddexp(0, z)).sum(axis=1)
    assert abs(theta[0] - grid[np.argmax(ll)]) < 1e-3


def test_anchor_weights_are_cluster_shares():
    rng = np.random.default_rng(0)
    # three well separated groups of 10, 20 and 30 items: with k = 3 each anchor stands for
    # its group, weight 1/6, 2/6, 3/6
    x = np.vstack([rng.normal(c, 0.01, size=(m, 2)) for c, m in ((0, 10), (5, 20), (10, 30))])
    pick, w = tb.anchor_points(x, 3, seed=0)
    groups = np.repeat([0, 1, 2], [10, 20, 30])
    assert sorted(groups[pick]) == [0, 1, 2]
    share = {0: 1 / 6, 1: 2 / 6, 2: 3 / 6}
    for p, wi in zip(pick, w, strict=True):
        assert wi == pytest.approx(share[groups[p]], abs=1e-15)


def test_p_irt_beats_the_random_mean_on_data_from_the_irt_model():
    # The paper's claim for IRT-based estimation at small n, on data the model generated:
    # over 30 new models, p-IRT's absolute error with 15 anchors is below that of the mean
    # over 15 random items (each against the model's expected accuracy): a one-sided
    # Wilcoxon signed-rank test paired over the models, at level 0.01 (one test, no family).
    from scipy.stats import wilcoxon

    y, p = _simulate(230, 300, 2, seed=7)
    fit = tb.TinyBenchmarks.fit(y[:200], n=15, dims=2, seed=0)
    rng = np.random.default_rng(11)
    err_p, err_r = [], []
    for j in range(200, 230):
        truth = p[j].mean()
        err_p.append(abs(fit.estimate(y[j, fit.anchors])["pirt"] - truth))
        err_r.append(abs(y[j, rng.choice(300, 15, replace=False)].mean() - truth))
    test = wilcoxon(err_r, err_p, alternative="greater")
    assert test.pvalue < 0.01, (np.mean(err_p), np.mean(err_r), test.pvalue)
    assert 0 <= fit.lam <= 1
