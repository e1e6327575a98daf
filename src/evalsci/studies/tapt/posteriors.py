"""Fit the Section 6 model to one configuration and comparison; beta and Section 6.2.

One fit gives:
- the posterior summary of beta (mean, sd, 89% HDI as in the authors' az.summary call),
  with r-hat, bulk ESS, MCSE and divergences;
- 4,000 posterior draws of beta;
- 4,000 draws of the posterior predictive average accuracy difference (Section 6.2, eq. 11):
  for every posterior draw, simulate every Y from the model, take (Y_treat - Y_ctrl) / n per
  (LM type, task, subsample) and average over all of them with equal weight.

Diagnostics are checked on the quantities the likelihood identifies: beta, lm_type, every
group-level sigma, and the per-task log-odds mu + U_j. The global intercept mu on its own is
only identified through mu + U_j (it slides along a ridge against the mean of the U_j); NUTS
in bambi's coordinates mixes it slowly (PyMC's own NUTS: bulk ESS ~250 of 4,000), so its
diagnostics are recorded but not enforced (in `reparam`'s coordinates it mixes well). Nothing
reported depends on mu alone.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np
import pandas as pd

from evalsci.stats import bayes
from evalsci.studies.tapt import hierarchical, reparam
from evalsci.studies.tapt.data import COMPARISONS

log = logging.getLogger(__name__)

# Model variants: the authors' code (with the task x treatment effect W_jl) and the paper's
# eq. 2 (without it).
VARIANTS = {"authors": True, "eq2": False}


@dataclass
class FitResult:
    summary: dict
    draws: pd.DataFrame  # chain, draw, beta, avg_diff
    diagnostics: pd.DataFrame


def posterior_predictive_avg_diff(
    model: reparam.Layout, idata, comparison: str, seed: int
) -> np.ndarray:
    """Section 6.2: per posterior draw, the average of (Y_treat - Y_ctrl) / n over all
    (LM type, task, subsample). Returns an array of shape (chain, draw)."""
    long = model.long
    control, treatment = COMPARISONS[comparison]
    key = ["lm_type", "dataset", "pair"]
    ctrl = long.index[long["method"] == control].to_numpy()
    treat = long.index[long["method"] == treatment].to_numpy()
    if (
        not long.loc[ctrl, key]
        .reset_index(drop=True)
        .equals(long.loc[treat, key].reset_index(drop=True))
    ):
        raise ValueError("control and treatment rows are not aligned by (lm_type, dataset, pair)")
    n = long["num_test"].to_numpy(float)
    out = []
    # One chain at a time keeps memory at draws x rows (not chains x draws x rows).
    for chain in idata.posterior["chain"].to_numpy():
        sub = idata.posterior.sel(chain=[chain])
        y = model.predict_counts(sub, np.random.default_rng(int(seed) + int(chain)))[0]
        diff = (y[:, treat] - y[:, ctrl]) / n[treat]
        out.append(diff.mean(axis=1))
    return np.stack(out)


def hdi(x: np.ndarray, prob: float = 0.89) -> tuple[float, float]:
    import arviz as az

    lo, hi = az.hdi(np.asarray(x).ravel(), hdi_prob=prob)
    return float(lo), float(hi)


def fit_one(
    acc: pd.DataFrame,
    comparison: str,
    variant: str,
    *,
    settings: bayes.SamplerSettings,
    thresholds: bayes.Thresholds,
    counts: str = "round",
    ppd: bool = True,
    on_failure: str = "error",
    max_draws: int | None = None,
    noncentred_contrast: bool = False,
) -> FitResult:
    """Fit one configuration (acc has one `config`) and comparison with one model variant.

    `noncentred_contrast`: sample the task x treatment contrast non-centred
    (`reparam`; config `tapt.bayes.noncentred_contrast`). `settings.backend` "evalsci" samples
    it with `evalsci compare`'s function (`reparam.GridModel`)."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown model variant {variant!r}; choose one of {list(VARIANTS)}")
    config = acc["config"].iloc[0]
    label = f"{config}/{comparison}/{variant}"
    long = hierarchical.long_format(acc, comparison, counts)
    model = reparam.model(
        long,
        settings.backend,
        task_treatment=VARIANTS[variant],
        noncentred_contrast=noncentred_contrast,
    )
    log.info(
        "%s: %d rows; %s (sampled as evalsci.studies.tapt.reparam)",
        label,
        len(long),
        hierarchical.formula(long["lm_type"].nunique(), VARIANTS[variant]),
    )
    beta = hierarchical.beta_name(comparison)
    checked = bayes.fit_checked(
        model,
        settings,
        thresholds,
        label,
        primary=(beta,),
        max_draws=max_draws,
        on_failure=on_failure,
        # mu + U_j per task is identified; the global intercept alone is not (README)
        extra=lambda idata: {"Intercept+1|dataset": bayes.intercept_plus_group(idata, "1|dataset")},
    )
    idata, diag = checked.idata, checked.diagnostics
    intercept = bayes.diagnostics(idata, ["Intercept"]).iloc[0]
    # Sampling time goes to the log, not the table: a wall time would make two runs' tables
    # differ in bytes while every posterior number is identical.
    log.info("%s sampled in %.1f s", label, idata.posterior.attrs["sampling_seconds"])
    log.info(
        "%s diagnostics:\n%s\nIntercept alone (not enforced): r_hat %.3f ess_bulk %.0f",
        label,
        diag.to_string(),
        intercept["r_hat"],
        intercept["ess_bulk"],
    )

    s = bayes.summarize(idata, beta, hdi_prob=0.89)
    b = bayes.scalar_draws(idata, beta)
    chain, draw = np.meshgrid(b["chain"].to_numpy(), b["draw"].to_numpy(), indexing="ij")
    draws = pd.DataFrame(
        {
            "chain": chain.ravel(),
            "draw": draw.ravel(),
            "beta": b.transpose("chain", "draw").to_numpy().ravel(),
        }
    )
    summary = {
        "config": config,
        "comparison": comparison,
        "variant": variant,
        "mean": s["mean"],
        "sd": s["sd"],
        "hdi_5.5": s["hdi_low"],
        "hdi_94.5": s["hdi_high"],
        "r_hat": s["r_hat"],
        "ess_bulk": s["ess_bulk"],
        "divergences": bayes.divergences(idata),
        "mcse_mean": s["mcse_mean"],
        "ppd_mean": np.nan,
        "ppd_hdi_5.5": np.nan,
        "ppd_hdi_94.5": np.nan,
        "n_rows": len(long),
        "backend": settings.backend,
        "draws_per_chain": checked.draws,
        "intercept_r_hat": float(intercept["r_hat"]),
        "intercept_ess_bulk": float(intercept["ess_bulk"]),
        "diagnostics_ok": checked.ok,
    }
    if ppd:
        avg = posterior_predictive_avg_diff(model, idata, comparison, settings.seed)
        draws["avg_diff"] = avg.ravel()  # same (chain, draw) order as to_dataframe
        summary["ppd_mean"] = float(avg.mean())
        summary["ppd_hdi_5.5"], summary["ppd_hdi_94.5"] = hdi(avg)
    return FitResult(summary=summary, draws=draws, diagnostics=diag.reset_index(names="param"))
