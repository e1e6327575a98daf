"""`evalsci audit --plot FILE`: each task's scores against the standard and the max random
baseline, in the style of Yauney & Mimno's Figure 1 (the baselines study's `figure1`).

One column per task (four columns to a row of panels), three panels each:
  1. the task's scores (a histogram of their accuracies, the best dashed, both baselines
     dotted);
  2. one random classifier's accuracy distribution, the standard baseline dashed;
  3. the best of t random classifiers' accuracy distribution (t by the audit's rule), the
     expected maximum (the max random baseline) dashed.
The distributions are drawn for the task's most common (n, options, t); a title says when some
scores of the task have another (their own baselines are in the table). The x-range holds the
middle 99.8% of both random distributions and every score.

Past PANELS tasks, a compact overview instead: one line per task (its name on the y-axis), the
middle 99% of one random guesser's accuracy (light bar) and of the best of t (dark bar), both
baselines as ticks, and each score as a dot coloured by model (legend), PER_PAGE tasks to a
page (a PNG per page, `name.png`, `name_p2.png`, ...; one multi-page PDF).

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
PANELS = 8  # more tasks than this: the overview
PER_PAGE = 60
MODEL_COLOURS = 10  # more models than this: one colour, no legend


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
    q_lo, q_hi = _quantiles(pmf1, n, 0.001, 0.999)
    t_lo, t_hi = _quantiles(pmft, n, 0.001, 0.999)
    lo = max(0.0, min(q_lo, t_lo, accs.min()) - 1.5 / n)
    hi = min(1.0, max(q_hi, t_hi, best) + 1.5 / n)
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
    axs[0].set_ylabel("share of scores", fontsize=6)
    axs[1].set_ylabel("probability", fontsize=6)
    axs[2].set_ylabel("probability", fontsize=6)
    if len(rows) <= 6:  # few scores: name each model at its score
        for y, (acc, model) in enumerate(zip(accs, rows["model"].astype(str), strict=True)):
            axs[0].annotate(_short(model, 18), (acc, 0), xytext=(2, 8 + 7 * y),
                            textcoords="offset points", fontsize=5, color=SCORES[1])  # fmt: skip


def _short(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _quantiles(pmf: np.ndarray, n: int, lo: float, hi: float) -> tuple[float, float]:
    """The accuracies at the `lo` and `hi` quantiles of a count distribution on 0..n."""
    cdf = np.cumsum(pmf)
    return float(np.searchsorted(cdf, lo) / n), float(min(np.searchsorted(cdf, hi), n) / n)


def _overview_page(tasks: list[str], judged: pd.DataFrame, colour: dict, page: str):
    """One page of the compact overview: a line per task."""
    import matplotlib.pyplot as plt

    from evalsci.maxrandom import max_pmf

    fig, ax = plt.subplots(figsize=(9.5, 1.2 + 0.24 * len(tasks)))
    task_col = judged["task"].astype(str)
    xs = []
    for y, task in enumerate(tasks):
        rows = judged[task_col == task]
        key = rows[["n", "choices", "t"]].astype(str).agg("|".join, axis=1)
        r = rows[key == key.value_counts().index[0]].iloc[0]
        n, t = int(r["n"]), int(r["t"])
        labels = _labels(r["choices"]) or {int(r["choices"]): n}
        one = _quantiles(max_pmf(n, labels, 1), n, 0.005, 0.995)
        best = _quantiles(max_pmf(n, labels, t), n, 0.005, 0.995)
        ax.plot(one, [y, y], color=ONE[0], lw=7, solid_capstyle="butt")
        ax.plot(best, [y, y], color=BEST[1], lw=3, solid_capstyle="butt", alpha=0.8)
        ax.plot([r["standard"]] * 2, [y - 0.35, y + 0.35], color=ONE[1], lw=1)
        ax.plot([r["max_baseline"]] * 2, [y - 0.35, y + 0.35], color=BEST[1], lw=1.5)
        accs = rows["accuracy"].to_numpy(dtype=float)
        cols = [colour.get(m, SCORES[1]) for m in rows["model"].astype(str)]
        ax.scatter(accs, np.full(len(accs), y), s=14, c=cols, zorder=3, edgecolors="white",
                   linewidths=0.4)  # fmt: skip
        xs += [*one, *best, *accs]
    ax.set_yticks(range(len(tasks)), [_short(x, 48) for x in tasks], fontsize=7)
    ax.set_ylim(len(tasks) - 0.5, -0.5)
    ax.set_xlim(max(0.0, min(xs) - 0.02), min(1.0, max(xs) + 0.02))
    ax.set_xlabel("accuracy", fontsize=8)
    ax.set_ylabel("task", fontsize=8)
    ax.tick_params(axis="x", labelsize=7)
    ax.grid(axis="x", lw=0.3, alpha=0.5)
    ax.set_title(
        f"evalsci audit{page}: bars, middle 99% of one random guesser (light) and of the best "
        "of t (dark); ticks, standard and max random baselines; dots, scores",
        fontsize=7, loc="left",
    )  # fmt: skip
    if colour:
        from matplotlib.lines import Line2D

        handles = [
            Line2D([], [], ls="", marker="o", color=c, label=_short(m, 30))
            for m, c in colour.items()
        ]
        ax.legend(handles=handles, fontsize=6, loc="upper left", bbox_to_anchor=(1.01, 1),
                  title="model", title_fontsize=7, frameon=False)  # fmt: skip
    fig.tight_layout()
    return fig


def plot_overview(judged: pd.DataFrame, path: Path) -> list[Path]:
    """The compact overview, PER_PAGE tasks to a page."""
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_pdf import PdfPages

    from evalsci.pipeline.jobs import atomic_path
    from evalsci.plots import savefig

    tasks = sorted(judged["task"].astype(str).unique())
    models = sorted(judged["model"].astype(str).unique())
    palette = plt.get_cmap("tab10").colors
    colour = dict(zip(models, palette, strict=False)) if len(models) <= MODEL_COLOURS else {}
    pages = [tasks[i : i + PER_PAGE] for i in range(0, len(tasks), PER_PAGE)]
    pdf = path.with_suffix(".pdf")
    outputs = []
    with (
        atomic_path(pdf) as tmp,
        PdfPages(tmp, metadata={"CreationDate": None, "ModDate": None}) as book,
    ):
        for k, page in enumerate(pages, 1):
            label = f" (page {k} of {len(pages)})" if len(pages) > 1 else ""
            fig = _overview_page(page, judged, colour, label)
            book.savefig(fig)
            png = path.with_suffix(".png") if k == 1 else path.with_name(f"{path.stem}_p{k}.png")
            savefig(fig, [png])  # closes the figure
            outputs.append(png)
    return [*outputs, pdf]


def plot_scores(judged: pd.DataFrame, path: str | Path) -> list[Path]:
    """Draw `judged` (audit rows) to `path` and its sibling (.png and .pdf). Returns both.
    Names are drawn as plain text: a task named `$x$ and $y$` is no mathtext (two `$` made
    matplotlib's parser fail, and the table was lost with the figure)."""
    import matplotlib.pyplot as plt

    import evalsci.plots  # noqa: F401  (its import sets the style: outside the context below)

    with plt.rc_context({"text.parse_math": False}):
        return _plot_scores(judged, path)


def _plot_scores(judged: pd.DataFrame, path: str | Path) -> list[Path]:
    import matplotlib.pyplot as plt

    from evalsci.plots import savefig

    path = Path(path)
    if path.suffix not in (".png", ".pdf"):
        raise ValueError(f"--plot: give a .png or .pdf file, got {path}")
    outputs = [path.with_suffix(".png"), path.with_suffix(".pdf")]
    tasks = sorted(judged["task"].astype(str).unique())
    if len(tasks) > PANELS:
        path.parent.mkdir(parents=True, exist_ok=True)
        return plot_overview(judged, path)
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
