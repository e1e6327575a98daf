"""Figures of paper 002: difference distributions (Fig. 1, 9-15), posterior predictive
average differences (Figs. 2-4), posteriors of beta, and the meta-analysis ECDF (Fig. 5)."""

from __future__ import annotations

import re

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy.stats import gaussian_kde

from evalsci.plots import COLORS, savefig
from evalsci.studies.tapt.table1 import differences

LABELS = {
    "boost": r"pretraining boost: acc$_{extra}$ $-$ acc$_{base}$",
    "bias": r"evaluation bias: acc$_{test}$ $-$ acc$_{extra}$",
}


def plot_differences(acc: pd.DataFrame, outputs) -> None:
    """One configuration: per task, the distribution over subsamples of both differences.

    Rows are LM types, columns the two comparisons; each task gets a box (quartiles,
    whiskers at 1.5 IQR) and a dot at its mean."""
    d = differences(acc)
    lms = sorted(d["lm"].unique())
    tasks = sorted(d["dataset"].unique(), reverse=True)
    fig, axes = plt.subplots(
        len(lms), 2, figsize=(8, 0.22 * len(tasks) * len(lms) + 1.2), squeeze=False, sharey=True
    )
    for i, lm in enumerate(lms):
        for j, comparison in enumerate(("boost", "bias")):
            ax = axes[i, j]
            g = d[d["lm"] == lm]
            data = [g.loc[g["dataset"] == t, comparison].to_numpy() for t in tasks]
            ax.boxplot(
                data,
                vert=False,
                widths=0.6,
                showfliers=False,
                medianprops={"color": COLORS["ours"]},
            )
            ax.plot(
                [x.mean() for x in data],
                np.arange(1, len(tasks) + 1),
                "o",
                ms=3,
                color=COLORS["paper"],
                label="mean",
            )
            ax.axvline(0, color="k", lw=0.8)
            ax.set_yticks(np.arange(1, len(tasks) + 1), tasks)
            ax.set_title(f"{lm}: mean {g[comparison].mean():+.2%}")
            if i == len(lms) - 1:
                ax.set_xlabel(LABELS[comparison])
    config = d["config"].iloc[0]
    fig.suptitle(f"{config}: paired accuracy differences over subsamples, per task")
    axes[0, 1].legend(loc="lower right")
    fig.tight_layout()
    savefig(fig, outputs)


def _kde(ax, x, label, color=None):
    x = np.asarray(x, float)
    grid = np.linspace(x.min(), x.max(), 200)
    if np.ptp(x) > 0:
        ax.plot(grid, gaussian_kde(x)(grid), label=label, color=color)


def _m_n(config: str) -> tuple[int | None, int | None]:
    """(m, n) of a configuration name; m is None for zero-shot (it does not vary)."""
    match = re.search(r"(?:^|_)m(\d+)_n(\d+)$", config)
    if match:
        return int(match.group(1)), int(match.group(2))
    match = re.search(r"_n(\d+)$", config)
    return None, int(match.group(1)) if match else None


def plot_posterior_predictive(
    draws: pd.DataFrame, outputs, *, title: str, column: str = "avg_diff"
) -> None:
    """KDEs of a posterior quantity per configuration: rows = comparisons, columns = m.

    `draws` has columns config, comparison, and `column` (e.g. the average accuracy
    difference of Section 6.2, or beta)."""
    d = draws.copy()
    d["m"], d["n"] = zip(*d["config"].map(_m_n), strict=True)
    ms = sorted(d["m"].dropna().unique()) or [None]
    comparisons = [c for c in ("boost", "bias") if c in set(d["comparison"])]
    fig, axes = plt.subplots(
        len(comparisons), len(ms), figsize=(3.6 * len(ms), 2.6 * len(comparisons)), squeeze=False
    )
    for i, comparison in enumerate(comparisons):
        for j, m in enumerate(ms):
            ax = axes[i, j]
            g = d[(d["comparison"] == comparison) & ((d["m"] == m) if m is not None else True)]
            for config, h in sorted(
                g.groupby("config"), key=lambda kv: (kv[1]["n"].iloc[0], kv[0])
            ):
                label = f"n = {h['n'].iloc[0]}" if m is not None else config
                _kde(ax, h[column], label)
            ax.axvline(0, color="k", lw=0.8)
            ax.set_title(f"{comparison}" + (f", m = {m:.0f}" if m is not None else ""))
            ax.set_xlabel(
                LABELS[comparison] if column == "avg_diff" else rf"$\beta$ ({comparison})"
            )
            ax.set_ylabel("density")
            ax.legend(fontsize=7)
    fig.suptitle(title)
    fig.tight_layout()
    savefig(fig, outputs)


def plot_meta_ecdf(slices: pd.DataFrame, thresholds: dict[str, float], outputs) -> None:
    """Figure 5: ECDF of the posterior mean of beta over unreplicated slices, with the
    slices' 89% HDIs and the +-threshold band."""
    configs = list(dict.fromkeys(slices["config"]))
    fig, axes = plt.subplots(1, len(configs), figsize=(4 * len(configs), 3), squeeze=False)
    for ax, config in zip(axes[0], configs, strict=True):
        g = slices[slices["config"] == config].sort_values("mean")
        y = np.arange(1, len(g) + 1) / len(g)
        ax.fill_betweenx(
            y,
            g["hdi_5.5"],
            g["hdi_94.5"],
            color=COLORS["standard"],
            alpha=0.3,
            step="post",
            label="89% HDI",
        )
        ax.step(g["mean"], y, where="post", color=COLORS["ours"], label="posterior mean")
        t = thresholds[config]
        for x in (-t, t):
            ax.axvline(x, color=COLORS["max"], ls="--", lw=0.8)
        p = float((g["mean"].abs() > t).mean())
        ax.set_title(f"{config}: P(|mean| > {t}) = {p:.2f} ({len(g)} slices)")
        ax.set_xlabel(r"posterior mean of $\beta$ (bias)")
        ax.set_ylabel("ECDF")
        ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    savefig(fig, outputs)
