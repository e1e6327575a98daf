"""Reference-instance selectors on synthetic success matrices with known structure."""

from __future__ import annotations

import numpy as np
import pytest

from evalsci.assess.selectors import (
    n_factors_kaiser,
    select_factor_analysis,
    select_kmeans,
    select_random,
    select_random_best_of,
)


def _planted_factors(n=600, n_llm=24, seed=0):
    """Success of 24 LLMs on 600 instances driven by two latent instance factors.

    LLMs 0-11 load only on factor 1, LLMs 12-23 only on factor 2; instance factor scores
    h ~ N(0, 2^2). An instance extreme on factor k is solved by all or none of group k.
    """
    rng = np.random.default_rng(seed)
    h = rng.normal(0, 2, size=(n, 2))
    w = np.zeros((2, n_llm))
    w[0, : n_llm // 2] = 1.5
    w[1, n_llm // 2 :] = 1.5
    z = (rng.random((n, n_llm)) < 1 / (1 + np.exp(-(h @ w)))).astype(float)
    return z, h


def test_kaiser_rule_finds_the_planted_number_of_factors():
    rng = np.random.default_rng(0)
    h = rng.normal(size=(500, 3))
    w = np.kron(np.eye(3), np.ones((1, 5)))  # 3 factors x 15 features, 5 features each
    x = h @ w + 0.4 * rng.normal(size=(500, 15))
    assert n_factors_kaiser(x) == 3
    assert n_factors_kaiser(x, max_factors=2) == 2


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_factor_analysis_recovers_the_planted_factors(seed):
    z, h = _planted_factors(seed=seed)
    # Kaiser (eigenvalues > 1) finds the two planted factors in the success matrix ...
    assert n_factors_kaiser(z) == 2
    ref = select_factor_analysis(z, n_ref=40, seed=0)
    assert len(ref) == len(set(ref)) == 40
    # ... and the picks are spread evenly across them (20 + 20, by the true factor on which
    # each pick is more extreme) ...
    per_factor = np.bincount(np.abs(h[ref]).argmax(axis=1), minlength=2)
    assert per_factor.min() >= 16
    # ... taken among the instances extreme on their factor (solved by all or none of the LLMs
    # that load on it), which a random pick would be only about a third of the time.
    extreme = np.column_stack(
        [np.isin(z[:, :12].mean(1), [0, 1]), np.isin(z[:, 12:].mean(1), [0, 1])]
    )
    k = np.abs(h[ref]).argmax(axis=1)
    assert extreme[ref, k].mean() > 0.75
    assert extreme.mean() < 0.45


def test_factor_analysis_ignores_constant_llms_and_spreads_remainders():
    z, _ = _planted_factors(seed=1)
    z = np.column_stack(
        [z, np.zeros(len(z))]
    )  # an LLM failing everything (like babbage on neubaroco)
    ref = select_factor_analysis(z, n_ref=41, seed=0)
    assert len(set(ref)) == 41


def test_kmeans_picks_one_instance_per_planted_cluster():
    rng = np.random.default_rng(0)
    centers = rng.normal(0, 10, size=(8, 5))
    labels = np.repeat(np.arange(8), 50)
    x = centers[labels] + rng.normal(0, 0.5, size=(400, 5))
    ref = select_kmeans(x, n_ref=8, seed=0)
    assert sorted(labels[ref].tolist()) == list(range(8))
    # The pick of each cluster is the member closest to its centre.
    for r in ref:
        members = np.flatnonzero(labels == labels[r])
        mean = x[members].mean(axis=0)
        assert np.linalg.norm(x[r] - mean) <= np.sort(np.linalg.norm(x[members] - mean, axis=1))[2]


def test_kmeans_on_binary_success_still_returns_distinct_instances():
    z, _ = _planted_factors(n=300, n_llm=4)  # at most 16 distinct success vectors
    ref = select_kmeans(z, n_ref=50, seed=0)
    assert len(ref) == len(set(ref)) == 50


def test_random_selector_redraws_until_every_llm_has_both_labels():
    rng = np.random.default_rng(0)
    z = np.zeros((1000, 3))
    z[:, 0] = 1
    z[:5, 0] = 0  # LLM 0 fails only 5 instances
    z[:500, 1] = 1
    z[::2, 2] = 1
    ref = select_random(1000, 20, z, np.random.default_rng(1))
    assert len(set(ref)) == 20
    for j in range(3):
        assert 0 < z[ref, j].sum() < 20
    del rng


def test_random_best_of_returns_a_subset_where_every_llm_has_both_labels():
    """The best of 8 draws from the 70 % part: distinct instances, both labels per LLM."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(300, 4))
    z = np.column_stack(
        [(x[:, 0] + 0.3 * rng.normal(size=300) > t).astype(float) for t in (-0.5, 0, 0.5)]
    )
    ref = select_random_best_of(x, z, n_ref=30, rng=np.random.default_rng(0), n_draws=8)
    assert len(set(ref)) == 30
    for j in range(3):
        assert 0 < z[ref, j].sum() < 30


def test_classifier_names_map_to_the_papers_models():
    """`xgboost` is XGBoost's defaults (the paper); `xgboost_bins<N>` changes only the
    number of histogram bins; logistic regression names carry penalty and C."""
    pytest.importorskip("xgboost")
    from evalsci.assess.classifiers import fit_predict, make_classifier
    from evalsci.settings import preset

    plain, binned = make_classifier("xgboost", seed=1), make_classifier("xgboost_bins64", seed=1)
    assert plain.get_params()["max_bin"] is None and binned.get_params()["max_bin"] == 64
    other = {k: v for k, v in binned.get_params().items() if k != "max_bin"}
    assert other == {k: v for k, v in plain.get_params().items() if k != "max_bin"}
    l1 = make_classifier("logreg_l1_C0.1")
    assert (l1.C, l1.l1_ratio, l1.solver) == (0.1, 1.0, "liblinear")
    for bad in ("xgboost_bins0", "xgboost64", "svm"):
        with pytest.raises(ValueError, match="unknown classifier"):
            make_classifier(bad)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(300, 5))
    y = (x[:, 0] > 0).astype(int)
    p = fit_predict("xgboost_bins64", x, y, [x], seed=1)[0]
    assert np.corrcoef(p, x[:, 0])[0, 1] > 0.8
    # the paper's grid keeps XGBoost's defaults; the CPU default grid bins coarser
    assert "xgboost" in preset("assessors", "paper")["classifiers"]
    assert "xgboost_bins64" in preset("assessors", "default")["classifiers"]


def test_duplicate_instances_tie_by_position_whatever_the_float_noise():
    """Issue 17: equal features that differ by another CPU's rounding (1e-9 here) are ties,
    and the lowest training position wins, for KMeans and factor analysis alike."""
    rng = np.random.default_rng(0)
    base = rng.normal(size=(30, 4))
    x = np.vstack([base, base[:10]])  # instances 30..39 duplicate 0..9
    picks = []
    for noise in (0.0, 1e-9, -1e-9):
        y = x.copy()
        y[30:] += noise  # the copies come out slightly nearer or farther on "another CPU"
        picks.append((select_kmeans(y, 8, seed=1), select_factor_analysis(y, 8, seed=1)))
    for km, fa in picks[1:]:
        np.testing.assert_array_equal(km, picks[0][0])
        np.testing.assert_array_equal(fa, picks[0][1])
