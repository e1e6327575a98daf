"""Bambi model building, fitting and MCMC diagnostics, with explicit priors and loud failures.

- `build_model` refuses to build unless every term of the formula has a prior given by the
  caller: bambi's automatic priors depend on the data (they are scaled by it), so relying on
  them silently changes a model when the data change.
- `fit` runs NUTS through bambi with a named backend: "pymc" (PyMC's own NUTS, the authors'
  choice), "nutpie" (Rust NUTS on a numba-compiled log density; several times faster here),
  or "numpyro"/"blackjax" when jax is installed.
- `check_diagnostics` raises `DiagnosticsError` naming the model, the parameter and the value
  when r-hat, bulk ESS or divergences cross the configured thresholds.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import time
import weakref
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from evalsci.stats.nutpie_compile import lean_callbacks

log = logging.getLogger(__name__)

# "evalsci": evalsci.stats.nuts on a model that brings its own numpy density (its `fit`
# ignores the other samplers' options), e.g. evalsci.studies.tapt.reparam.GridModel
BACKENDS = ("nutpie", "pymc", "numpyro", "blackjax", "evalsci")


class DiagnosticsError(RuntimeError):
    """An MCMC fit did not pass its convergence checks."""


@dataclass(frozen=True)
class PriorSpec:
    """A prior as plain data: distribution name and arguments; a nested PriorSpec is a hyperprior.

    Kept independent of bambi so that configs and tests can state priors without importing it.
    """

    dist: str
    args: dict = field(default_factory=dict)

    def to_bambi(self):
        import bambi as bmb

        kwargs = {k: v.to_bambi() if isinstance(v, PriorSpec) else v for k, v in self.args.items()}
        return bmb.Prior(self.dist, **kwargs)

    def __str__(self) -> str:
        inner = ", ".join(f"{k}={v}" for k, v in self.args.items())
        return f"{self.dist}({inner})"


@dataclass(frozen=True)
class SamplerSettings:
    backend: str = "nutpie"
    chains: int = 4
    draws: int = 1000
    tune: int = 500
    seed: int = 123
    cores: int = 1
    # nutpie only: a low-rank correction to the diagonal mass matrix, which captures the
    # intercept / group-mean ridge of models with a random intercept.
    low_rank: bool = False
    # nutpie only: adapt the diagonal mass matrix from the gradients' and draws' variances
    # (nutpie's default) or, False, from the draws' variances alone (as PyMC and Stan do). The
    # latter costs more gradient evaluations per draw; it mixed the ridges of bambi's tapt boost
    # model better, which the reparametrised model (tapt.reparam) no longer has.
    grad_mass_matrix: bool = True
    # NUTS's target acceptance rate (0.8: PyMC's and nutpie's default); higher = smaller steps,
    # the standard remedy for divergences on small, weakly identified designs.
    target_accept: float = 0.8

    def __post_init__(self):
        if self.backend not in BACKENDS:
            raise ValueError(f"unknown NUTS backend {self.backend!r}; choose one of {BACKENDS}")


@dataclass(frozen=True)
class Thresholds:
    """Convergence thresholds. The reported parameters get `max_r_hat` (Vehtari et al. 2021:
    1.01); nuisance parameters (group-level sigmas near zero mix slower) get
    `max_r_hat_nuisance`. Bulk ESS and divergences apply to every checked parameter."""

    max_r_hat: float = 1.01
    max_r_hat_nuisance: float = 1.05
    min_ess_bulk: float = 400.0
    max_divergences: int = 0


def term_names(model) -> list[str]:
    """Names of every term of a built bambi model's response component (priors are keyed so)."""
    comp = model.components[model.family.likelihood.parent]
    names = list(comp.common_terms) + list(comp.group_specific_terms)
    if comp.intercept_term is not None:
        names.insert(0, "Intercept")
    return names


def build_model(
    formula: str,
    data: pd.DataFrame,
    priors: dict[str, PriorSpec],
    *,
    family: str = "binomial",
    noncentered: bool = True,
):
    """A built bambi model whose every term has the prior given in `priors` (no bambi
    defaults)."""
    import bambi as bmb

    model = bmb.Model(
        formula,
        data,
        family=family,
        priors={k: p.to_bambi() for k, p in priors.items()},
        noncentered=noncentered,
    )
    terms = term_names(model)
    missing = [t for t in terms if t not in priors]
    unused = [p for p in priors if p not in terms]
    if missing or unused:
        raise ValueError(
            f"priors must be given for exactly the terms of {formula!r}: "
            f"missing {missing}, not in the formula {unused}"
        )
    model.build()
    return model


def _backend_kwargs(settings: SamplerSettings) -> dict:
    if settings.backend == "evalsci":
        return {}
    if settings.backend == "nutpie":
        kwargs = {"low_rank_modified_mass_matrix": settings.low_rank}
        if not settings.grad_mass_matrix:
            kwargs["use_grad_based_mass_matrix"] = False
        return {"progressbar": False, "nuts_sampler_kwargs": kwargs}
    if settings.backend in ("numpyro", "blackjax"):
        # jax needs one host device per chain to run chains in parallel.
        flags = os.environ.get("XLA_FLAGS", "")
        if "xla_force_host_platform_device_count" not in flags:
            os.environ["XLA_FLAGS"] = (
                f"{flags} --xla_force_host_platform_device_count={settings.chains}".strip()
            )
        return {"progressbar": False, "nuts_sampler_kwargs": {"chain_method": "parallel"}}
    # PyMC's own NUTS: its init_nuts sets `trust_input` on the ValueGradFunction wrapper, where
    # it does nothing (PyMC 5.28), so every leapfrog step re-checks its input's type. Set on
    # the compiled function itself it skips that check: the same draws, ~10% less time.
    return {"progressbar": False, "compile_kwargs": {"trust_input": True}}


# nutpie compilations by PyMC model: a refit of the same bambi model (more draws after a
# failed check) samples the already compiled log density instead of paying numba's
# compilation again (8.6 s for the m100_n500 tapt model, whose 1,000 draws then take 12 s).
# Weak keys: an entry goes with its model.
_NUTPIE_COMPILED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


@contextlib.contextmanager
def _reuse_nutpie_compilation():
    """While active, PyMC's nutpie path (`pm.sample(nuts_sampler="nutpie")` calls
    `nutpie.compile_pymc_model(model, ...)` on every call) reuses earlier compilations."""
    import nutpie

    original = nutpie.compile_pymc_model

    def compile_once(model, **kwargs):
        key = repr(sorted(kwargs.items()))
        per_model = _NUTPIE_COMPILED.setdefault(model, {})
        if key not in per_model:
            with lean_callbacks():  # the same draws, 2.3 s less compilation
                per_model[key] = original(model, **kwargs)
        return per_model[key]

    nutpie.compile_pymc_model = compile_once
    try:
        yield
    finally:
        nutpie.compile_pymc_model = original


def fit(model, settings: SamplerSettings):
    """Sample the posterior with NUTS; returns arviz InferenceData (sampling time in attrs)."""
    start = time.perf_counter()
    reuse = (
        _reuse_nutpie_compilation() if settings.backend == "nutpie" else contextlib.nullcontext()
    )
    with reuse:
        idata = _fit(model, settings)
    idata.posterior.attrs["sampling_seconds"] = time.perf_counter() - start
    idata.posterior.attrs["backend"] = settings.backend
    return idata


def _fit(model, settings: SamplerSettings):
    return model.fit(
        draws=settings.draws,
        tune=settings.tune,
        chains=settings.chains,
        cores=settings.cores,
        random_seed=settings.seed,
        inference_method=settings.backend,
        target_accept=settings.target_accept,
        **_backend_kwargs(settings),
    )


def divergences(idata) -> int:
    return int(np.asarray(idata.sample_stats["diverging"]).sum())


def scalar_params(idata) -> list[str]:
    """Posterior variables worth a convergence check: common effects and group-level sigmas
    (not the hundreds of individual group effects, nor deterministics of the likelihood)."""
    return [
        name for name in idata.posterior.data_vars if "|" not in name or name.endswith("_sigma")
    ]


def intercept_plus_group(idata, term: str, intercept: str = "Intercept"):
    """Intercept + each level of a group-level intercept term (e.g. mu + U_j).

    With a random intercept, the likelihood identifies only these sums; the global intercept
    alone moves along a ridge against the mean of the group effects, which every NUTS
    variant here explores slowly (PyMC's included). The sums are what predictions use.
    """
    post = idata.posterior
    return post[intercept] + post[term]


def diagnostics(
    idata, var_names: list[str] | None = None, extra: dict | None = None
) -> pd.DataFrame:
    """r-hat, bulk/tail ESS and MCSE per scalar parameter (one row per coordinate).

    `extra` maps names to derived posterior DataArrays (dims chain, draw, ...) to check too.
    """
    import arviz as az
    import xarray as xr

    var_names = var_names or scalar_params(idata)
    ds = idata.posterior[var_names]
    if extra:
        ds = xr.merge([ds, xr.Dataset(extra)], compat="override", join="exact")
    return az.summary(ds, kind="diagnostics", round_to="none")


def check_diagnostics(
    diag: pd.DataFrame,
    n_divergent: int,
    thresholds: Thresholds,
    label: str,
    primary: tuple[str, ...] = (),
) -> None:
    """Raise DiagnosticsError (naming model, parameter and value) on any failed check.

    Rows named in `primary` must reach `max_r_hat`; the others `max_r_hat_nuisance`."""
    problems = []
    for name, row in diag.iterrows():
        limit = thresholds.max_r_hat if name in primary else thresholds.max_r_hat_nuisance
        if not row["r_hat"] <= limit:
            problems.append(f"r_hat[{name}]={row['r_hat']:.3f} > {limit}")
        if not row["ess_bulk"] >= thresholds.min_ess_bulk:
            problems.append(f"ess_bulk[{name}]={row['ess_bulk']:.0f} < {thresholds.min_ess_bulk}")
    if n_divergent > thresholds.max_divergences:
        problems.append(f"{n_divergent} divergences > {thresholds.max_divergences}")
    if problems:
        raise DiagnosticsError(f"{label}: MCMC diagnostics failed: " + "; ".join(problems))


@dataclass
class CheckedFit:
    idata: object
    diagnostics: pd.DataFrame  # one row per checked parameter (mcse, ess, r_hat)
    draws: int  # per chain, of the fit that was kept
    ok: bool  # passed every check


def fit_checked(
    model,
    settings: SamplerSettings,
    thresholds: Thresholds,
    label: str,
    *,
    primary: tuple[str, ...] = (),
    max_draws: int | None = None,
    on_failure: str = "error",
    extra=None,
) -> CheckedFit:
    """`fit`, then `check_diagnostics` on every scalar parameter but the global intercept
    (plus `extra(idata)`: {name: draws}). A fit that fails its checks without divergences is
    refitted with twice the draws, up to `max_draws` per chain (slow-mixing ridges need more
    draws, not another sampler; a refit reuses nutpie's compilation). Still failing:
    `on_failure` "error" raises DiagnosticsError, "warn" logs and returns ok=False."""
    if on_failure not in ("error", "warn"):
        raise ValueError(f"on_failure must be error or warn, not {on_failure!r}")
    max_draws = max_draws or settings.draws
    n_draws = settings.draws
    while True:
        idata = fit(model, dataclasses.replace(settings, draws=n_draws))
        log.info(
            "%s: %d draws per chain sampled in %.1f s with %s",
            label,
            n_draws,
            idata.posterior.attrs["sampling_seconds"],
            settings.backend,
        )
        checked = [v for v in scalar_params(idata) if v != "Intercept"]
        diag = diagnostics(idata, checked, extra=extra(idata) if extra else None)
        n_div = divergences(idata)
        try:
            check_diagnostics(diag, n_div, thresholds, label, primary=primary)
            return CheckedFit(idata, diag, n_draws, True)
        except DiagnosticsError as err:
            if n_draws * 2 <= max_draws and n_div <= thresholds.max_divergences:
                log.warning("%s; refitting with %d draws per chain", err, n_draws * 2)
                n_draws *= 2
                continue
            if on_failure == "error":
                raise
            log.warning("continuing although diagnostics failed (on_failure = warn)", exc_info=True)
            return CheckedFit(idata, diag, n_draws, False)


def scalar_draws(idata, label: str):
    """Draws (chain, draw) of one scalar named as az.summary names it: "var" or "var[level]"."""
    var, _, level = label.partition("[")
    da = idata.posterior[var]
    extra = [d for d in da.dims if d not in ("chain", "draw")]
    if level:
        if len(extra) != 1:
            raise ValueError(f"{label!r}: {var} has dims {da.dims}")
        da = da.sel({extra[0]: level.rstrip("]")})
    elif extra:
        raise ValueError(f"{label!r} is not a scalar (dims {da.dims})")
    return da


def summarize(idata, label: str, hdi_prob: float = 0.89) -> dict:
    """Posterior mean, sd, HDI bounds, MCSE and diagnostics of one scalar ("var[level]")."""
    import arviz as az

    s = az.summary(idata, var_names=[label.partition("[")[0]], hdi_prob=hdi_prob, round_to="none")
    if label not in s.index:
        raise ValueError(f"{label!r} not in the posterior summary (rows: {list(s.index)})")
    row = s.loc[label]
    lo, hi = (c for c in s.columns if c.startswith("hdi_"))
    return {
        "mean": float(row["mean"]),
        "sd": float(row["sd"]),
        "hdi_low": float(row[lo]),
        "hdi_high": float(row[hi]),
        "mcse_mean": float(row["mcse_mean"]),
        "r_hat": float(row["r_hat"]),
        "ess_bulk": float(row["ess_bulk"]),
        "divergences": divergences(idata),
    }
