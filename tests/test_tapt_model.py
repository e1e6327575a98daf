"""tapt: the Section 6 model as bambi builds it (formula, every prior, parametrisation)."""

from __future__ import annotations

import numpy as np
import pytest

from evalsci.stats import bayes
from evalsci.studies.tapt import hierarchical, simulate

pytest.importorskip("bambi")


def _prior(model, term):
    comp = model.components[model.family.likelihood.parent]
    t = (
        comp.intercept_term
        if term == "Intercept"
        else (comp.common_terms.get(term) or comp.group_specific_terms[term])
    )
    return t.prior


def _args(prior):
    return {k: (_args(v) if hasattr(v, "args") else float(v)) for k, v in prior.args.items()}


@pytest.fixture(scope="module")
def small():
    return simulate.simulate_counts(
        simulate.design(n_lms=2, n_tasks=4, n_pairs=3, n=100),
        beta=0.0,
        rng=np.random.default_rng(0),
    )


def test_formula_follows_the_authors():
    assert hierarchical.formula(2) == (
        "p(num_correct, num_test) ~ method + lm_type + (1|dataset/method) + (1|dataset/pair)"
    )
    assert hierarchical.formula(1) == (
        "p(num_correct, num_test) ~ method + (1|dataset/method) + (1|dataset/pair)"
    )
    # The paper's eq. 2: no task x treatment effect W.
    assert hierarchical.formula(2, task_treatment=False) == (
        "p(num_correct, num_test) ~ method + lm_type + (1|dataset) + (1|dataset/pair)"
    )


def test_built_model_has_exactly_the_papers_priors(small):
    model = hierarchical.build(small, task_treatment=True)
    assert set(bayes.term_names(model)) == {
        "Intercept",
        "method",
        "lm_type",
        "1|dataset",
        "1|dataset:method",
        "1|dataset:pair",
    }
    got = {t: (_prior(model, t).name, _args(_prior(model, t))) for t in bayes.term_names(model)}
    half = "sigma"
    assert got["Intercept"] == ("Normal", {"mu": 0.0, "sigma": 1.0})  # eq. 3
    assert got["method"] == ("Normal", {"mu": 0.0, "sigma": 1.0})  # eq. 7
    assert got["lm_type"] == ("Normal", {"mu": 0.0, "sigma": 5.0})  # eq. 4
    assert got["1|dataset"] == ("Normal", {"mu": 0.0, half: {"sigma": 1.0}})  # eqs. 5, 8
    assert got["1|dataset:pair"] == ("Normal", {"mu": 0.0, half: {"sigma": 1.0}})  # eqs. 6, 8
    assert got["1|dataset:method"] == ("Normal", {"mu": 0.0, half: {"sigma": 3.5355}})
    assert _prior(model, "1|dataset").args["sigma"].name == "HalfNormal"


def test_single_lm_drops_lm_type_and_narrows_w(small):
    one = small[small["lm_type"] == "bert"].reset_index(drop=True)
    model = hierarchical.build(one, task_treatment=True)
    assert "lm_type" not in bayes.term_names(model)
    assert float(_prior(model, "1|dataset:method").args["sigma"].args["sigma"]) == 2.5
    eq2 = hierarchical.build(one, task_treatment=False)
    assert "1|dataset:method" not in bayes.term_names(eq2)


def test_every_term_needs_an_explicit_prior(small):
    priors = hierarchical.priors(2)
    del priors["lm_type"]
    with pytest.raises(ValueError, match=r"missing \['lm_type'\]"):
        bayes.build_model(hierarchical.formula(2), small, priors)


def test_diagnostics_check_names_the_parameter():
    import pandas as pd

    diag = pd.DataFrame(
        {"r_hat": [1.0, 1.03], "ess_bulk": [1000.0, 300.0]},
        index=["method[test]", "1|dataset_sigma"],
    )
    th = bayes.Thresholds(max_r_hat=1.01, max_r_hat_nuisance=1.05, min_ess_bulk=400)
    with pytest.raises(bayes.DiagnosticsError, match=r"ess_bulk\[1\|dataset_sigma\]=300"):
        bayes.check_diagnostics(diag, 0, th, "cfg", primary=("method[test]",))
    with pytest.raises(bayes.DiagnosticsError, match=r"r_hat\[1\|dataset_sigma\]=1.030 > 1.01"):
        bayes.check_diagnostics(
            diag.assign(ess_bulk=1000.0), 0, th, "cfg", primary=("method[test]", "1|dataset_sigma")
        )
    with pytest.raises(bayes.DiagnosticsError, match="2 divergences"):
        bayes.check_diagnostics(diag.assign(ess_bulk=1000.0), 2, th, "cfg")
    bayes.check_diagnostics(diag.assign(ess_bulk=1000.0), 0, th, "cfg", primary=("method[test]",))


def test_failed_diagnostics_fail_loudly_on_released_data_only_by_default():
    from evalsci.studies.tapt.settings import resolve_on_failure

    assert resolve_on_failure("auto", recomputing=False) == "error"
    assert resolve_on_failure("auto", recomputing=True) == "warn"
    assert resolve_on_failure("error", recomputing=True) == "error"


def test_refit_reuses_the_nutpie_compilation_and_samples_identically(small, monkeypatch):
    """A refit after failed checks (more draws) must not recompile the model, and sampling
    from the reused compilation gives the draws a fresh compilation gives."""
    nutpie = pytest.importorskip("nutpie")
    calls = []
    original = nutpie.compile_pymc_model

    def counting(model, **kwargs):
        calls.append(model)
        return original(model, **kwargs)

    monkeypatch.setattr(nutpie, "compile_pymc_model", counting)
    settings = bayes.SamplerSettings(
        backend="nutpie", chains=2, draws=100, tune=100, seed=3, cores=1
    )
    model = hierarchical.build(small)
    first = bayes.fit(model, settings)
    again = bayes.fit(model, settings)
    assert len(calls) == 1
    np.testing.assert_array_equal(
        first.posterior["method"].values, again.posterior["method"].values
    )
    fresh = bayes.fit(hierarchical.build(small), settings)  # another model: compiled anew
    assert len(calls) == 2
    np.testing.assert_array_equal(
        first.posterior["method"].values, fresh.posterior["method"].values
    )


def test_mass_matrix_adaptation_is_chosen_per_comparison():
    """config tapt.bayes.variance_mass_matrix reaches nutpie per comparison (none by default:
    in the reparametrised coordinates nutpie's gradient-based adaptation mixes best)."""
    from evalsci.settings import resolved
    from evalsci.studies.tapt.settings import TaptSettings

    cfg = resolved({"portable": False})
    assert cfg["tapt"]["bayes"]["variance_mass_matrix"] == []
    cfg["tapt"]["bayes"]["variance_mass_matrix"] = ["boost"]
    b = TaptSettings.of(cfg).bayes
    assert b.backend == "nutpie"  # auto without portable arithmetic
    boost, _ = b.sampler(1, "boost")
    bias, _ = b.sampler(1, "bias")
    other, _ = b.sampler(1)  # recovery, meta: nutpie's default
    assert not boost.grad_mass_matrix and bias.grad_mass_matrix and other.grad_mass_matrix
    kw = bayes._backend_kwargs(boost)["nuts_sampler_kwargs"]
    assert kw["use_grad_based_mass_matrix"] is False
    assert "use_grad_based_mass_matrix" not in bayes._backend_kwargs(bias)["nuts_sampler_kwargs"]
