"""tapt meta-analysis: the compiled-once slice model is the density bambi builds."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalsci.stats.bayes import PriorSpec, build_model
from evalsci.studies.tapt import meta

pytest.importorskip("bambi")


def _fake_accuracies(n_tasks=4, n_sub=5, n=100, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for lm in ("bert", "gpt2"):
        for j in range(n_tasks):
            for k in range(n_sub):
                base, extra, test = rng.integers(20, 90, 3) / n
                rows.append(("m100_n100", "main", 100, n, lm, f"task{j}", k, base, extra, test))
    return pd.DataFrame(
        rows,
        columns=[
            "config",
            "family",
            "m",
            "n",
            "lm",
            "dataset",
            "subsample",
            "base",
            "extra",
            "test",
        ],
    )


def test_slice_picks_one_subsample_per_lm_and_task():
    acc = _fake_accuracies()
    s = meta.draw_slice(acc, np.random.default_rng(1))
    assert len(s) == 8 and not s.duplicated(["lm", "dataset"]).any()
    again = meta.draw_slice(acc, np.random.default_rng(1))
    assert s.equals(again)


def test_slice_model_logp_equals_bambi(tmp_path):
    acc = _fake_accuracies()
    # A slice where BERT and GPT-2 share the subsample of task0 (one shared pair level).
    s = acc.groupby(["lm", "dataset"]).nth(0).reset_index(drop=True)
    s.loc[(s["lm"] == "gpt2") & (s["dataset"] != "task0"), "subsample"] = 3
    s = s.merge(acc, on=["lm", "dataset", "subsample"], suffixes=("_x", ""))[acc.columns]
    model = meta.SliceModel(["bert", "gpt2"], ["task0", "task1", "task2", "task3"], "bias")
    d = model.data(s)
    # The same slice in bambi's terms: p(num_correct, num_test) ~ method + lm_type + (1|pair).
    long = pd.DataFrame(
        {
            "num_correct": d["y"],
            "num_test": d["n"],
            "method": np.where(d["x"] == 1, "test", "extra"),
            "lm_type": np.where(d["z"] == 1, "gpt2", "bert"),
            "pair": [f"p{i:02d}" for i in d["pair"]],
        }
    )
    priors = {
        "Intercept": PriorSpec("Normal", {"mu": 0.0, "sigma": 1.0}),
        "method": PriorSpec("Normal", {"mu": 0.0, "sigma": 1.0}),
        "lm_type": PriorSpec("Normal", {"mu": 0.0, "sigma": 5.0}),
        "1|pair": PriorSpec(
            "Normal", {"mu": 0.0, "sigma": PriorSpec("HalfNormal", {"sigma": 1.0})}
        ),
    }
    bm = build_model("p(num_correct, num_test) ~ method + lm_type + (1|pair)", long, priors)
    n_levels = long["pair"].nunique()
    assert n_levels == 7  # 8 (LM, task) rows, task0 shared
    import pymc as pm

    rng = np.random.default_rng(2)
    ours_logp = model.model.compile_logp()
    theirs_logp = bm.backend.model.compile_logp()
    with model.model:
        pm.set_data(d)
    for _ in range(3):
        b0, beta, alpha, log_sigma = rng.normal(0, 0.5, 4)
        offsets = rng.normal(0, 1, model.n_pairs)
        ours = ours_logp(
            {
                "Intercept": b0,
                "beta": beta,
                "lm_type": alpha,
                "pair_sigma_log__": log_sigma,
                "pair_offset": offsets,
            }
        )
        theirs = theirs_logp(
            {
                "Intercept": b0,
                "method": [beta],
                "lm_type": [alpha],
                "1|pair_sigma_log__": log_sigma,
                "1|pair_offset": offsets[:n_levels],
            }
        )
        # The unused pair level only adds its N(0, 1) prior term.
        unused = -0.5 * offsets[n_levels:] ** 2 - 0.5 * np.log(2 * np.pi)
        assert float(ours) == pytest.approx(float(theirs) + unused.sum(), rel=1e-9)


def test_meta_table_threshold():
    slices = pd.DataFrame({"config": ["a"] * 4, "mean": [-0.05, 0.01, 0.03, 0.06]})
    t = meta.meta_table(slices, {"a": 0.04})
    assert t.loc[0, "p_outside"] == 0.5 and t.loc[0, "n_slices"] == 4


def test_a_slice_sampled_after_another_equals_it_sampled_alone():
    """The PyMC path compiles the density once and samples every slice on it with a fresh NUTS
    step: slice B's draws after slice A equal B's on a fresh model (the new data reached the
    compiled function, and no step size or mass matrix carried over), so a slice's result
    does not depend on which worker fitted which slices before it."""
    acc = _fake_accuracies()
    lms, tasks = ["bert", "gpt2"], ["task0", "task1", "task2", "task3"]
    a, b = (meta.draw_slice(acc, np.random.default_rng(k)) for k in (1, 2))
    reused = meta.SliceModel(lms, tasks, "bias")
    kw = {"draws": 40, "tune": 40, "backend": "pymc"}
    first = reused.sample(reused.data(a), seed=7, **kw)
    after = reused.sample(reused.data(b), seed=8, **kw)
    fresh = meta.SliceModel(lms, tasks, "bias")
    alone = fresh.sample(fresh.data(b), seed=8, **kw)
    beta = lambda idata: idata.posterior["beta"].values  # noqa: E731
    assert np.array_equal(beta(after), beta(alone))
    assert not np.array_equal(beta(first), beta(after))


def test_pymc_trusts_its_input_and_draws_the_same():
    """PyMC's NUTS runs on a compiled log density that skips its per-call input type check
    (`trust_input`; PyMC sets it on a wrapper where it does nothing): set where it acts, for
    the Section 6 fits (evalsci.stats.bayes) and the slices, with the same draws as without."""
    import pymc as pm

    from evalsci.stats import bayes

    kwargs = bayes._backend_kwargs(bayes.SamplerSettings(backend="pymc"))
    with pm.Model() as model:
        mu = pm.Normal("mu", 0.0, 1.0)
        pm.Normal("y", mu, 1.0, observed=np.array([0.3, -0.2, 0.8]))
        _, step = pm.init_nuts(
            model=model, random_seed=[1], compile_kwargs=kwargs["compile_kwargs"]
        )
    assert step._logp_dlogp_func._pytensor_function.trust_input

    def draws(compile_kwargs):
        with model:
            idata = pm.sample(
                draws=30,
                tune=30,
                chains=1,
                random_seed=3,
                progressbar=False,
                compute_convergence_checks=False,
                compile_kwargs=compile_kwargs,
            )
        return idata.posterior["mu"].values

    assert np.array_equal(draws(kwargs["compile_kwargs"]), draws(None))

    acc = _fake_accuracies()
    slice_model = meta.SliceModel(["bert", "gpt2"], ["task0", "task1", "task2", "task3"], "bias")
    slice_model.sample(
        slice_model.data(meta.draw_slice(acc, np.random.default_rng(1))),
        draws=5,
        tune=5,
        seed=1,
        backend="pymc",
    )
    assert slice_model._compiled["pymc"]._pytensor_function.trust_input
