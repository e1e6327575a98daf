"""Multidimensional 2PL IRT (evalsci.stats.irt): parameter recovery on simulated responses."""

from __future__ import annotations

import numpy as np
import pytest

from evalsci.stats.irt import fit_mirt_2pl, item_features


def _simulate(n_subj, n_items, dims, rng, disc=(0.5, 2.0)):
    theta = rng.normal(size=(n_subj, dims))
    a = rng.uniform(*disc, size=(n_items, dims)) * rng.choice([-1, 1], size=(n_items, dims))
    if dims == 1:
        a = np.abs(a)
    b = rng.normal(0, 1.2, size=n_items)
    logits = theta @ a.T - b
    y = (rng.random(logits.shape) < 1 / (1 + np.exp(-logits))).astype(float)
    return y, theta, a, b, logits


def test_unidimensional_recovery_of_difficulty_and_discrimination():
    rng = np.random.default_rng(1)
    y, theta, a, b, _ = _simulate(250, 40, 1, rng)
    fit = fit_mirt_2pl(y, dims=1, seed=0)
    assert np.corrcoef(fit.diff, b)[0, 1] > 0.95
    # For d = 1 the latent axis may flip: compare |a| up to sign.
    assert abs(np.corrcoef(fit.disc[:, 0], a[:, 0])[0, 1]) > 0.85
    assert abs(np.corrcoef(fit.ability[:, 0], theta[:, 0])[0, 1]) > 0.9


def test_multidimensional_recovery_of_logits_with_missing_responses():
    rng = np.random.default_rng(2)
    y, _, _, b, logits = _simulate(200, 80, 3, rng)
    y[rng.random(y.shape) < 0.1] = np.nan  # missing responses are ignored, not failures
    fit = fit_mirt_2pl(y, dims=3, seed=0)
    # Rotation-invariant: the fitted logits theta . a - b and the difficulties.
    assert np.corrcoef(fit.logits().ravel(), logits.ravel())[0, 1] > 0.9
    assert np.corrcoef(fit.diff, b)[0, 1] > 0.9
    assert fit.loss[-1] < fit.loss[0]


def test_overparameterised_fit_like_the_paper_is_deterministic_and_shaped():
    """The paper fits d = 10 on 8 training LLMs: it must run and be reproducible."""
    rng = np.random.default_rng(3)
    y = (rng.random((8, 200)) < 0.6).astype(float)
    f1 = fit_mirt_2pl(y, dims=10, seed=7)
    f2 = fit_mirt_2pl(y, dims=10, seed=7)
    assert f1.disc.shape == (200, 10) and f1.diff.shape == (200,) and f1.ability.shape == (8, 10)
    np.testing.assert_array_equal(f1.diff, f2.diff)
    assert item_features(f1).shape == (200, 11)
    # Easier items (answered by more LLMs) get lower difficulty.
    assert np.corrcoef(f1.diff, y.mean(axis=0))[0, 1] < -0.8


def test_rejects_non_binary_responses():
    with pytest.raises(ValueError, match="0/1"):
        fit_mirt_2pl(np.array([[0.0, 0.5]]), dims=1)
    with pytest.raises(ValueError, match="subjects x items"):
        fit_mirt_2pl(np.zeros(3), dims=1)


def test_fit_is_float64_single_threaded_and_leaves_torch_as_it_found_it():
    """The same bits whatever thread count the caller's torch had (a job's --cores)."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(4)
    y = (rng.random((8, 150)) < 0.6).astype(float)
    before = torch.get_num_threads()
    fits = []
    for n in (1, 2):
        torch.set_num_threads(n)
        fits.append(fit_mirt_2pl(y, dims=10, seed=7, max_iter=100))
        assert torch.get_num_threads() == n
        assert not torch.are_deterministic_algorithms_enabled()
    torch.set_num_threads(before)
    assert fits[0].disc.dtype == np.float64
    np.testing.assert_array_equal(fits[0].disc, fits[1].disc)
    np.testing.assert_array_equal(fits[0].ability, fits[1].ability)
