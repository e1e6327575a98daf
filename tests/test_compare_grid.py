"""One model for `evalsci compare` and the tapt study: evalsci.compare.grid is the Section 6
model as bambi builds it (LM types, subsamples, W or eq. 2), and its one-LM, no-subsample
case is the CLI's density (evalsci.compare.model).

- the grid's log density equals bambi's up to a constant at random points, after the exact
  integration of U and W (checked through the identity p(U, W, rest) = p(m, c, rest)
  p(T | m, c, rest)) and the coordinates' Jacobians;
- its gradient equals finite differences;
- on the CLI's case it is the CLI's density, value and gradient;
- the tapt backend "evalsci" (reparam.GridModel) maps its draws to bambi's names so that the
  linear predictor is the grid's, and finds the posterior PyMC's model finds.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm

from evalsci.compare.grid import Grid, GridDensity, Priors, _zero_sum_adjoint, starts_grid
from evalsci.compare.model import Cells, Density, starts

pytest.importorskip("bambi")

from test_tapt_reparam import DESIGNS, _bambi_logp, _bambi_natural, _data, _natural_point  # noqa: E402

from evalsci.stats import bayes  # noqa: E402
from evalsci.studies.tapt import hierarchical, reparam  # noqa: E402


def _random_grid(rng, L=2, J=5, K=4, task_treatment=True):
    """K = 0: no subsample term. LM 0 lacks one subsample of task 1 (K > 2), LM 1 the
    treatment rows of task 0 (L > 1)."""
    n = rng.integers(20, 100, (L, J, max(K, 1), 2))
    if K > 2:
        n[0, 1, 2, :] = 0
    if L > 1:
        n[1, 0, :, 1] = 0
    y = rng.binomial(n, rng.uniform(0.3, 0.8, (1, J, 1, 1)))
    pairs = tuple(map(str, range(K))) if K else None
    return Grid(tuple("abcdefgh"[:J]), tuple(f"lm{i}" for i in range(L)), pairs, y, n,
                task_treatment=task_treatment)  # fmt: skip


def test_the_clis_case_is_the_clis_density():
    rng = np.random.default_rng(1)
    J = 7
    n = rng.integers(15, 300, J)
    cells = Cells(tuple(map(str, range(J))), n, rng.binomial(n, 0.6), n, rng.binomial(n, 0.7))
    cm, cc = rng.random(J) < 0.5, rng.random(J) < 0.5
    cli = Density(cells, cm, cc)
    y = np.stack([cells.y_a, cells.y_b], -1)[None, :, None, :]
    nn = np.stack([cells.n_a, cells.n_b], -1)[None, :, None, :]
    grid = GridDensity(Grid(cells.tasks, ("one",), None, y, nn), cm, cc)
    assert grid.dim == cli.dim  # the same coordinates in the same order
    for _ in range(3):
        x = starts(cli, 1, 0)[0] + rng.normal(0, 0.3, cli.dim)
        (a, ga), (b, gb) = cli(x), grid(x)
        assert a == pytest.approx(b, abs=1e-9)
        np.testing.assert_allclose(ga, gb, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    "case",
    [
        dict(L=2, K=4, task_treatment=True),
        dict(L=2, K=4, task_treatment=False),
        dict(L=1, K=3, task_treatment=True),
        dict(L=3, K=0, task_treatment=True),
        dict(L=1, K=1, task_treatment=False),
    ],
)
def test_gradient_is_the_finite_difference(case):
    rng = np.random.default_rng(2)
    grid = _random_grid(rng, **case)
    J = len(grid.tasks)
    d = GridDensity(grid, rng.random(J) < 0.5, rng.random(J) < 0.5)
    for x in (starts_grid(d, 1, 3)[0], rng.normal(0, 0.5, d.dim)):
        lp, g = d(x)
        fd = np.array([(d(x + e)[0] - d(x - e)[0]) / 2e-6 for e in np.eye(d.dim) * 1e-6])
        assert np.max(np.abs(fd - g)) < 1e-5 * max(1.0, np.abs(g).max())


def _grid_point(model: reparam.GridModel, d: GridDensity, point) -> tuple[np.ndarray, float]:
    """bambi's parameters -> the grid's coordinates, and log p(T | m, c, rest) (the density
    of what the grid integrates out) minus the change of variables' Jacobians."""
    J = len(model.tasks)
    mu, beta = point["Intercept"], point["method"][0]
    t = mu + point[reparam.TASK].loc[model.tasks].to_numpy()
    v = np.array(
        [[point[reparam.PAIR].get(f"{a}:{p}", 0.0) for p in model.pairs] for a in model.tasks]
    )
    w = (
        np.array([[point[reparam.CELL][f"{a}:{m}"] for m in model.methods] for a in model.tasks])
        if d.W
        else np.zeros((J, 2))
    )
    s_u = point[f"{reparam.TASK}_sigma"]
    s_v = point[f"{reparam.PAIR}_sigma"]
    s_w = point[f"{reparam.CELL}_sigma"] if d.W else 0.0
    tau_m, tau_c = np.sqrt(s_u**2 + s_w**2 / 2), np.sqrt(2) * s_w
    mp = mu + d.b0 * beta
    m = t + w.mean(axis=1) + d.b0 * beta
    c = w[:, 1] - w[:, 0] + beta
    vbar = v.mean(axis=1)
    x = np.zeros(d.dim)
    x[0], x[1], x[2] = mu, beta, np.log(s_u)
    logs = [s_u, s_v]
    if d.W:
        x[d.i_w] = np.log(s_w)
        x[d.s_c] = np.where(d.cc, c, (c - beta) / tau_c)
        logs.append(s_w)
    x[d.i_v] = np.log(s_v)
    if d.L > 1:
        x[d.s_alpha] = point["lm_type"]
    x[d.s_m] = np.where(d.cm, m + vbar, (m - mp) / tau_m)
    x[d.s_vbar] = vbar
    x[d.s_d] = _zero_sum_adjoint(v - vbar[:, None]).ravel()
    extra = -np.log(logs).sum()  # the grid samples log sigma (Jacobian sigma)
    extra -= (~d.cm).sum() * np.log(tau_m)
    if d.W:
        extra -= (~d.cc).sum() * np.log(tau_c)
    if d.W:  # T_j | T_j + Wbar_j: normal, the part of (U, W) the grid integrates out
        wbar2 = s_w**2 / 2
        cond = mu + s_u**2 / tau_m**2 * (m - d.b0 * beta - mu)
        extra += norm.logpdf(t, cond, s_u * np.sqrt(wbar2) / tau_m).sum()
    # levels bambi lacks (if it drops a (task, subsample) without rows): the grid's V there
    # has its prior only
    levels = set(point[reparam.PAIR].index)
    absent = np.array([[f"{a}:{p}" not in levels for p in model.pairs] for a in model.tasks])
    extra -= norm.logpdf(v[absent], 0.0, s_v).sum()
    return x, extra


@pytest.mark.parametrize("case", DESIGNS)
def test_log_density_equals_bambis_up_to_a_constant(case):
    d_rows, ref = _bambi_natural(case)
    tt = case["task_treatment"]
    n_lms = d_rows["lm_type"].nunique()
    ours = reparam.GridModel(d_rows, task_treatment=tt)
    # the study's priors reach the grid (HalfNormal(3.5355) for sigma_W with two LM types)
    assert ours.grid.priors == Priors(
        alpha_sd=5.0, sigma_w=(3.5355 if n_lms > 1 else 2.5) if tt else Priors.sigma_w
    )
    rng = np.random.default_rng(1)
    J = len(ours.tasks)
    diffs = []
    for _ in range(6):
        d = GridDensity(ours.grid, rng.random(J) < 0.5, rng.random(J) < 0.5)
        point = _natural_point(rng, ref)
        x, extra = _grid_point(ours, d, point)
        diffs.append(d(x)[0] + extra - _bambi_logp(ref, point))
    # a wrong prior scale, centring, Jacobian or integration moves this by O(1) between points
    assert np.ptp(diffs) < 1e-6, diffs


def test_tapt_backend_draws_keep_bambis_names_and_linear_predictor():
    """The evalsci backend's posterior: bambi's variables, and eta from them (U, W drawn back
    from their conditional) equals eta from the grid's own parameters, draw by draw."""
    rows = _data(n_tasks=4, n_pairs=3, seed=4)
    model = reparam.GridModel(rows)
    settings = bayes.SamplerSettings(backend="evalsci", chains=2, draws=50, tune=50, seed=9)
    idata = bayes.fit(model, settings)
    post = idata.posterior
    assert {"Intercept", "method", "lm_type", reparam.TASK, reparam.CELL, reparam.PAIR} <= set(
        post.data_vars
    )
    assert idata.sample_stats["diverging"].shape == (2, 50)
    from evalsci.compare.fit import FitSettings, sample_cells

    fit = sample_cells(model.grid, FitSettings(chains=2, draws=50, tune=50, seed=9))
    g = fit.post
    eta = (
        g["cell"][..., model.j, model.x_level]
        - g["V"].mean(axis=-1)[..., model.j]
        + g["V"][..., model.j, model.k]
        + g["alpha"][..., 0, None] * model.zc
    )
    np.testing.assert_allclose(model.linear_predictor(post), eta, atol=1e-10)


def test_short_fit_finds_bambis_posterior():
    """The evalsci backend against nutpie on bambi's own model (as
    tests/test_tapt_reparam.py::test_short_fit_finds_bambis_posterior; PyMC's NUTS on this
    5-task design diverges dozens of times, no reference): beta's posterior means agree within
    MC error."""
    pytest.importorskip("nutpie")
    rows = _data(n_tasks=5, n_pairs=4, seed=3)
    kw = dict(chains=2, draws=1000, tune=500, seed=5)
    ours = bayes.summarize(
        bayes.fit(reparam.GridModel(rows), bayes.SamplerSettings(backend="evalsci", **kw)),
        "method[treatment]",
    )
    ref = bayes.summarize(
        bayes.fit(hierarchical.build(rows), bayes.SamplerSettings(backend="nutpie", **kw)),
        "method[treatment]",
    )
    mc = np.hypot(ours["mcse_mean"], ref["mcse_mean"])
    assert abs(ours["mean"] - ref["mean"]) < 4 * mc
    assert ours["sd"] == pytest.approx(ref["sd"], rel=0.3)
