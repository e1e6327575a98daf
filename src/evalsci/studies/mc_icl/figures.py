"""Figures 1-20 of Schoch & Ji, from the accuracy tables and the max random baselines.

Every figure overlays the standard random baseline (expected accuracy of one random
classifier, grey dashed) and the max random baseline (expected best of t random classifiers,
red dotted) for the selection the figure invites: the best k of a curve (Figures 1, 4), the
best prompt of a trial (Figures 2, 13-20) and the best one-shot prompt (Figures 3, 5-12).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator

from evalsci.plots import COLORS, savefig
from evalsci.studies.mc_icl.params import DATASET_NAMES


def read_baselines(path: str | Path) -> pd.DataFrame:
    """baselines.csv of rule maxrandom, indexed by key (columns checked there)."""
    from evalsci.maxrandom.requests import read_baselines as _read

    return _read(path)


def _baseline(baselines: pd.DataFrame, key: str) -> pd.Series:
    if key not in baselines.index:
        raise KeyError(
            f"max random baseline {key!r} missing from baselines.csv "
            "(rerun rule mc_icl_maxrandom_requests)"
        )
    return baselines.loc[key]


def _overlay(ax, b: pd.Series, label_max: bool = True) -> None:
    ax.axhline(b["standard"], color=COLORS["standard"], ls="--", lw=0.9, label="random baseline")
    if label_max:
        ax.axhline(
            b["expected_max"],
            color=COLORS["max"],
            ls=":",
            lw=1.1,
            label=f"max random baseline (t={int(b['t'])})",
        )


def _integer_k(axes) -> None:
    for ax in axes:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))


def _grid(n: int, ncols: int = 4, size=(2.6, 2.1)):
    ncols = min(ncols, n)
    nrows = int(np.ceil(n / ncols))
    fig, axes = plt.subplots(
        nrows,
        ncols,
        figsize=(size[0] * ncols, size[1] * nrows),
        squeeze=False,
        sharex=False,
        layout="constrained",
    )
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    return fig, list(axes.flat[:n])


def figure1(
    acc: pd.DataFrame,
    baselines: pd.DataFrame,
    models: Sequence[str],
    datasets: Sequence[str],
    outputs,
) -> None:
    """Accuracy against k per dataset, one line per model: the mean over the permutations of
    a trial, averaged over trials, shaded by the standard deviation over trials."""
    fig, axes = _grid(len(datasets))
    for ax, d in zip(axes, datasets, strict=True):
        for m in models:
            sub = acc[(acc["model"] == m) & (acc["dataset"] == d)]
            per_trial = sub.groupby(["trial", "k"])["accuracy"].mean().unstack("trial")
            mean, sd = per_trial.mean(axis=1), per_trial.std(axis=1, ddof=0)
            (line,) = ax.plot(mean.index, mean.values, label=m)
            ax.fill_between(mean.index, mean - sd, mean + sd, color=line.get_color(), alpha=0.2)
        _overlay(ax, _baseline(baselines, f"{d}|k_curve"))
        ax.set_title(DATASET_NAMES.get(d, d))
        ax.set_xlabel("k")
        ax.set_ylabel("accuracy")
    axes[0].legend(loc="best")
    _integer_k(axes)
    savefig(fig, outputs)


def permutation_curves(
    acc: pd.DataFrame,
    baselines: pd.DataFrame,
    models: Sequence[str],
    dataset: str,
    trial: int,
    outputs,
) -> None:
    """Figures 2 and 13-20: one trial's permutations (blue) and their mean (red), per model."""
    fig, axes = _grid(len(models))
    for ax, m in zip(axes, models, strict=True):
        sub = acc[(acc["model"] == m) & (acc["dataset"] == dataset) & (acc["trial"] == trial)]
        curves = sub.pivot(index="k", columns="permutation", values="accuracy")
        ax.plot(curves.index, curves.values, color=COLORS["ours"], alpha=0.35, lw=0.7)
        ax.plot(curves.index, curves.mean(axis=1), color="red", lw=1.6, label="mean")
        _overlay(ax, _baseline(baselines, f"{dataset}|trial{trial}|prompts"))
        ax.set_title(f"{m} ({DATASET_NAMES.get(dataset, dataset)}, trial {trial + 1})")
        ax.set_xlabel("k")
        ax.set_ylabel("accuracy")
    axes[0].legend(loc="best")
    _integer_k(axes)
    savefig(fig, outputs)


def one_shot(
    acc: pd.DataFrame, baselines: pd.DataFrame, models: Sequence[str], dataset: str, outputs
) -> None:
    """Figures 3 and 5-12: one-shot accuracy of each permutation (blue) against the
    zero-shot accuracy (red), per trial and model."""
    fig, axes = _grid(len(models))
    for ax, m in zip(axes, models, strict=True):
        sub = acc[(acc["model"] == m) & (acc["dataset"] == dataset)]
        one = sub[sub["k"] == 1]
        zero = sub[sub["k"] == 0].groupby("trial")["accuracy"].first()
        ax.scatter(
            one["trial"] + 1,
            one["accuracy"],
            s=10,
            color=COLORS["ours"],
            alpha=0.6,
            label="one-shot",
        )
        ax.scatter(zero.index + 1, zero.values, s=28, color="red", label="zero-shot", zorder=3)
        _overlay(ax, _baseline(baselines, f"{dataset}|one_shot"))
        ax.set_xticks(sorted(zero.index + 1))
        ax.set_title(f"{m} ({DATASET_NAMES.get(dataset, dataset)})")
        ax.set_xlabel("trial")
        ax.set_ylabel("accuracy")
    axes[0].legend(loc="best")
    _integer_k(axes)
    savefig(fig, outputs)


SET_COLORS = {"high": "#2ca02c", "low": "#9467bd", "random": COLORS["ours"]}


def figure4(acc_sets: pd.DataFrame, baselines: pd.DataFrame, outputs) -> None:
    """Section 5.2: Algorithm 1 over the high, low and random sets; mean over permutations
    with the standard deviation shaded, one panel per (model, dataset)."""
    panels = acc_sets[["model", "dataset"]].drop_duplicates().itertuples(index=False)
    panels = list(panels)
    fig, axes = _grid(len(panels), ncols=3, size=(3.2, 2.4))
    for ax, (m, d) in zip(axes, panels, strict=True):
        sub = acc_sets[(acc_sets["model"] == m) & (acc_sets["dataset"] == d)]
        for name in ("high", "low", "random"):
            s = sub[sub["set"] == name]
            if s.empty:
                continue
            g = s.groupby("k")["accuracy"]
            mean, sd = g.mean(), g.std(ddof=0)
            ax.plot(mean.index, mean.values, color=SET_COLORS[name], label=f"{name} set")
            ax.fill_between(mean.index, mean - sd, mean + sd, color=SET_COLORS[name], alpha=0.2)
        size = int(sub["k"].max())
        _overlay(ax, _baseline(baselines, f"{d}|set_k_curve|s{max(size, 1)}"))
        ax.set_title(f"{m} ({DATASET_NAMES.get(d, d)})")
        ax.set_xlabel("k")
        ax.set_ylabel("accuracy")
    axes[0].legend(loc="best")
    _integer_k(axes)
    savefig(fig, outputs)
