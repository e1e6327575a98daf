"""The Section 6 model in the coordinates NUTS samples well: the same posterior, 5-15x cheaper.

`hierarchical.build` writes the authors' model as bambi builds it:

    logit(lambda_ijkl) = mu + alpha (z_i - z_bar) + U_j + V_jk + W_jl + beta (x_l - x_bar)

(bambi mean-centres the common predictors before the intercept's prior applies, so the same is
done here). Its coordinates are what the likelihood identifies worst. The data pin down each
task x method cell and each subsample to a few hundredths of a logit, but only through sums:
mu against the mean of the U_j, the U_j against the mean of each task's V_jk, and beta against
the W_jl. A diagonal mass matrix cannot follow those ridges, so NUTS needs 2^8 leapfrog steps
per draw on the boost fits of `m100_n500` (step size 0.016).

Here the same joint density is sampled in coordinates that make the ridges axes:

    Vbar_j = mean_k V_jk                      ~ N(0, sigma_V / sqrt(K))
    D_jk   = V_jk - Vbar_j                    ~ ZeroSumNormal(sigma_V)   (independent of Vbar_j)
    A_jl   = T_j + W_jl + beta (x_l - x_bar) + Vbar_j    cell log-odds, free (flat)
    delta_j = (mean_l A_jl - T_j - Vbar_j) / sigma_W     = mean_l W_jl / sigma_W, free (flat)

    logit(lambda_ijkl) = A_jl + alpha (z_i - z_bar) + D_jk

with T_j = mu + U_j and the W_jl recovered from them; their priors (T_j ~ N(mu, sigma_U),
W_jl ~ N(0, sigma_W)) enter as potentials. The data pin down A_jl and D_jk; delta_j is the
non-centred task mean of W, which removes the funnel between sigma_W and the task level when
sigma_W is small (the bias comparisons). Every map is linear given sigma_W (an iid normal
vector splits exactly into its mean and its zero-sum deviations; (mu, U, W) -> (T, A) is unit
triangular; delta adds log sigma_W per task to the density), so the posterior is the authors'
one: `tests/test_tapt_reparam.py` checks that the log density equals bambi's up to a constant
at random points. The paper's eq. 2 (no W_jl): S_j = T_j + Vbar_j is the free task log-odds
instead of A_jl and delta_j. The mean/zero-sum split needs the same subsamples in every task
(all released configurations have them); otherwise V_jk is sampled as it is, which is the
same model with slower mixing.

`fit` returns InferenceData named as bambi names it ("Intercept", "method", "lm_type",
"1|dataset", "1|dataset:method", "1|dataset:pair" and their "_sigma"), so diagnostics, tables
and figures read it unchanged; the sampling coordinates are dropped from it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from evalsci.studies.tapt import hierarchical
from evalsci.studies.tapt.columns import LONG_COLUMNS

# bambi's names of the group-level terms
TASK, CELL, PAIR = "1|dataset", "1|dataset:method", "1|dataset:pair"


def _zero_mean_normal_scale(spec, term: str):
    """The HalfNormal scale of a group term's N(0, sigma) prior (the only form reparametrised)."""
    sigma = spec.args.get("sigma")
    if (
        spec.dist != "Normal"
        or spec.args.get("mu", 0.0) != 0.0
        or getattr(sigma, "dist", None) != "HalfNormal"
    ):
        raise ValueError(
            f"{term}: the reparametrised model needs a Normal(0, HalfNormal) prior, got {spec}"
        )
    return float(sigma.args["sigma"])


class Layout:
    """The rows of one configuration and comparison (`hierarchical.long_format`) indexed as
    bambi's model indexes them: tasks, methods, LM types and pairs (subsamples) in bambi's
    level order, each row's (j, x, k), the centred dummies, the priors; and what both ways
    of sampling it share (the linear predictor, the posterior predictive)."""

    def __init__(self, long: pd.DataFrame, *, task_treatment: bool = True):
        missing = [c for c in LONG_COLUMNS if c not in long.columns]
        if missing:
            raise ValueError(f"long rows lack columns {missing}")
        self.long = long.reset_index(drop=True)
        self.task_treatment = task_treatment
        d = self.long
        self.tasks = sorted(d["dataset"].unique())
        self.methods = sorted(d["method"].unique())
        self.lms = sorted(d["lm_type"].unique())
        if len(self.methods) != 2:
            raise ValueError(f"the model compares two methods, got {self.methods}")
        self.pairs = sorted(d["pair"].unique(), key=lambda p: (len(str(p)), str(p)))
        self.priors = hierarchical.priors(len(self.lms), task_treatment)

        self.j = d["dataset"].map({t: i for i, t in enumerate(self.tasks)}).to_numpy()
        self.x_level = (d["method"] == self.methods[1]).to_numpy(int)
        self.k = d["pair"].map({p: i for i, p in enumerate(self.pairs)}).to_numpy()
        self.i = d["lm_type"].map({m: i for i, m in enumerate(self.lms)}).to_numpy()
        # bambi centres the common predictors' dummies before the intercept's prior applies.
        x = self.x_level.astype(float)
        self.x_bar = float(x.mean())
        self.xs = np.array([0.0, 1.0]) - self.x_bar  # centred treatment dummy per method level
        z = (d["lm_type"] == self.lms[-1]).to_numpy(float)
        self.zc = z - z.mean() if len(self.lms) > 1 else np.zeros(len(d))
        self.y = d["num_correct"].to_numpy(np.int64)
        self.n = d["num_test"].to_numpy(np.int64)
        J, K = len(self.tasks), len(self.pairs)
        present = np.zeros((J, K), bool)
        present[self.j, self.k] = True
        # the mean / zero-sum split of V needs every task to have every subsample
        self.split_v = bool(present.all())

    def linear_predictor(self, post) -> np.ndarray:
        """eta per (chain, draw, row) from bambi's parameters: eq. 2 with bambi's centring."""
        J = len(self.tasks)
        eta = (
            post["Intercept"].to_numpy()[..., None]
            + post["method"].to_numpy()[..., 0, None] * self.xs[self.x_level]
            + post[TASK].to_numpy()[..., self.j]
            + post[PAIR].to_numpy()[..., self.j * len(self.pairs) + self.k]
        )
        if len(self.lms) > 1:
            eta = eta + post["lm_type"].to_numpy()[..., 0, None] * self.zc
        if self.task_treatment:
            w = post[CELL].to_numpy().reshape(*eta.shape[:2], J, 2)
            eta = eta + w[..., self.j, self.x_level]
        return eta

    def predict_counts(self, post, rng: np.random.Generator) -> np.ndarray:
        """Posterior predictive Y per (chain, draw, row): Binomial(n, logistic(eta))."""
        from scipy.special import expit

        return rng.binomial(self.n, expit(self.linear_predictor(post)))

    def bambi_posterior(self, chain, draw, mu, beta, alpha, t, v, w, sigmas):
        """An xarray posterior named as bambi names it, from numpy draws (chain, draw, ...):
        mu, beta, alpha (lm_type; None with one LM type), the task log-odds t = mu + U_j,
        V (J, K), W (J, 2; None without the term) and {bambi's sigma name: draws}."""
        import xarray as xr

        J, K = len(self.tasks), len(self.pairs)
        dims = ("chain", "draw")
        out = {
            "Intercept": xr.DataArray(mu, dims=dims),
            "method": xr.DataArray(
                beta[..., None],
                dims=(*dims, "method_dim"),
                coords={"method_dim": [self.methods[1]]},
            ),
            TASK: xr.DataArray(
                t - mu[..., None],
                dims=(*dims, "dataset__factor_dim"),
                coords={"dataset__factor_dim": self.tasks},
            ),
        }
        # bambi's order of the variables (the diagnostics tables list them in it)
        sigmas = {k: xr.DataArray(np.asarray(val), dims=dims) for k, val in sigmas.items()}
        out.update({k: val for k, val in sigmas.items() if k != f"{CELL}_sigma"})
        pair_levels = [f"{task}:{p}" for task in self.tasks for p in self.pairs]
        out[PAIR] = xr.DataArray(
            v.reshape(*v.shape[:2], J * K),
            dims=(*dims, "dataset:pair__factor_dim"),
            coords={"dataset:pair__factor_dim": pair_levels},
        )
        if alpha is not None:
            out["lm_type"] = xr.DataArray(
                alpha, dims=(*dims, "lm_type_dim"), coords={"lm_type_dim": [self.lms[-1]]}
            )
        if w is not None:
            cell_levels = [f"{task}:{m}" for task in self.tasks for m in self.methods]
            out[CELL] = xr.DataArray(
                w.reshape(*w.shape[:2], 2 * J),
                dims=(*dims, "dataset:method__factor_dim"),
                coords={"dataset:method__factor_dim": cell_levels},
            )
            out[f"{CELL}_sigma"] = sigmas[f"{CELL}_sigma"]
        return xr.Dataset(out, coords={"chain": np.asarray(chain), "draw": np.asarray(draw)})


class ReparamModel(Layout):
    """The model of `hierarchical.build(long, task_treatment=...)`, sampled as described above.

    `noncentred_contrast` samples A_j1 - A_j0 = beta + sqrt(2) sigma_W eps_j through eps_j
    (another log sigma_W per task in the density): for contrasts smaller than a cell's
    precision (the bias comparisons). `fit(...)` takes bambi's `Model.fit` arguments, so
    `evalsci.stats.bayes.fit` runs it. `natural` repeats the coordinate maps in numpy rather
    than as PyMC deterministics, which the sampler would evaluate at every draw."""

    def __init__(
        self, long: pd.DataFrame, *, task_treatment: bool = True, noncentred_contrast: bool = False
    ):
        import pymc as pm
        import pytensor.tensor as pt

        super().__init__(long, task_treatment=task_treatment)
        self.noncentred_contrast = noncentred_contrast
        n_lms = len(self.lms)
        priors = self.priors
        J, K = len(self.tasks), len(self.pairs)
        y, n = self.y, self.n
        sig_u = _zero_mean_normal_scale(priors[TASK], TASK)
        sig_v = _zero_mean_normal_scale(priors[PAIR], PAIR)
        with pm.Model() as model:
            mu = pm.Normal("Intercept", **priors["Intercept"].args)
            beta = pm.Normal("method", **priors["method"].args)
            alpha = pm.Normal("lm_type", **priors["lm_type"].args) if n_lms > 1 else 0.0
            s_u = pm.HalfNormal(f"{TASK}_sigma", sig_u)
            s_v = pm.HalfNormal(f"{PAIR}_sigma", sig_v)
            if self.split_v:
                dev = pm.ZeroSumNormal("_D", sigma=s_v, shape=(J, K))
                pair_term = dev[self.j, self.k]
                vbar = pm.Normal("_Vbar", 0.0, s_v / np.sqrt(K), shape=J)
            else:
                v = pm.Normal("_V", 0.0, s_v, shape=(J, K))
                pair_term = v[self.j, self.k]
                vbar = pt.zeros(J)
            if task_treatment:
                s_w = pm.HalfNormal(f"{CELL}_sigma", _zero_mean_normal_scale(priors[CELL], CELL))
                delta = pm.Flat("_delta", shape=J)
                if noncentred_contrast:
                    # A_j1 - A_j0 = beta + sqrt(2) sigma_W eps_j (Jacobian sigma_W per task)
                    abar = pm.Flat("_Abar", shape=J)
                    eps = pm.Flat("_eps", shape=J)
                    half = (beta + np.sqrt(2.0) * s_w * eps) / 2
                    a = pt.stack([abar - half, abar + half], axis=1)
                    pm.Potential("_eps_jacobian", J * pt.log(s_w))
                else:
                    a = pm.Flat("_A", shape=(J, 2))
                # M_j = T_j + Vbar_j = mean_l A_jl - sigma_W delta_j (Jacobian sigma_W per task)
                m = a.mean(axis=1) - s_w * delta
                t = m - vbar
                w = a - m[:, None] - beta * self.xs
                pm.Potential(
                    "_W_prior", pm.logp(pm.Normal.dist(0.0, s_w), w).sum() + J * pt.log(s_w)
                )
                cell_term = a[self.j, self.x_level]
            else:
                # eq. 2: the task log-odds S_j = T_j + Vbar_j is free (unit Jacobian)
                s = pm.Flat("_S", shape=J)
                t = s - vbar
                cell_term = s[self.j] + beta * self.xs[self.x_level]
            pm.Potential("_T_prior", pm.logp(pm.Normal.dist(mu, s_u), t).sum())
            eta = cell_term + alpha * self.zc + pair_term
            # Binomial log-likelihood without log C(n, y), a constant: a third cheaper per
            # gradient than pm.Binomial, same posterior.
            pm.Potential("_loglik", pt.sum(y * eta - n * pt.softplus(eta)))
        self.model = model

    # -- bambi's Model.fit interface (evalsci.stats.bayes._fit calls it) ----------------------
    def fit(
        self,
        *,
        draws,
        tune,
        chains,
        cores,
        random_seed,
        inference_method,
        target_accept=0.8,
        progressbar=False,
        nuts_sampler_kwargs=None,
        **sample_kwargs,
    ):
        import pymc as pm

        with self.model:
            idata = pm.sample(
                draws=draws,
                tune=tune,
                chains=chains,
                cores=cores,
                random_seed=random_seed,
                nuts_sampler=inference_method,
                target_accept=target_accept,
                progressbar=progressbar,
                nuts_sampler_kwargs=nuts_sampler_kwargs or {},
                **sample_kwargs,
            )
        idata.posterior = self.natural(idata.posterior)
        return idata

    def natural(self, post):
        """The posterior in bambi's parameters (chain, draw, ...), sampling coordinates dropped."""
        mu = post["Intercept"]
        beta = post["method"]
        J = len(self.tasks)
        shape = beta.shape[:2]
        vbar = post["_Vbar"].to_numpy() if self.split_v else np.zeros((*shape, J))
        v = (vbar[..., None] + post["_D"].to_numpy()) if self.split_v else post["_V"].to_numpy()
        if self.task_treatment:
            if self.noncentred_contrast:
                half = (
                    beta.to_numpy()[..., None]
                    + np.sqrt(2.0)
                    * post[f"{CELL}_sigma"].to_numpy()[..., None]
                    * post["_eps"].to_numpy()
                ) / 2
                abar = post["_Abar"].to_numpy()
                a = np.stack([abar - half, abar + half], axis=-1)
            else:
                a = post["_A"].to_numpy()
            m = (
                a.mean(axis=-1)
                - post[f"{CELL}_sigma"].to_numpy()[..., None] * post["_delta"].to_numpy()
            )
            w = a - m[..., None] - beta.to_numpy()[..., None, None] * self.xs
        else:
            m = post["_S"].to_numpy()
        t = m - vbar
        sigmas = {f"{TASK}_sigma": post[f"{TASK}_sigma"], f"{PAIR}_sigma": post[f"{PAIR}_sigma"]}
        if self.task_treatment:
            sigmas[f"{CELL}_sigma"] = post[f"{CELL}_sigma"]
        alpha = post["lm_type"].to_numpy()[..., None] if len(self.lms) > 1 else None
        ds = self.bambi_posterior(
            post["chain"], post["draw"], mu.to_numpy(), beta.to_numpy(), alpha, t, v,
            w if self.task_treatment else None, sigmas,
        )  # fmt: skip
        ds.attrs = dict(post.attrs)
        return ds


class GridModel(Layout):
    """The same model sampled by `evalsci compare`'s function (backend "evalsci"):
    `evalsci.compare.fit.sample_cells` on an `evalsci.compare.grid.Grid` of the rows, the
    portable numpy NUTS on a density with an analytic gradient (no compilation; the same
    draws on every x86-64 CPU under the portable pins). There U_j and W_jl are integrated
    out; `natural` draws them back from their exact conditional normal given each draw's task
    mean and contrast (seeded), so the posterior keeps bambi's names and every table reads it
    unchanged. Each task's coordinates (centred or not) are chosen as for the CLI
    (`evalsci.compare.model.parametrise`), so config `tapt.bayes.noncentred_contrast` does
    not apply: on m100_n500's bias fit the rule's choice gave 3,309 bulk ESS of beta in 24
    CPU-s, every contrast non-centred 1,091 in 36."""

    def __init__(self, long: pd.DataFrame, *, task_treatment: bool = True):
        from evalsci.compare.grid import Grid, Priors

        super().__init__(long, task_treatment=task_treatment)
        if len(self.lms) > 2:
            raise ValueError(f"the tapt model has one or two LM types, got {self.lms}")
        L, J, K = len(self.lms), len(self.tasks), len(self.pairs)
        y = np.zeros((L, J, K, 2), np.int64)
        n = np.zeros((L, J, K, 2), np.int64)
        index = (self.i, self.j, self.k, self.x_level)
        if len(set(zip(*index, strict=True))) != len(self.long):
            raise ValueError("two rows share one (lm_type, dataset, pair, method)")
        y[index], n[index] = self.y, self.n
        p = self.priors
        for name in ("Intercept", "method", *(["lm_type"] if L > 1 else [])):
            if p[name].dist != "Normal" or p[name].args.get("mu", 0.0) != 0.0:
                raise ValueError(
                    f"{name}: the grid model needs a Normal(0, sd) prior, got {p[name]}"
                )
        priors = Priors(
            mu_sd=float(p["Intercept"].args["sigma"]),
            beta_sd=float(p["method"].args["sigma"]),
            alpha_sd=float(p["lm_type"].args["sigma"]) if L > 1 else Priors.alpha_sd,
            sigma_u=_zero_mean_normal_scale(p[TASK], TASK),
            sigma_w=_zero_mean_normal_scale(p[CELL], CELL) if task_treatment else Priors.sigma_w,
            sigma_v=_zero_mean_normal_scale(p[PAIR], PAIR),
        )
        self.grid = Grid(
            tuple(self.tasks), tuple(self.lms), tuple(map(str, self.pairs)), y, n,
            task_treatment=task_treatment, priors=priors,
        )  # fmt: skip

    # -- bambi's Model.fit interface (evalsci.stats.bayes._fit calls it) ----------------------
    def fit(self, *, draws, tune, chains, random_seed, target_accept=0.8, **_ignored):
        """One run of `evalsci.compare.fit.sample_cells`; chains one after another in this
        process (`cores` and the other samplers' options do not apply)."""
        import arviz as az
        import xarray as xr

        from evalsci.compare.fit import FitSettings, sample_cells

        settings = FitSettings(
            chains=chains, draws=draws, tune=tune, seed=random_seed, target_accept=target_accept
        )
        fit = sample_cells(self.grid, settings)
        stats = xr.Dataset(
            {"diverging": (("chain", "draw"), fit.divergent)},
            coords={"chain": np.arange(chains), "draw": np.arange(draws)},
        )
        return az.InferenceData(posterior=self.natural(fit.post, random_seed), sample_stats=stats)

    def natural(self, post: dict, seed: int):
        """bambi's parameters from the grid model's (`evalsci.compare.grid.natural_grid`)."""
        mu, beta = post["mu"], post["beta"]
        b0 = 0.5 - self.x_bar
        # the task's mean log-odds over its methods without V: T_j + mean_l W_jl
        total = post["m"] - (b0 * beta)[..., None]
        if self.task_treatment:
            s_u, s_w = post["sigma_U"][..., None], post["sigma_W"][..., None]
            s_wbar2 = 0.5 * s_w * s_w  # var of mean_l W_jl
            tau2 = s_u * s_u + s_wbar2
            # T_j | T_j + Wbar_j: the normal conditional of two independent normals given their sum
            mean = mu[..., None] + (s_u * s_u / tau2) * (total - mu[..., None])
            sd = s_u * np.sqrt(s_wbar2 / tau2)
            rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, 3])))
            t = mean + sd * rng.standard_normal(mean.shape)
            wbar, half = total - t, 0.5 * (post["theta"] - beta[..., None])
            w = np.stack([wbar - half, wbar + half], axis=-1)
        else:
            t, w = total, None
        sigmas = {f"{TASK}_sigma": post["sigma_U"], f"{PAIR}_sigma": post["sigma_V"]}
        if self.task_treatment:
            sigmas[f"{CELL}_sigma"] = post["sigma_W"]
        alpha = post["alpha"] if len(self.lms) > 1 else None
        chains, draws = beta.shape
        return self.bambi_posterior(
            np.arange(chains), np.arange(draws), mu, beta, alpha, t, post["V"], w, sigmas
        )


def model(
    long: pd.DataFrame, backend: str, *, task_treatment: bool = True, noncentred_contrast=False
) -> Layout:
    """The Section 6 model of `long` for the NUTS `backend` (config tapt.bayes.backend):
    `GridModel` for "evalsci" (which chooses its coordinates per task itself), else
    `ReparamModel` (PyMC's model, which PyMC, nutpie, numpyro and blackjax sample)."""
    if backend == "evalsci":
        return GridModel(long, task_treatment=task_treatment)
    return ReparamModel(
        long, task_treatment=task_treatment, noncentred_contrast=noncentred_contrast
    )
