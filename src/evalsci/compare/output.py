"""`evalsci compare`'s outputs: a terminal table (at most 100 columns, narrower with
$COLUMNS), CSV (every column of evalsci.compare.core.COLUMNS), JSON, and a forest plot."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pandas as pd

MAX_WIDTH = 100


def width() -> int:
    return max(60, min(MAX_WIDTH, shutil.get_terminal_size((MAX_WIDTH, 24)).columns))


def _num(x, fmt: str) -> str:
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, fmt)


def _p(x) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    return f"{x:.2g}" if x >= 1e-4 else "<1e-4"


def terminal(table: pd.DataFrame, notes: list[str], rope: float) -> str:
    """Per pair: the population row, then the tasks; columns cut to the terminal width (the
    task name shortened first)."""
    w = width()
    out = []
    for (a, b), rows in table.groupby(["model_a", "model_b"], sort=False):
        out.append(f"B = {b}  vs  A = {a}  (effects: B - A in accuracy points)")
        fixed = 7 + 7 + 20 + 7 + 8 + 8 + 7 + 3
        name_w = max(8, min(40, w - fixed))
        head = (
            f"{'task':<{name_w}} {'n':>6} {'raw':>6} {'effect [95% int.]':>19} "
            f"{'P(B>A)':>6} {'P(rope)':>7} {'p exact':>7} {'adj.':>6} {'ok':>2}"
        )
        out.append(head[:w])
        for r in rows.itertuples():
            name = "ALL (population)" if r.scope == "population" else str(r.task)
            if len(name) > name_w:
                name = name[: name_w - 1] + "~"
            interval = (
                f"{r.effect:+.1f} [{r.low:+.1f},{r.high:+.1f}]" if not math.isnan(r.effect) else ""
            )
            agree = "" if pd.isna(r.agree) else ("y" if r.agree else "NO")
            line = (
                f"{name:<{name_w}} {r.n:>6} {r.raw_diff:>+6.1f} {interval:>19} "
                f"{_num(r.prob_b_better, '.3f'):>6} {_num(r.prob_rope, '.3f'):>7} "
                f"{_p(r.p_exact):>7} {_p(r.p_exact_adjusted):>6} {agree:>2}"
            )
            out.append(line[:w])
        out.append("")
    out.append(
        "raw: B - A on the task's items (population: mean over tasks); effect: posterior mean "
        "and 95% interval (population: a typical task); P(rope): |effect| < "
        f"{rope:g} point(s); p exact: McNemar (shared items) / Fisher per task, sign test "
        "across tasks; ok: the Bayesian and exact verdicts agree"
    )
    return "\n".join(_wrap(line, w) for line in out + notes) + "\n"


def _wrap(line: str, w: int) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(line, w, subsequent_indent="  ")) if len(line) > w else line


def to_json(table: pd.DataFrame, notes: list[str], fits: dict) -> str:
    rows = json.loads(table.to_json(orient="records", double_precision=15))
    diag = [
        {
            "model_a": a,
            "model_b": b,
            "divergences": f.divergences,
            "chains": f.settings.chains,
            "draws": f.post["beta"].shape[1],
            "parameters": {k: {"r_hat": v[0], "ess_bulk": v[1]} for k, v in f.diagnostics.items()},
        }
        for (a, b), f in fits.items()
    ]
    return json.dumps({"rows": rows, "diagnostics": diag, "notes": notes}, indent=1) + "\n"


def forest(table: pd.DataFrame, path: Path) -> list[Path]:
    """A forest plot per pair: each task's raw difference (x) and shrunken effect with its 95%
    interval, the population effect last. Writes `path` and its .png/.pdf sibling."""
    import matplotlib.pyplot as plt

    from evalsci.plots import savefig

    outputs = [path.with_suffix(".png"), path.with_suffix(".pdf")]
    groups = list(table.groupby(["model_a", "model_b"], sort=False))
    height = max(len(rows) for _, rows in groups) * 0.22 + 1.2
    fig, axs = plt.subplots(1, len(groups), figsize=(5.5 * len(groups), height), squeeze=False)
    for ax, ((a, b), rows) in zip(axs[0], groups, strict=True):
        rows = rows.iloc[::-1]  # tasks top-down in name order, the population row on top
        y = np.arange(len(rows))
        pop = (rows["scope"] == "population").to_numpy()
        ax.errorbar(
            rows["effect"],
            y,
            xerr=[rows["effect"] - rows["low"], rows["high"] - rows["effect"]],
            fmt="none",
            ecolor="#1f77b4",
            elinewidth=1,
        )
        ax.plot(rows["effect"][~pop], y[~pop], "o", color="#1f77b4", ms=3, label="shrunken")
        ax.plot(rows["effect"][pop], y[pop], "D", color="#d62728", ms=5, label="population")
        ax.plot(rows["raw_diff"], y, "x", color="#7f7f7f", ms=3, label="raw")
        ax.axvline(0, color="black", lw=0.8)
        labels = ["population" if p else str(t) for p, t in zip(pop, rows["task"], strict=True)]
        ax.set_yticks(y, [lab[:30] for lab in labels])
        ax.set_xlabel(f"{b} - {a} (accuracy points)")
        ax.legend(loc="best", frameon=False)
    fig.tight_layout()
    for out in outputs:
        out.parent.mkdir(parents=True, exist_ok=True)
    savefig(fig, outputs)
    return outputs
