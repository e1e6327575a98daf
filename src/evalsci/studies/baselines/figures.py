"""Figures 1-11 of the conference version (000). arXiv (001) numbering: Figures 1-7 are the
same; 000's Figure 8 (ROC curves for several t) is 001's Figure 10 and 000's Figures 9-11
(full results) are 001's Figures 11-13; 001's Figure 9 (BBL/BBH p-values against
normalized scores) has no counterpart in 000 and is not drawn here.

Every baseline value comes from the maxrandom rule's answers (`keys.Baselines`).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.lines import Line2D

from evalsci.data.bigbench_meta import num_choices
from evalsci.plots import COLORS, savefig
from evalsci.studies.baselines import curves, heldout, keys
from evalsci.studies.baselines.keys import Baselines
from evalsci.studies.baselines.maxrandom_requests import figure1_cell
from evalsci.studies.baselines.settings import (
    BASE_MODELS,
    INSTRUCT_OF,
    PROMPTS,
    SHOTS,
    TASKS,
    Cell,
    display_size,
    eval_size,
    num_prompts,
)

BASE_COLORS = {1: "#fdae61", 2: "#f46d43", 4: "#d73027"}
INSTRUCT_COLORS = {1: "#abd9e9", 2: "#74add1", 4: "#4575b4"}
FIG3_TASKS = ("emoji_movie", "known_unknowns", "bbq_lite_json", "hindu_knowledge")
# Figure 4 shows 1- and 2-shot (as the authors' figure script does); with 4-shot, falcon-7b
# would also clear the max baseline on emoji_movie (Table 1).
FIG4_SHOTS = (1, 2)
FULL_RESULTS = {
    "figure9": ("Llama-2-7b", "Alpaca-7b"),
    "figure10": ("OLMo-7B", "OLMo-7B-Instruct"),
    "figure11": ("falcon-7b", "falcon-7b-instruct"),
}
# Full-results grid order (the authors' Appendix E panels).
FULL_TASK_ORDER = (
    "code_line_description",
    "bbq_lite_json",
    "hindu_knowledge",
    "conceptual_combinations",
    "formal_fallacies_syllogisms_negation",
    "known_unknowns",
    "logical_deduction",
    "play_dialog_same_or_different",
    "strange_stories",
    "symbol_interpretation",
    "winowhy",
    "strategyqa",
    "novel_concepts",
    "emoji_movie",
    "vitaminc_fact_verification",
    "language_identification",
)


def _no_data(ax, what="not in this run's experiments"):
    ax.text(
        0.5, 0.5, what, ha="center", va="center", transform=ax.transAxes, fontsize=7, color="0.5"
    )


# ------------------------------------------------------------------ accuracy vs t panels
def curve_column(axs, task: str, lines, aggregated, baselines: Baselines, title=True):
    """Three stacked axes for one task: expected max accuracy vs t (with both baselines),
    tail probability against the standard baseline, and against the max baseline.
    `lines`: [(cell, label, color)]."""
    n, k = display_size(task), num_choices(task)
    ts = curves.CURVE_TS
    ax_acc, ax_std, ax_max = axs
    if title:
        ax_acc.set_title(task, fontweight="bold")
    if not any(cell in aggregated for cell, _, _ in lines):
        _no_data(ax_acc)  # baselines are requested only for the tasks of this run
        return
    ax_acc.plot(
        ts,
        baselines.many([keys.emax(n, k, t) for t in ts], "expected_max"),
        color="black",
        lw=1.6,
        label="Max random baseline",
        zorder=5,
    )
    ax_acc.axhline(
        baselines.standard(n, k),
        color="black",
        ls=(0, (2, 2)),
        lw=1.2,
        label="Standard random baseline",
    )
    for cell, label, color in lines:
        if cell not in aggregated:
            continue
        df = curves.cell_curve(cell, aggregated[cell])
        sd = np.sqrt(df["var"])
        ax_acc.plot(df.t, df.expected_max_acc, color=color, lw=1.4, label=label)
        ax_acc.fill_between(
            df.t, df.expected_max_acc - sd, df.expected_max_acc + sd, color=color, alpha=0.15, lw=0
        )
        tail = df[df.has_tail]
        ax_std.plot(tail.t, baselines.many(tail.tail_key, "tail_standard"), color=color, lw=1.2)
        ax_max.plot(tail.t, baselines.many(tail.tail_key, "tail_max"), color=color, lw=1.2)
        if df.t.max() < PROMPTS:  # 1-shot on a small task ends at t = N
            for ax, col in ((ax_std, "tail_standard"), (ax_max, "tail_max")):
                ax.scatter(
                    tail.t.iloc[-1:],
                    baselines.many(tail.tail_key.iloc[-1:], col),
                    color=color,
                    s=10,
                    zorder=6,
                )
    for ax in axs:
        ax.set_xlim(0, PROMPTS)
    for ax in (ax_std, ax_max):
        ax.set_ylim(-0.02, 1.02)


def _label_rows(axs_col0, xlabel_axes):
    axs_col0[0].set_ylabel("Expected max\naccuracy")
    axs_col0[1].set_ylabel("Tail prob.\n(standard)")
    axs_col0[2].set_ylabel("Tail prob.\n(maximum)")
    for ax in xlabel_axes:
        ax.set_xlabel("t = number of validation set evaluations")


def _legend(fig, entries, ncol, y=0.0):
    handles = [
        Line2D([], [], color="black", ls=(0, (2, 2)), lw=1.2),
        Line2D([], [], color="black", lw=1.6),
    ] + [Line2D([], [], color=c, lw=2) for _, c in entries]
    labels = ["Standard random baseline", "Max random baseline"] + [lab for lab, _ in entries]
    fig.legend(
        handles, labels, loc="upper center", bbox_to_anchor=(0.5, y), ncol=ncol, frameon=False
    )


def figure3(aggregated, baselines, outputs, model="OLMo-7B"):
    fig, axs = plt.subplots(
        3,
        len(FIG3_TASKS),
        figsize=(3.2 * len(FIG3_TASKS), 5.4),
        gridspec_kw={"height_ratios": [1, 0.5, 0.5]},
        squeeze=False,
    )
    lines = [
        (Cell(model, task, k), f"Best {k}-shot across t prompts", BASE_COLORS[k])
        for task in FIG3_TASKS
        for k in SHOTS
    ]
    for j, task in enumerate(FIG3_TASKS):
        curve_column(
            axs[:, j], task, [x for x in lines if x[0].task == task], aggregated, baselines
        )
    _label_rows(axs[:, 0], axs[2, :])
    fig.suptitle(f"{model} (4-bit): expected maximum validation accuracy", y=1.0)
    fig.tight_layout()
    _legend(fig, [(f"Best {k}-shot across t prompts", BASE_COLORS[k]) for k in SHOTS], 5)
    savefig(fig, outputs)


def figure4(aggregated, baselines, outputs, task="emoji_movie"):
    fig, axs = plt.subplots(3, 3, figsize=(10, 5.4), gridspec_kw={"height_ratios": [1, 0.5, 0.5]})
    for j, base in enumerate(BASE_MODELS):
        instr = INSTRUCT_OF[base]
        lines = [(Cell(base, task, k), f"{k}-shot base", BASE_COLORS[k]) for k in FIG4_SHOTS] + [
            (Cell(instr, task, k), f"{k}-shot instr.", INSTRUCT_COLORS[k]) for k in FIG4_SHOTS
        ]
        curve_column(axs[:, j], task, lines, aggregated, baselines, title=False)
        axs[0, j].set_title(f"{base} / {instr}", fontweight="bold")
    _label_rows(axs[:, 0], axs[2, :])
    fig.suptitle(f"{task}: base and instruction-tuned models", y=1.0)
    fig.tight_layout()
    _legend(
        fig,
        [(f"Best {k}-shot base", BASE_COLORS[k]) for k in FIG4_SHOTS]
        + [(f"Best {k}-shot instruction-tuned", INSTRUCT_COLORS[k]) for k in FIG4_SHOTS],
        3,
    )
    savefig(fig, outputs)


def full_results(aggregated, baselines, outputs, base: str, instr: str):
    tasks = [t for t in FULL_TASK_ORDER if t in TASKS]
    fig = plt.figure(figsize=(16, 20))
    gs = fig.add_gridspec(4 * 4, 4, height_ratios=[1, 0.5, 0.5, 0.35] * 4, hspace=0.25, wspace=0.25)
    for idx, task in enumerate(tasks):
        r, c = divmod(idx, 4)
        axs = [fig.add_subplot(gs[4 * r + i, c]) for i in range(3)]
        lines = [(Cell(base, task, k), "", BASE_COLORS[k]) for k in SHOTS] + [
            (Cell(instr, task, k), "", INSTRUCT_COLORS[k]) for k in SHOTS
        ]
        curve_column(axs, task, lines, aggregated, baselines)
        if c == 0:
            _label_rows(axs, [])
        axs[2].set_xlabel("t" if r < 3 else "t = number of validation set evaluations")
    fig.suptitle(f"Full BIG-bench Lite results for {base} and {instr}", y=0.9)
    _legend(
        fig,
        [(f"Best {k}-shot {base}", BASE_COLORS[k]) for k in SHOTS]
        + [(f"Best {k}-shot {instr}", INSTRUCT_COLORS[k]) for k in SHOTS],
        4,
        y=0.1,
    )
    savefig(fig, outputs)


# ------------------------------------------------------------------------ Figure 1
def figure1(aggregated, baselines: Baselines, outputs):
    cell = figure1_cell(aggregated)
    accs = aggregated[cell]
    n, k = eval_size(cell.task, cell.shots), num_choices(cell.task)
    t = num_prompts(cell.task, cell.shots, len(accs))
    x1, pmf1 = baselines.pmf(n, k, 1)
    xt, pmft = baselines.pmf(n, k, t)
    std, emax = baselines.standard(n, k), baselines.expected_max(n, k, t)
    best = float(np.max(accs))
    lo = max(0.0, min(std, accs.min()) - 0.1)
    hi = min(1.0, max(best, emax) + 0.08)
    fig, axs = plt.subplots(3, 1, figsize=(6.4, 5.0), sharex=True)
    bins = np.arange(0, 1 + 1 / n, 1 / n) - 0.5 / n
    axs[0].hist(
        accs,
        bins=bins,
        weights=np.full(len(accs), 1 / len(accs)),
        color="#f6cea6",
        edgecolor="#fc9432",
    )
    axs[0].axvline(best, color="#fc9432", ls="--", lw=1.5)
    axs[0].set_title(
        f"Accuracy of {len(accs)} different prompts ({cell.model}, {cell.task}, {cell.shots}-shot)",
        fontsize=8,
        loc="left",
    )
    axs[1].bar(x1 / n, pmf1, width=1 / n, color="#aac8e1", edgecolor="#7eaed2")
    axs[1].axvline(std, color="#2c82de", ls="--", lw=1.5)
    axs[1].set_title("One random classifier (binomial)", fontsize=8, loc="left")
    axs[2].bar(xt / n, pmft, width=1 / n, color="#8fb3d2", edgecolor="#3d7bb1")
    axs[2].axvline(emax, color="#3d7bb1", ls="--", lw=1.5)
    axs[2].set_title(f"Best of t = {t} random classifiers", fontsize=8, loc="left")
    for ax, x, lab, col in (
        (axs[0], best, "best accuracy across prompts", "#fc9432"),
        (axs[1], std, "standard random baseline", "#2c82de"),
        (axs[2], emax, "expected maximum random accuracy", "#3d7bb1"),
    ):
        ax.text(
            x + 0.004,
            0.95,
            f"{lab}: {x:.3f}",
            transform=ax.get_xaxis_transform(),
            color=col,
            fontsize=7,
            va="top",
            fontweight="bold",
        )
    axs[1].set_ylabel("Proportion of classifiers")
    axs[2].set_xlabel(f"Accuracy (n = {n})")
    axs[2].set_xlim(lo, hi)
    fig.tight_layout()
    savefig(fig, outputs)


# ------------------------------------------------------------ analytic Figures 2, 6, 7
def _contour_emax(ax, baselines, k, ns, ts, levels_major, levels_minor):
    grid = baselines.many([keys.emax(n, k, t) for n in ns for t in ts], "expected_max").reshape(
        len(ns), len(ts)
    )
    T, N = np.meshgrid(ts, ns)
    ax.set_xscale("log")
    ax.set_yscale("log")
    cs = ax.contourf(
        T, N, grid, levels=sorted(levels_major + levels_minor), extend="both", cmap="Blues"
    )
    lines = ax.contour(T, N, grid, levels=levels_major, colors="black", linewidths=0.8)
    ax.clabel(lines, inline=True, fontsize=7, fmt="%.2f")
    ax.contour(T, N, grid, levels=levels_minor, colors="black", linewidths=0.6, alpha=0.25)
    ax.set_xlabel("t = number of validation set evaluations")
    ax.set_title(f"Dataset with {k} choices per example (p = 1/{k})", fontweight="bold")
    return cs


def _levels(k):
    p = 1 / k
    major = [round(x, 3) for x in np.arange(np.ceil((p + 0.05) * 20) / 20, 0.96, 0.05)]
    minor = [round(p + d, 3) for d in (0.025, 0.05, 0.075) if p + d < major[0]]
    return major, minor


def figure2(baselines, outputs):
    fig, ax = plt.subplots(figsize=(6.4, 4.8))
    major, minor = _levels(2)
    _contour_emax(ax, baselines, 2, curves.FIG2_NS, curves.FIG2_TS, major, minor)
    ax.set_ylabel("n = size of dataset")
    savefig(fig, outputs)


def figure6(baselines, outputs):
    fig, axs = plt.subplots(
        1, len(curves.FIG6_CHOICES), figsize=(5 * len(curves.FIG6_CHOICES), 4.2)
    )
    for ax, k in zip(axs, curves.FIG6_CHOICES, strict=True):
        major, minor = _levels(k)
        _contour_emax(ax, baselines, k, curves.FIG6_NS, curves.FIG6_TS, major, minor)
    axs[0].set_ylabel("n = size of dataset")
    fig.tight_layout()
    savefig(fig, outputs)


def figure7(baselines, outputs):
    from scipy.ndimage import gaussian_filter

    from evalsci.maxrandom import correct_count

    ts, ks, ns, accs = curves.FIG7_TS, curves.FIG7_CHOICES, curves.FIG7_NS, curves.FIG7_ACCS
    fig, axs = plt.subplots(len(ts), len(ks), figsize=(4 * len(ks), 3.2 * len(ts)), squeeze=False)
    for i, t in enumerate(ts):
        for j, k in enumerate(ks):
            grid = np.array(
                [
                    baselines.many(
                        [keys.tail(n, k, t, c) for c in correct_count(accs, n)], "tail_max"
                    )
                    for n in ns
                ]
            )
            # "Plots have been smoothed for ease of visualization" (Figure 7 caption).
            grid = gaussian_filter(grid, 1)
            A, N = np.meshgrid(accs, ns)
            ax = axs[i, j]
            ax.set_xscale("log")
            ax.contourf(N, A, grid, levels=np.linspace(0, 1, 11), cmap="Blues")
            lines = ax.contour(N, A, grid, levels=[0.01, 0.1, 0.5], colors="black", linewidths=0.8)
            ax.clabel(lines, inline=True, fontsize=7, fmt="%g")
            ax.set_ylim(0, 1)
            if i == 0:
                ax.set_title(f"{k} choices per example (p = 1/{k})", fontweight="bold")
            if j == 0:
                ax.set_ylabel(f"t = {t}\nAccuracy", fontweight="bold")
            if i == len(ts) - 1:
                ax.set_xlabel("n = size of dataset")
    fig.tight_layout()
    savefig(fig, outputs)


def figure9_001(baselines, outputs):
    """001's Figure 9: for every BBL and BBH task, the p-value of a normalized score under
    the max random baseline with t = 1 (standard), 10 and 200 (columns), BBL and BBH (rows)."""
    from evalsci.data.bigbench_meta import BBH_TASKS, BBL_TASKS

    suites = {"BIG-bench Lite": BBL_TASKS, "BIG-bench Hard": BBH_TASKS}
    ts = curves.FIG9_001_TS
    fig, axs = plt.subplots(len(suites), len(ts), figsize=(4.2 * len(ts), 3.4 * len(suites)))
    x = curves.FIG9_001_SCORES
    for i, (suite, tasks) in enumerate(suites.items()):
        for j, t in enumerate(ts):
            ax = axs[i, j]
            for task, (n, k) in sorted(tasks.items()):
                counts = curves.normalized_score_counts(n, k)
                ax.plot(
                    x,
                    baselines.many([keys.tail(n, k, t, int(c)) for c in counts], "tail_max"),
                    lw=0.9,
                    label=task,
                )
            ax.set_yscale("log")
            ax.set_ylim(1e-4, 1.05)
            ax.set_xlim(0, 60)
            ax.axhline(0.01, color="gray", lw=0.6, ls=":")
            if i == 0:
                ax.set_title(
                    "t = 1 (standard baseline)" if t == 1 else f"t = {t}", fontweight="bold"
                )
            if j == 0:
                ax.set_ylabel(f"{suite}\np-value", fontweight="bold")
            if i == len(suites) - 1:
                ax.set_xlabel("normalized score")
        axs[i, -1].legend(fontsize=5, loc="upper right", ncol=1, frameon=False)
    fig.tight_layout()
    savefig(fig, outputs)


# 001's Figure 8: how far the max random baseline lies above the standard one, per BBL and BBH
# task at its full n and k (the authors' task constants), against t = 1 .. 200 (the extracted
# text lost the figure's t values; 200 is Table 1's number of prompts). A property of the
# baseline alone (no model results, no comparison): computed with the exact library function
# the maxrandom rule runs, not requested from it.
FIG8_001_TS = np.arange(1, PROMPTS + 1)
FIG8_001_DIGITS = 10  # rounded: the same bytes on any CPU


def figure8_001_gains() -> pd.DataFrame:
    """Per suite, task and t: n, k, the standard baseline 1/k, the expected maximum accuracy
    of t random classifiers (eq. 9) and the gain in accuracy points, 100 (max - standard)."""
    from evalsci.data.bigbench_meta import BBH_TASKS, BBL_TASKS
    from evalsci.maxrandom import max_random_baseline

    frames = []
    for suite, tasks in (("BIG-bench Lite", BBL_TASKS), ("BIG-bench Hard", BBH_TASKS)):
        for task, (n, k) in sorted(tasks.items()):
            emax = np.asarray(max_random_baseline(n, 1 / k, FIG8_001_TS))
            frames.append(
                pd.DataFrame(
                    {
                        "suite": suite,
                        "task": task,
                        "n": n,
                        "k": k,
                        "t": FIG8_001_TS,
                        "standard": 1 / k,
                        "expected_max": emax,
                        "gain_points": 100 * (emax - 1 / k),
                    }
                )
            )
    return pd.concat(frames, ignore_index=True).round(FIG8_001_DIGITS)


def make_figure8_001(figure):
    """001's Figure 8 (`figure`: its PDF, PNG and the CSV of what it draws): the gain of the
    max random baseline over the standard one against t, one line per task, BBL and BBH."""
    from evalsci.pipeline.jobs import atomic_path

    df = figure8_001_gains()
    (csv,) = [f for f in figure if str(f).endswith(".csv")]
    with atomic_path(csv) as tmp:
        df.to_csv(tmp, index=False)
    suites = list(dict.fromkeys(df["suite"]))
    fig, axs = plt.subplots(1, len(suites), figsize=(5.2 * len(suites), 3.8), sharey=True)
    for ax, suite in zip(axs, suites, strict=True):
        for task, d in df[df["suite"] == suite].groupby("task", sort=True):
            ax.plot(d["t"], d["gain_points"], lw=0.9, label=f"{task} (n={d['n'].iloc[0]:,})")
        ax.set_xscale("log")
        ax.set_xlim(1, FIG8_001_TS[-1])
        ax.set_ylim(bottom=0)
        for y in (1, 10):
            ax.axhline(y, color="gray", lw=0.6, ls=":")
        ax.set_title(suite, fontweight="bold")
        ax.set_xlabel("t = number of evaluations")
        ax.legend(fontsize=4.5, loc="upper left", frameon=False)
    axs[0].set_ylabel("max random baseline above\nstandard (accuracy points)", fontweight="bold")
    fig.tight_layout()
    savefig(fig, [f for f in figure if not str(f).endswith(".csv")])


# ------------------------------------------------------------- held-out Figures 5, 8
def _roc(ax, df, points=True):
    from sklearn.metrics import roc_curve

    y = df[heldout.LABEL].to_numpy()
    fpr, tpr, _ = roc_curve(y, df[heldout.SCORE["max"]])
    ax.plot(fpr, tpr, color="black", lw=1.5, label="Distribution functions")
    ax.fill_between(fpr, 0, tpr, color="#eeeeee", lw=0)
    for which, color, marker in (
        ("standard", COLORS["standard"], "o"),
        ("max", COLORS["max"], "X"),
    ):
        fpr, tpr, _ = roc_curve(y, df[heldout.PRED[which]])
        ax.plot(fpr, tpr, color=color, lw=2, alpha=0.8)
        pred = df[heldout.PRED[which]].to_numpy()
        tp, fp = ((pred == 1) & (y == 1)).sum(), ((pred == 1) & (y == 0)).sum()
        ax.scatter(
            fp / max((y == 0).sum(), 1),
            tp / max((y == 1).sum(), 1),
            marker=marker,
            s=80,
            color=color,
            zorder=5,
            edgecolor="white",
            label=f"{which.capitalize()} random baseline",
        )
    ax.plot([0, 1], [0, 1], color="black", ls="--", lw=1)
    ax.set(xlim=(0, 1), ylim=(0, 1), xlabel="False positive rate", ylabel="True positive rate")


def _pr(ax, df):
    from sklearn.metrics import precision_recall_curve

    y = df[heldout.LABEL].to_numpy()
    p, r, _ = precision_recall_curve(y, df[heldout.SCORE["max"]])
    ax.plot(r, p, color="black", lw=1.5)
    ax.fill_between(r, 0, p, color="#eeeeee", lw=0)
    for which, color, marker in (
        ("standard", COLORS["standard"], "o"),
        ("max", COLORS["max"], "X"),
    ):
        p, r, _ = precision_recall_curve(y, df[heldout.PRED[which]])
        ax.step(r, p, where="post", color=color, lw=2, alpha=0.8)
        pred = df[heldout.PRED[which]].to_numpy()
        tp, fp = ((pred == 1) & (y == 1)).sum(), ((pred == 1) & (y == 0)).sum()
        ax.scatter(
            tp / max(y.sum(), 1),
            tp / max(tp + fp, 1),
            marker=marker,
            s=80,
            color=color,
            zorder=5,
            edgecolor="white",
        )
    ax.axhline(y.mean(), color="black", ls="--", lw=1)
    ax.set(xlim=(0, 1), ylim=(0, 1), xlabel="Recall", ylabel="Precision")


def figure5(predictions: pd.DataFrame, outputs, t=200):
    df = predictions[predictions["t"] == t]
    fig, axs = plt.subplots(1, 2, figsize=(8, 3.6))
    _roc(axs[0], df)
    _pr(axs[1], df)
    axs[0].legend(loc="lower right", fontsize=7)
    fig.suptitle(f"Predicting above-random test accuracy from validation accuracy (t = {t})")
    fig.tight_layout()
    savefig(fig, outputs)


def figure8(predictions: pd.DataFrame, outputs):
    ts = sorted(predictions["t"].unique())
    rows = int(np.ceil(len(ts) / 3))
    fig, axs = plt.subplots(rows, 3, figsize=(10, 3.4 * rows), squeeze=False)
    for ax, t in zip(axs.flat, ts, strict=False):
        _roc(ax, predictions[predictions["t"] == t])
        ax.set_title(f"t = {t}", fontweight="bold")
    for ax in axs.flat[len(ts) :]:
        ax.set_visible(False)
    axs.flat[0].legend(loc="lower right", fontsize=7)
    fig.tight_layout()
    savefig(fig, outputs)


def make(name: str, outputs, aggregated=None, baselines=None, predictions=None):
    """Draw one figure by name ('figure1' .. 'figure11')."""
    if name in FULL_RESULTS:
        return full_results(aggregated, baselines, outputs, *FULL_RESULTS[name])
    table = {
        "figure1": lambda: figure1(aggregated, baselines, outputs),
        "figure2": lambda: figure2(baselines, outputs),
        "figure3": lambda: figure3(
            aggregated,
            baselines,
            outputs,
            model=(
                "OLMo-7B"
                if any(c.model == "OLMo-7B" for c in aggregated)
                else sorted(aggregated)[0].model
            ),
        ),
        "figure4": lambda: figure4(aggregated, baselines, outputs),
        "figure5": lambda: figure5(predictions, outputs),
        "figure6": lambda: figure6(baselines, outputs),
        "figure7": lambda: figure7(baselines, outputs),
        "figure8": lambda: figure8(predictions, outputs),
        "figure9_001": lambda: figure9_001(baselines, outputs),
    }
    if name not in table:
        raise ValueError(f"unknown baselines figure {name!r}")
    return table[name]()
