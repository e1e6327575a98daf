"""evalsci.stats.nutpie_compile: nutpie's callbacks compiled without numba's error-message
machinery must give nutpie's draws bit for bit, and must apply to the installed nutpie."""

import numpy as np
import pytest

pm = pytest.importorskip("pymc")
nutpie = pytest.importorskip("nutpie")

from evalsci.stats import nutpie_compile  # noqa: E402


def _model():
    # eight schools, non-centred, with a Potential and a Deterministic: the expansion then
    # writes more values than there are free parameters
    y = np.array([28.0, 8.0, -3.0, 7.0, -1.0, 1.0, 18.0, 12.0])
    sd = np.array([15.0, 10.0, 16.0, 11.0, 9.0, 11.0, 10.0, 18.0])
    with pm.Model() as m:
        mu = pm.Normal("mu", 0.0, 5.0)
        tau = pm.HalfNormal("tau", 5.0)
        z = pm.Normal("z", 0.0, 1.0, shape=8)
        theta = pm.Deterministic("theta", mu + tau * z)
        pm.Potential("lik", pm.logp(pm.Normal.dist(theta, sd), y).sum())
    return m


def _draws(compiled):
    trace = nutpie.sample(compiled, draws=200, tune=200, chains=2, seed=7, progress_bar=False)
    return {v: trace.posterior[v].to_numpy() for v in ("mu", "tau", "z", "theta")}


def test_the_installed_nutpie_is_patched():
    import nutpie.compile_pymc as module

    # fails when nutpie's private helpers change: review nutpie_compile against the new ones
    assert nutpie_compile._patchable(module)


def test_lean_callbacks_give_nutpies_draws_bit_for_bit():
    stock = _draws(nutpie.compile_pymc_model(_model()))
    with nutpie_compile.lean_callbacks():
        compiled = nutpie.compile_pymc_model(_model())
        import nutpie.compile_pymc as module

        assert module._make_c_logp_func is nutpie_compile._make_c_logp_func
    lean = _draws(compiled)
    for v in stock:
        np.testing.assert_array_equal(lean[v], stock[v], err_msg=v)
    # restored afterwards
    assert module._make_c_logp_func is not nutpie_compile._make_c_logp_func


def test_an_unknown_nutpie_is_left_alone(monkeypatch):
    import nutpie.compile_pymc as module

    def other(n_dim, logp_fn):  # a future nutpie's helper with other arguments
        raise AssertionError("not called")

    monkeypatch.setattr(module, "_make_c_logp_func", other)
    with nutpie_compile.lean_callbacks():
        assert module._make_c_logp_func is other
