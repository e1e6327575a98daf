"""Meta-analysis (Section 10, Figure 5): what would one unreplicated experiment conclude?

Each *slice* keeps one random subsample per (LM type, task), chosen independently for each
LM (as the authors' analysis/meta/meta.py does), drops the task, and fits

    p(num_correct, num_test) ~ method + lm_type + (1|pair)      (two LMs)
    p(num_correct, num_test) ~ method + (1|pair)                (one LM)

with Intercept N(0, 1), method N(0, 1), lm_type N(0, 5) (eq. 4; bambi's default for a
balanced two-level factor, which the authors left unset) and 1|pair N(0, HalfNormal(1)),
one chain of 1,000 draws after 500 tuning steps. The paper reports the share of slices whose
posterior mean of beta lies outside (-0.04, 0.04) (m = 100, n = 500) or (-0.07, 0.07)
(zero-shot).

Speed: the slices differ only in their data, so the model is written once in PyMC with
`pm.Data` containers, its log density and gradient compiled once (PyMC's NUTS, the default
under portable arithmetic; or nutpie's `with_data`) and re-sampled per slice;
this is the same density bambi builds (its common predictors are mean-centred before the
Intercept prior applies, so the same is done here), which `tests/test_tapt_meta.py` checks
against a bambi fit. The pair index space is fixed at (LMs x tasks) levels: when both LMs
happen to draw the same subsample of a task, they share a level (as in the authors' code)
and one level has no data and just follows its prior, which leaves beta untouched. The
authors' slices were unseeded; here slice i uses SeedSequence([seed, i]).
"""

from __future__ import annotations

import logging
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pandas as pd

from evalsci.pipeline.progress import progress_bar
from evalsci.studies.tapt.columns import META_COLUMNS, SLICE_COLUMNS
from evalsci.studies.tapt.data import COMPARISONS
from evalsci.studies.tapt.hierarchical import num_correct

log = logging.getLogger(__name__)


def draw_slice(acc: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    """One subsample per (LM, task), chosen independently per LM (sorted (LM, task) order)."""
    groups = acc.groupby(["lm", "dataset"], sort=True).indices
    picks = [rows[rng.integers(len(rows))] for rows in groups.values()]
    return acc.iloc[picks].reset_index(drop=True)


class SliceModel:
    """The slice model compiled once; `sample` refits it on another slice's data."""

    def __init__(self, lms: list[str], tasks: list[str], comparison: str):
        import pymc as pm

        self.lms, self.tasks, self.comparison = list(lms), list(tasks), comparison
        rows = 2 * len(self.lms) * len(self.tasks)
        self.n_pairs = len(self.lms) * len(self.tasks)
        with pm.Model() as model:
            y = pm.Data("y", np.zeros(rows, dtype="int64"))
            n = pm.Data("n", np.ones(rows, dtype="int64"))
            x = pm.Data("x", np.zeros(rows))  # 1 = treatment
            pair = pm.Data("pair", np.zeros(rows, dtype="int64"))
            intercept = pm.Normal("Intercept", 0.0, 1.0)
            beta = pm.Normal("beta", 0.0, 1.0)
            eta = intercept + beta * (x - x.mean())
            if len(self.lms) > 1:
                z = pm.Data("z", np.zeros(rows))  # 1 = second LM type
                alpha = pm.Normal("lm_type", 0.0, 5.0)
                eta = eta + alpha * (z - z.mean())
            sigma = pm.HalfNormal("pair_sigma", 1.0)
            offset = pm.Normal("pair_offset", 0.0, 1.0, shape=self.n_pairs)
            eta = eta + sigma * offset[pair]
            pm.Binomial("y_obs", n=n, logit_p=eta, observed=y)
        self.model = model
        # per backend: nutpie's compiled model, or PyMC's compiled log density and gradient
        self._compiled: dict[str, object] = {}

    def data(self, slice_: pd.DataFrame, counts: str = "round") -> dict[str, np.ndarray]:
        """Arrays of the slice in long form (control rows, then treatment rows)."""
        control, treatment = COMPARISONS[self.comparison]
        s = slice_.sort_values(["lm", "dataset"]).reset_index(drop=True)
        if list(s["lm"].unique()) != sorted(self.lms) or len(s) != len(self.lms) * len(self.tasks):
            raise ValueError("slice does not have one row per (LM, task) of the model")
        # Same subsample of a task = same pair (shared across LMs), as in the authors' code.
        keys = (s["dataset"] + ":" + s["subsample"].astype(str)).to_numpy()
        _, pair = np.unique(keys, return_inverse=True)
        y = np.concatenate(
            [num_correct(s[control], s["n"], counts), num_correct(s[treatment], s["n"], counts)]
        )
        k = len(s)
        out = {
            "y": y.astype("int64"),
            "n": np.tile(s["n"].to_numpy("int64"), 2),
            "x": np.repeat([0.0, 1.0], k),
            "pair": np.tile(pair.astype("int64"), 2),
        }
        if len(self.lms) > 1:
            out["z"] = np.tile((s["lm"] == sorted(self.lms)[-1]).to_numpy(float), 2)
        return out

    def sample(
        self,
        data: dict,
        *,
        draws: int,
        tune: int,
        seed: int,
        backend: str = "pymc",
        target_accept: float = 0.95,
    ):
        """One chain on `data`. backend "pymc": PyMC's NUTS on the log density and gradient
        compiled once (PyTensor C code, pinned under portable arithmetic), with a fresh step
        (step size and mass matrix adaptation start over) per slice; "nutpie": nutpie's
        compilation re-used `with_data` (faster, but its sampler's SIMD code depends on the
        CPU: docs/reproducibility.md)."""
        if backend == "nutpie":
            import nutpie

            if "nutpie" not in self._compiled:
                self._compiled["nutpie"] = nutpie.compile_pymc_model(self.model)
            compiled = self._compiled["nutpie"].with_data(**data)
            return nutpie.sample(
                compiled,
                draws=draws,
                tune=tune,
                chains=1,
                cores=1,
                seed=seed,
                progress_bar=False,
                target_accept=target_accept,
            )
        if backend != "pymc":
            raise ValueError(f"meta-analysis slices: backend {backend!r} is not pymc or nutpie")
        import pymc as pm

        with self.model:
            pm.set_data(data)
            if "pymc" not in self._compiled:  # data are shared variables: set_data reaches it
                # trust_input on the compiled function (evalsci.stats.bayes._backend_kwargs)
                self._compiled["pymc"] = self.model.logp_dlogp_function(
                    ravel_inputs=True, trust_input=True
                )
            step = pm.NUTS(logp_dlogp_func=self._compiled["pymc"], target_accept=target_accept)
            return pm.sample(
                draws=draws,
                tune=tune,
                chains=1,
                cores=1,
                step=step,
                random_seed=seed,
                progressbar=False,
                compute_convergence_checks=False,
            )


def _summarise(idata, hdi_prob: float = 0.89) -> dict:
    import arviz as az

    s = az.summary(idata, var_names=["beta"], hdi_prob=hdi_prob, round_to="none").iloc[0]
    lo, hi = (c for c in s.index if c.startswith("hdi_"))
    return {
        "mean": float(s["mean"]),
        "sd": float(s["sd"]),
        "hdi_5.5": float(s[lo]),
        "hdi_94.5": float(s[hi]),
        "ess_bulk": float(s["ess_bulk"]),
        "divergences": int(np.asarray(idata.sample_stats["diverging"]).sum()),
    }


def _run_slices(args) -> list[dict]:
    acc, comparison, indices, seed, draws, tune, counts, backend, target_accept = args
    import os

    os.environ.setdefault("OMP_NUM_THREADS", "1")
    lms = sorted(acc["lm"].unique())
    tasks = sorted(acc["dataset"].unique())
    model = SliceModel(lms, tasks, comparison)
    out = []
    for i in indices:
        rng = np.random.default_rng(np.random.SeedSequence([seed, i]))
        data = model.data(draw_slice(acc, rng), counts)
        idata = model.sample(
            data,
            draws=draws,
            tune=tune,
            seed=int(seed) * 1000 + int(i),
            backend=backend,
            target_accept=target_accept,
        )
        out.append({"slice": int(i), **_summarise(idata)})
    return out


def run_meta(
    acc: pd.DataFrame,
    *,
    comparison: str = "bias",
    n_slices: int,
    seed: int,
    draws: int = 1000,
    tune: int = 500,
    workers: int = 1,
    counts: str = "round",
    backend: str = "pymc",
    target_accept: float = 0.95,
) -> pd.DataFrame:
    """Fit `n_slices` unreplicated slices of one configuration; one row per slice. `backend`:
    the resolved config `tapt.bayes.backend` (pymc or nutpie; SliceModel.sample)."""
    config = acc["config"].iloc[0]
    if acc["config"].nunique() != 1:
        raise ValueError("run_meta needs the accuracies of one configuration")
    chunks = [list(range(i, n_slices, workers)) for i in range(workers)]
    jobs = [
        (acc, comparison, c, seed, draws, tune, counts, backend, target_accept) for c in chunks if c
    ]
    rows = []
    if workers == 1:
        rows = _run_slices(jobs[0])
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for part in progress_bar(
                pool.map(_run_slices, jobs), total=len(jobs), desc=f"meta {config}"
            ):
                rows.extend(part)
    out = pd.DataFrame(rows).sort_values("slice", ignore_index=True)
    out.insert(0, "comparison", comparison)
    out.insert(0, "config", config)
    return out[list(SLICE_COLUMNS)]


def meta_table(slices: pd.DataFrame, thresholds: dict[str, float]) -> pd.DataFrame:
    """P(|posterior mean of beta| > threshold) per configuration (Section 10)."""
    rows = []
    for config, g in slices.groupby("config", sort=False):
        t = thresholds[config]
        rows.append((config, t, float((g["mean"].abs() > t).mean()), len(g)))
    return pd.DataFrame(rows, columns=list(META_COLUMNS))
