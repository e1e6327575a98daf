"""Appendix E.1: prior predictive checks (Figure 7) and recovery of simulated effects (Figure 8).

- Prior predictive: draw accuracies Y/n from the model's prior on the design of a real
  configuration (m = 100, n = 200 in the paper), under the paper's priors and under the
  wide automatic priors bambi would have chosen (which the paper calls scientifically
  unreasonable: they put most mass near accuracies 0 and 1).
- Recovery: simulate Y from the generative model on the same design with known parameters,
  once with beta = 0 (null) and once with beta != 0, fit the same model, and check that the
  89% HDI of beta covers the truth.
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd

from evalsci.stats import bayes
from evalsci.studies.tapt import hierarchical, reparam
from evalsci.studies.tapt.columns import LONG_COLUMNS, RECOVERY_COLUMNS

log = logging.getLogger(__name__)


def design(n_lms: int, n_tasks: int, n_pairs: int, n: int) -> pd.DataFrame:
    """The long-format design of a configuration (counts to be filled in)."""
    lms = ["bert", "gpt2"][:n_lms] if n_lms <= 2 else [f"lm{i}" for i in range(n_lms)]
    idx = pd.MultiIndex.from_product(
        [
            lms,
            [f"task{j:02d}" for j in range(n_tasks)],
            [str(k) for k in range(n_pairs)],
            ["control", "treatment"],
        ],
        names=["lm_type", "dataset", "pair", "method"],
    )
    d = idx.to_frame(index=False)
    d["num_test"] = n
    d["num_correct"] = 0
    return d[list(LONG_COLUMNS)]


def simulate_counts(
    d: pd.DataFrame,
    *,
    beta: float,
    rng: np.random.Generator,
    intercept: float = 0.4,
    alpha: float = -0.5,
    sigma_u: float = 1.0,
    sigma_v: float = 0.2,
    sigma_w: float = 0.02,
) -> pd.DataFrame:
    """Draw Y from eqs. 1-2 plus W_jl with the given parameters (group effects random)."""
    d = d.copy()
    tasks = {t: i for i, t in enumerate(sorted(d["dataset"].unique()))}
    u = rng.normal(0, sigma_u, len(tasks))
    pairs = d[["dataset", "pair"]].drop_duplicates().reset_index(drop=True)
    v = pd.Series(rng.normal(0, sigma_v, len(pairs)), index=pd.MultiIndex.from_frame(pairs))
    w = rng.normal(0, sigma_w, (len(tasks), 2))
    j = d["dataset"].map(tasks).to_numpy()
    x = (d["method"] == "treatment").to_numpy(int)
    z = (d["lm_type"] != sorted(d["lm_type"].unique())[0]).to_numpy(float)
    eta = (
        intercept
        + alpha * z
        + u[j]
        + w[j, x]
        + beta * x
        + v.loc[list(zip(d["dataset"], d["pair"], strict=True))].to_numpy()
    )
    d["num_correct"] = rng.binomial(d["num_test"].to_numpy(), 1 / (1 + np.exp(-eta)))
    return d


def recovery(
    d: pd.DataFrame,
    scenarios: dict[str, float],
    *,
    seed: int,
    settings: bayes.SamplerSettings,
    thresholds: bayes.Thresholds,
    max_draws: int | None = None,
) -> pd.DataFrame:
    """Fit the model to data simulated under each scenario (name -> true beta)."""
    rows = []
    for k, (name, beta) in enumerate(scenarios.items()):
        rng = np.random.default_rng(np.random.SeedSequence([seed, k]))
        sim = simulate_counts(d, beta=beta, rng=rng)
        # sigma_W = 0.02 below (as in the bias comparisons): the contrast sampled non-centred
        model = reparam.model(sim, settings.backend, task_treatment=True, noncentred_contrast=True)
        label = "method[treatment]"
        # the same checks (and refits with more draws) as the fits to the released data
        idata = bayes.fit_checked(
            model, settings, thresholds, f"recovery/{name}", primary=(label,), max_draws=max_draws
        ).idata
        s = bayes.summarize(idata, label)
        covered = s["hdi_low"] <= beta <= s["hdi_high"]
        log.info(
            "recovery %s: beta %.3f -> %.3f [%.3f, %.3f]",
            name,
            beta,
            s["mean"],
            s["hdi_low"],
            s["hdi_high"],
        )
        rows.append(
            (
                name,
                beta,
                s["mean"],
                s["sd"],
                s["hdi_low"],
                s["hdi_high"],
                covered,
                s["r_hat"],
                s["ess_bulk"],
                s["divergences"],
                len(sim),
            )
        )
    return pd.DataFrame(rows, columns=list(RECOVERY_COLUMNS))


def prior_predictive(long: pd.DataFrame, *, draws: int, seed: int) -> pd.DataFrame:
    """Prior predictive accuracies under the paper's priors and bambi's automatic priors.

    Returns long rows (prior, draw, accuracy, avg_diff): per prior draw, the accuracy of a
    random row and the average (treatment - control) accuracy difference."""
    import bambi as bmb

    n_lms = long["lm_type"].nunique()
    f = hierarchical.formula(n_lms)
    paper = hierarchical.build(long, task_treatment=True)
    # bambi's automatic priors: the comparison object of Figure 7 (right), used only here.
    automatic = bmb.Model(f, long, family="binomial")
    automatic.build()
    out = []
    for name, model in (("paper", paper), ("bambi automatic", automatic)):
        pp = model.prior_predictive(draws=draws, random_seed=seed)
        y = pp.prior_predictive[model.response_component.term.name].to_numpy()[0]  # draw, obs
        acc = y / long["num_test"].to_numpy()
        treat = (long["method"] == long["method"].max()).to_numpy()
        diff = acc[:, treat] - acc[:, ~treat]
        rng = np.random.default_rng(seed)
        pick = rng.integers(acc.shape[1], size=acc.shape[0])
        out.append(
            pd.DataFrame(
                {
                    "prior": name,
                    "draw": np.arange(len(acc)),
                    "accuracy": acc[np.arange(len(acc)), pick],
                    "avg_diff": diff.mean(axis=1),
                }
            )
        )
    return pd.concat(out, ignore_index=True)


def prior_summary(pp: pd.DataFrame) -> pd.DataFrame:
    """Share of prior predictive accuracies near 0 or 1 and quantiles, per prior."""

    def q(g):
        a = g["accuracy"]
        return pd.Series(
            {
                "p_acc_below_0.05": float((a < 0.05).mean()),
                "p_acc_above_0.95": float((a > 0.95).mean()),
                "acc_q05": a.quantile(0.05),
                "acc_median": a.median(),
                "acc_q95": a.quantile(0.95),
                "avg_diff_q05": g["avg_diff"].quantile(0.05),
                "avg_diff_q95": g["avg_diff"].quantile(0.95),
            }
        )

    return pp.groupby("prior", sort=False).apply(q, include_groups=False).reset_index()


def plot_prior_predictive(pp: pd.DataFrame, outputs) -> None:
    import matplotlib.pyplot as plt

    from evalsci.plots import savefig

    priors = list(dict.fromkeys(pp["prior"]))
    fig, axes = plt.subplots(2, len(priors), figsize=(3.6 * len(priors), 5), squeeze=False)
    for j, name in enumerate(priors):
        g = pp[pp["prior"] == name]
        axes[0, j].hist(g["accuracy"], bins=40, range=(0, 1), density=True)
        axes[0, j].set_title(f"{name} priors")
        axes[0, j].set_xlabel("prior predictive accuracy")
        axes[1, j].hist(g["avg_diff"], bins=40, density=True)
        axes[1, j].set_xlabel("prior predictive average difference")
    fig.tight_layout()
    savefig(fig, outputs)


def plot_recovery(table: pd.DataFrame, outputs) -> None:
    import matplotlib.pyplot as plt

    from evalsci.plots import savefig

    fig, ax = plt.subplots(figsize=(4.5, 0.6 * len(table) + 1.2))
    y = np.arange(len(table))
    ax.errorbar(
        table["mean"],
        y,
        xerr=[table["mean"] - table["hdi_5.5"], table["hdi_94.5"] - table["mean"]],
        fmt="o",
        label="posterior mean, 89% HDI",
    )
    ax.plot(table["beta_true"], y, "x", color="k", label="true beta")
    ax.set_yticks(y, table["scenario"])
    ax.set_xlabel(r"$\beta$")
    ax.legend(fontsize=7)
    savefig(fig, outputs)
