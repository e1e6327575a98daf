"""Figures of the audit: every run against its task's baselines, and flipped share against t."""

from __future__ import annotations

import numpy as np
import pandas as pd

from evalsci.plots import COLORS, apply_style, plt, savefig


def runs_figure(judged: pd.DataFrame, outputs, title: str, t_kind: str) -> None:
    """One row per task: each run's accuracy (dots), the standard baseline (grey bar) and the
    max random baseline of t guessers (red bar); runs above the max baseline filled."""
    apply_style()
    d = judged[judged.t_kind == t_kind]
    tasks = sorted(d.task.unique())
    fig, ax = plt.subplots(figsize=(6.5, 0.9 + 0.24 * len(tasks)))
    for i, task in enumerate(tasks):
        g = d[d.task == task]
        jitter = np.linspace(-0.25, 0.25, len(g)) if len(g) > 1 else np.zeros(1)
        above = (g.accuracy > g.max_baseline).to_numpy()
        ax.scatter(
            g.accuracy[above],
            i + jitter[above],
            s=5,
            color=COLORS["ours"],
            lw=0,
            alpha=0.7,
            label="run above max baseline" if i == 0 else None,
        )
        ax.scatter(
            g.accuracy[~above],
            i + jitter[~above],
            s=5,
            facecolor="none",
            lw=0.5,
            edgecolor=COLORS["ours"],
            alpha=0.7,
            label="run not above max baseline" if i == 0 else None,
        )
        for std in np.unique(g.standard):
            ax.plot(
                [std, std],
                [i - 0.4, i + 0.4],
                color=COLORS["standard"],
                lw=2,
                label="standard baseline" if i == 0 and std == g.standard.min() else None,
            )
        for mx in np.unique(g.max_baseline):
            ax.plot(
                [mx, mx],
                [i - 0.4, i + 0.4],
                color=COLORS["max"],
                lw=2,
                label="max random baseline" if i == 0 and mx == g.max_baseline.min() else None,
            )
    ax.set_yticks(range(len(tasks)), tasks)
    ax.set_ylim(-0.6, len(tasks) - 0.4)
    ax.invert_yaxis()
    ax.set_xlabel("accuracy")
    ax.set_title(title, pad=22)
    ax.legend(
        loc="lower center",
        bbox_to_anchor=(0.5, 1.0),
        ncol=4,
        frameon=False,
        markerscale=2,
        fontsize=7,
    )
    savefig(fig, outputs)
    plt.close(fig)


def sweep_figure(sw: pd.DataFrame, outputs, title: str, marks: dict[str, int]) -> None:
    """Flipped share (flipped / above standard) against t, log axis; `marks` are the t's of
    the released data (e.g. runs and models in the file)."""
    apply_style()
    fig, ax = plt.subplots(figsize=(5, 3.2))
    for group, g in sw.groupby("group", sort=True):
        ax.plot(
            g.t,
            g.flipped_share,
            lw=2 if group == "all" else 1.2,
            label=group,
            color="black" if group == "all" else None,
        )
    for name, t in marks.items():
        ax.axvline(t, color=COLORS["standard"], ls="--", lw=0.8)
        ax.text(
            t,
            0.98,
            f" t = {t} ({name})",
            rotation=90,
            va="top",
            ha="right",
            fontsize=7,
            transform=ax.get_xaxis_transform(),
        )
    ax.set_xscale("log")
    ax.set_xlabel("t (number of runs selected from)")
    ax.set_ylabel("flipped share\n(above standard, not above max)")
    ax.set_ylim(0, 1)
    ax.set_title(title)
    ax.legend(loc="upper left", frameon=True)
    savefig(fig, outputs)
    plt.close(fig)
