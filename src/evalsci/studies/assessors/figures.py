"""Figures of the `assessors` study (Figure 2, Figures 8-9).

Every AUC figure shows the max random baseline: the expected maximum AUC of t random scorers
(read from the `maxrandom` rule's answers, never recomputed here), beside the 0.5 of a single
random scorer.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .selection import METHODS
from .uncertainty import NOISE_SHARE

__all__ = ["plot_figure2", "plot_nref"]

LABELS = {
    "specific": "Specific assessor",
    "generic": "Generic (reference)",
    "random_selector": "Random selector",
    "reference_only": "Reference only",
    "all_train": "All train data",
}
METHOD_COLORS = {
    "specific": "#2ca02c",
    "generic": "#1f77b4",
    "random_selector": "#9467bd",
    "reference_only": "#ff7f0e",
    "all_train": "#8c564b",
}
FEATURE_COLORS = {
    "embeddings": "#1f77b4",
    "similarity": "#ff7f0e",
    "similarity_interaction": "#2ca02c",
}


def _style():
    from evalsci.plots import COLORS, apply_style

    apply_style()
    return COLORS


def plot_figure2(fig2: pd.DataFrame, summary: pd.DataFrame, collection: str, outputs) -> None:
    """Horizontal bars of test AUC per test LLM (rows) and method, one panel per split, with
    chance (0.5: a combination chosen on validation data is one fixed scorer on the test
    instances); each panel's title gives the mean test AUC of the generic assessor with its
    95% DeLong interval and how stable its chosen combination is (`uncertainty`)."""
    import matplotlib.pyplot as plt

    from evalsci.plots import savefig

    colors = _style()
    splits = list(dict.fromkeys(fig2["split"]))
    llms = list(dict.fromkeys(fig2["llm"]))
    ncol = min(3, len(splits))
    nrow = int(np.ceil(len(splits) / ncol))
    fig, axes = plt.subplots(
        nrow,
        ncol,
        figsize=(3.3 * ncol, 0.35 * len(llms) * len(METHODS) / 2.2 * nrow + 1),
        sharex=True,
        squeeze=False,
    )
    h = 0.8 / len(METHODS)
    generic = summary[summary["method"] == "generic"].set_index("split")
    for ax, split in zip(axes.flat, splits, strict=False):
        d = fig2[fig2["split"] == split]
        for k, method in enumerate(METHODS):
            v = d[d["method"] == method].set_index("llm")["auc"].reindex(llms)
            ax.barh(
                np.arange(len(llms)) + (k - (len(METHODS) - 1) / 2) * h,
                v.to_numpy(),
                height=h,
                color=METHOD_COLORS[method],
                label=LABELS[method],
            )
        ax.axvline(0.5, color=colors["standard"], ls="--", lw=1, label="chance (0.5)")
        ax.set_yticks(np.arange(len(llms)), [s.split("__")[-1][:24] for s in llms])
        ax.invert_yaxis()
        ax.set_xlim(0.4, 1.0)
        g = generic.loc[split]
        noise = " (noise)" if g["stability"] < NOISE_SHARE else ""
        ax.set_title(
            f"{split}\ngeneric {g['auc_mean']:.2f} [{g['ci_low']:.2f}, {g['ci_high']:.2f}],"
            f" stability {g['stability']:.2f}{noise}",
            fontsize=8,
        )
        ax.set_xlabel("test AUC")
    for ax in list(axes.flat)[len(splits) :]:
        ax.axis("off")
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(
        handles, labels, loc="lower center", ncol=4, frameon=False, bbox_to_anchor=(0.5, -0.02)
    )
    fig.suptitle(f"Figure 2 ({collection}): predictive performance of assessors on test LLMs")
    fig.tight_layout(rect=(0, 0.06, 1, 0.97))
    savefig(fig, outputs)


def plot_nref(
    nref: pd.DataFrame, maxrandom: pd.DataFrame, collection: str, t: int, title: str, outputs
) -> None:
    """AUC against the number of reference instances: validation (top), test (bottom)."""
    import matplotlib.pyplot as plt

    from evalsci.plots import savefig

    colors = _style()
    splits = list(dict.fromkeys(nref["split"]))
    fig, axes = plt.subplots(
        2, len(splits), figsize=(2.6 * len(splits), 5.2), sharey=True, squeeze=False
    )
    mr = maxrandom[(maxrandom["collection"] == collection) & (maxrandom["search"] == "nref")]
    for j, split in enumerate(splits):
        for i, (eval_set, role) in enumerate((("validation", "validation"), ("test", "test"))):
            ax = axes[i, j]
            d = nref[(nref["split"] == split) & (nref["eval_set"] == eval_set)]
            for feat, g in d.groupby("features", sort=False):
                c = FEATURE_COLORS.get(feat, None)
                ax.scatter(g["n_ref"], g["auc"], s=6, alpha=0.35, color=c)
                mean = g.groupby("n_ref")["auc"].mean()
                ax.plot(mean.index, mean.to_numpy(), marker="o", ms=3, color=c, label=feat)
            m = mr[(mr["split"] == split) & (mr["eval_set"] == eval_set)]["expected_max"].mean()
            if np.isfinite(m):
                ax.axhline(m, color=colors["max"], lw=1.2, label=f"max random (t={t})")
            ax.axhline(0.5, color=colors["standard"], ls="--", lw=1, label="random (0.5)")
            ax.set_xscale("log")
            ax.set_title(f"{split} ({role})")
            if j == 0:
                ax.set_ylabel(f"AUC on {eval_set} LLMs")
            if i == 1:
                ax.set_xlabel("reference instances")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(
        handles, labels, loc="lower center", ncol=5, frameon=False, bbox_to_anchor=(0.5, -0.02)
    )
    fig.suptitle(title)
    fig.tight_layout(rect=(0, 0.05, 1, 0.96))
    savefig(fig, outputs)


LOMO_LABELS = {
    "random_mean": "Random n, mean",
    "tinybenchmarks_gpirt": "tinyBenchmarks gp-IRT",
    "generic_random": "Generic assessor (random refs)",
    "reference_default": "evalsci reference default",
}
LOMO_COLORS = {
    "random_mean": "#7f7f7f",
    "tinybenchmarks_gpirt": "#ff7f0e",
    "generic_random": "#9467bd",
    "reference_default": "#1f77b4",
}


def plot_lomo(summary: pd.DataFrame, outputs) -> None:
    """Absolute error of the estimated accuracy against n reference items, one panel per
    benchmark, the four methods as lines with +- 1 SE over held-out models (log x)."""
    import matplotlib.pyplot as plt

    from evalsci.plots import savefig

    from .lomo import FIGURE_METHODS

    _style()
    benches = list(dict.fromkeys(summary["benchmark"]))
    ncol = min(3, len(benches))
    nrow = int(np.ceil(len(benches) / ncol))
    fig, axes = plt.subplots(nrow, ncol, figsize=(4 * ncol, 3.2 * nrow), squeeze=False)
    for ax, bench in zip(axes.flat, benches, strict=False):
        s = summary[summary["benchmark"] == bench]
        for m in FIGURE_METHODS:
            d = s[s["method"] == m].sort_values("n_reference")
            ax.errorbar(
                d["n_reference"],
                d["abs_error"],
                yerr=d["abs_error_se"],
                marker="o",
                ms=3,
                capsize=2,
                color=LOMO_COLORS[m],
                label=LOMO_LABELS[m],
            )
        n_models = int(s["n_models"].max())
        ax.set(xscale="log", xlabel="n reference items", title=f"{bench} ({n_models} held out)")
        ax.set_ylabel("|estimate - accuracy|")
        ax.set_ylim(bottom=0)
    for ax in list(axes.flat)[len(benches) :]:
        ax.set_visible(False)
    axes.flat[0].legend(fontsize=7)
    fig.suptitle("Leave one model out: error of the estimated accuracy (mean +- 1 SE)")
    fig.tight_layout()
    savefig(fig, outputs)
    plt.close(fig)
