"""`evalsci audit --plot FILE`: each task's scores against the standard and the max random
baseline, in the style of Yauney & Mimno's Figure 1 (the baselines study's `figure1`).

One column per task (four columns to a row of panels), three panels each:
  1. the task's scores (a histogram of their accuracies, the best dashed, both baselines
     dotted);
  2. one random classifier's accuracy distribution, the standard baseline dashed;
  3. the best of t random classifiers' accuracy distribution (t by the audit's rule), the
     expected maximum (the max random baseline) dashed.
The distributions are drawn for the task's most common (n, options, t); a title says when some
scores of the task have another (their own baselines are in the table).

Imported only by the command (matplotlib is not loaded for a plain audit).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd

SCORES = ("#f6cea6", "#fc9432")  # Figure 1's colours: scores, one guesser, best of t
ONE = ("#aac8e1", "#2c82de")
BEST = ("#8fb3d2", "#3d7bb1")
COLUMNS = 4


def _labels(choices) -> dict[int, int] | None:
    if isinstance(choices, str) and choices.startswith("{"):
        return {int(k): int(v) for k, v in json.loads(choices).items()}
    return None


def _panel(axs, task: str, rows: pd.DataFrame) -> None:
    from evalsci.maxrandom import max_pmf

    key = rows[["n", "choices", "t"]].astype(str).agg("|".join, axis=1)
    common = key.value_counts().index[0]
    main = rows[key == common]
    r = main.iloc[0]
    n, t = int(r["n"]), int(r["t"])
    labels = _labels(r["choices"]) or {int(r["choices"]): n}
    accs = rows["accuracy"].to_numpy(dtype=float)
    std, emax = float(r["standard"]), float(r["max_baseline"])
    k = np.arange(n + 1)
    pmf1 = max_pmf(n, labels, 1)
    pmft = max_pmf(n, labels, t)
    best = float(accs.max())
    lo = max(0.0, min(std, accs.min()) - 0.05)
    hi = min(1.0, max(best, emax) + 0.05)
    width = max(1 / n, (hi - lo) / 60)
    bins = np.arange(lo - width / 2, hi + width, width)
    axs[0].hist(accs, bins=bins, weights=np.full(len(accs), 1 / len(accs)), color=SCORES[0],
                edgecolor=SCORES[1])  # fmt: skip
    # the baselines on the scores' panel too: which scores clear which
    axs[0].axvline(std, color=ONE[1], ls=":", lw=1)
    axs[0].axvline(emax, color=BEST[1], ls=":", lw=1)
    other = len(rows) - len(main)
    title = f"{task}: {len(accs)} score{'s' if len(accs) > 1 else ''}" + (
        f" ({other} on another n or t)" if other else ""
    )
    axs[0].set_title(title, fontsize=7, loc="left")
    axs[1].bar(k / n, pmf1, width=1 / n, color=ONE[0], edgecolor=ONE[1], linewidth=0.3)
    axs[1].set_title("one random classifier", fontsize=7, loc="left")
    axs[2].bar(k / n, pmft, width=1 / n, color=BEST[0], edgecolor=BEST[1], linewidth=0.3)
    axs[2].set_title(f"best of t = {t} random classifiers", fontsize=7, loc="left")
    for ax, x, text, col in (
        (axs[0], best, "best", SCORES[1]),
        (axs[1], std, "standard", ONE[1]),
        (axs[2], emax, "max random", BEST[1]),
    ):
        ax.axvline(x, color=col, ls="--", lw=1.2)
        ax.text(x, 0.95, f" {text}: {x:.3f}", transform=ax.get_xaxis_transform(), color=col,
                fontsize=6, va="top", fontweight="bold")  # fmt: skip
        ax.set_xlim(lo, hi)
        ax.tick_params(labelsize=6)
    axs[2].set_xlabel(f"accuracy (n = {n})", fontsize=7)


def plot_scores(judged: pd.DataFrame, path: str | Path) -> list[Path]:
    """Draw `judged` (audit rows) to `path` and its sibling (.png and .pdf). Returns both."""
    import matplotlib.pyplot as plt

    from evalsci.plots import savefig

    path = Path(path)
    if path.suffix not in (".png", ".pdf"):
        raise ValueError(f"--plot: give a .png or .pdf file, got {path}")
    outputs = [path.with_suffix(".png"), path.with_suffix(".pdf")]
    tasks = sorted(judged["task"].astype(str).unique())
    ncol = min(COLUMNS, len(tasks))
    nblock = math.ceil(len(tasks) / ncol)
    fig, axs = plt.subplots(3 * nblock, ncol, figsize=(2.4 * ncol, 3.6 * nblock), squeeze=False)
    task_col = judged["task"].astype(str)
    for i, task in enumerate(tasks):
        b, c = divmod(i, ncol)
        _panel(axs[3 * b : 3 * b + 3, c], task, judged[task_col == task])
    for j in range(len(tasks), nblock * ncol):
        b, c = divmod(j, ncol)
        for ax in axs[3 * b : 3 * b + 3, c]:
            ax.set_visible(False)
    fig.tight_layout()
    for out in outputs:
        out.parent.mkdir(parents=True, exist_ok=True)
    savefig(fig, outputs)
    return outputs
