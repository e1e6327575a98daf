"""Table 1: agreement of the standard and the maximum random baseline (Section 5.1).

For each experiment (model, task, shots) the best of its prompts' validation accuracies
is compared with
  - the standard random baseline p = 1/k, and
  - the expected maximum accuracy of t random classifiers on the setting's exact n
    (Appendix B: n = N - shots for tasks under 200 examples, t = N for their 1-shot).
The comparisons follow the authors' Table 1 script: above standard <=> max acc >= p;
above max <=> max acc > E[max]. (Using > for the standard baseline gives the same table.)
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from evalsci.data.bigbench_meta import num_choices
from evalsci.studies.baselines import keys
from evalsci.studies.baselines.columns import TABLE1_COLUMNS
from evalsci.studies.baselines.formatting import md_table, tex_escape
from evalsci.studies.baselines.settings import (
    BASE_MODELS,
    INSTRUCT_MODELS,
    LETTER,
    SHOTS,
    Cell,
    display_size,
    eval_size,
    num_prompts,
)

SYMBOL_MD = {"below_both": "○", "above_standard_only": "◐", "above_both": "●", None: "·"}
SYMBOL_TEX = {
    "below_both": r"\fullmoon",
    "above_standard_only": r"\quartermoon",
    "above_both": r"\newmoon",
    None: r"\cdot",
}
# Table columns: (label, models, shots) in the paper's order.
GROUPS = [(f"{k}-shot", BASE_MODELS, k) for k in SHOTS] + [
    (f"{k}-shot instr.", INSTRUCT_MODELS, k) for k in SHOTS
]


def _groups(df: pd.DataFrame):
    """Column groups: the paper's (base L O F / instruction-tuned A O F per shots), or, for
    a recompute with other models, one group per shots over the models present."""
    if set(df.model) <= set(BASE_MODELS + INSTRUCT_MODELS):
        return GROUPS
    models = tuple(dict.fromkeys(df.model))
    return [(f"{k}-shot", models, k) for k in sorted(df.shots.unique())]


def request_keys(aggregated: dict[Cell, np.ndarray]) -> set[str]:
    """Baselines Table 1 needs: E[max] at each setting's exact (n, t), and t = 1."""
    out = set()
    for c, accs in aggregated.items():
        n, k = eval_size(c.task, c.shots), num_choices(c.task)
        out |= {keys.emax(n, k, num_prompts(c.task, c.shots, len(accs))), keys.emax(n, k, 1)}
    return out


def verdict(acc: float, standard: float, maximum: float) -> str:
    if not acc >= standard:
        return "below_both"
    return "above_both" if acc > maximum else "above_standard_only"


def build(aggregated: dict[Cell, np.ndarray], baselines: keys.Baselines) -> pd.DataFrame:
    rows = []
    for cell, accs in aggregated.items():
        n, k = eval_size(cell.task, cell.shots), num_choices(cell.task)
        t = num_prompts(cell.task, cell.shots, len(accs))
        standard = baselines.standard(n, k)
        maximum = baselines.expected_max(n, k, t)
        best = float(np.max(accs))
        rows.append(
            [
                cell.task,
                n,
                cell.model,
                cell.shots,
                t,
                best,
                standard,
                maximum,
                verdict(best, standard, maximum),
            ]
        )
    df = pd.DataFrame(rows, columns=TABLE1_COLUMNS)
    order = {m: i for i, m in enumerate(BASE_MODELS + INSTRUCT_MODELS)}
    return (
        df.assign(_n=df.dataset.map(display_size), _m=df.model.map(order))
        .sort_values(["_n", "dataset", "shots", "_m"])
        .drop(columns=["_n", "_m"])
        .reset_index(drop=True)
    )


def summary(df: pd.DataFrame) -> dict:
    above_std = int((df.verdict != "below_both").sum())
    dis = int((df.verdict == "above_standard_only").sum())
    return {
        "experiments": len(df),
        "above_standard": above_std,
        "above_max": int((df.verdict == "above_both").sum()),
        "disagreements": dis,
        "percent_flipped": round(100 * dis / above_std, 1) if above_std else float("nan"),
    }


def _grid(df: pd.DataFrame):
    """verdict per (dataset, model, shots); datasets in the paper's order (n, name)."""
    v = {(r.dataset, r.model, r.shots): r.verdict for r in df.itertuples()}
    datasets = sorted(df.dataset.unique(), key=lambda d: (display_size(d), d))
    return v, datasets


def _col_stats(df, models, shots):
    sub = df[df.model.isin(models) & (df.shots == shots)]
    per_model = [
        int(((sub.model == m) & (sub.verdict == "above_standard_only")).sum()) for m in models
    ]
    above = int((sub.verdict != "below_both").sum())
    dis = sum(per_model)
    return per_model, dis, (f"{100 * dis / above:.0f}%" if above else "n/a")


def _paper_rows(ref: dict):
    pm = [" ".join(map(str, x)) for x in ref["disagreements_per_model_column"]]
    tot = [str(x) for x in ref["disagreements_per_column"]]
    pct = [f"{x}%" for x in ref["percent_flipped_per_column"]]
    return pm, tot, pct


def to_markdown(df: pd.DataFrame, ref: dict, full_grid: bool) -> str:
    v, datasets = _grid(df)
    groups = _groups(df)
    header = (
        ["BIG-bench Lite dataset", "n"]
        + [f"{lab} ({' '.join(LETTER.get(m, m) for m in ms)})" for lab, ms, _ in groups]
        + ["Total"]
    )
    if full_grid:
        header.append("Total (paper)")
    rows = []
    for d in datasets:
        row = [d, str(display_size(d))]
        for _, models, k in groups:
            row.append(" ".join(SYMBOL_MD[v.get((d, m, k))] for m in models))
        row.append(str(int(((df.dataset == d) & (df.verdict == "above_standard_only")).sum())))
        if full_grid:
            row.append(str(ref["disagreements_per_dataset"][d]))
        rows.append(row)
    stats = [_col_stats(df, ms, k) for _, ms, k in groups]
    s = summary(df)
    pad = [""] if full_grid else []
    rows.append(
        ["Baseline disagreements per model ◐", ""]
        + [" ".join(map(str, pm)) for pm, _, _ in stats]
        + [""]
        + pad
    )
    rows.append(
        ["Total baseline disagreements ◐", ""]
        + [str(d) for _, d, _ in stats]
        + [str(s["disagreements"])]
        + ([str(ref["disagreements"])] if full_grid else [])
    )
    rows.append(
        ["Total percentage flipped ◐/(◐+●)", ""]
        + [p for _, _, p in stats]
        + [f"{s['percent_flipped']:.0f}%"]
        + ([f"{ref['percent_flipped']:.0f}%"] if full_grid else [])
    )
    if full_grid:
        pm, tot, pct = _paper_rows(ref)
        rows.append(["(paper) disagreements per model", ""] + pm + ["", ""])
        rows.append(["(paper) total disagreements", ""] + tot + [str(ref["disagreements"])] * 2)
        rows.append(
            ["(paper) percentage flipped", ""] + pct + [f"{ref['percent_flipped']:.0f}%"] * 2
        )
    text = md_table(header, rows)
    legend = (
        "○: best prompt below both baselines; ◐: above the standard random baseline "
        "but not above the maximum random baseline; ●: above both; · not evaluated. "
        "L: Llama-2-7b, O: OLMo-7B(-Instruct), F: Falcon-7b(-instruct), A: Alpaca-7b. "
        "n: examples (min(200, N)); each judgement uses the setting's exact n and t."
    )
    totals = (
        f"Experiments: {s['experiments']}; above standard: {s['above_standard']}; "
        f"above max: {s['above_max']}; disagreements: {s['disagreements']} "
        f"({s['percent_flipped']:.1f}% of those above standard)."
    )
    if full_grid:
        totals += (
            f" Paper: {ref['experiments']}; {ref['above_standard']}; {ref['above_max']}; "
            f"{ref['disagreements']} ({ref['percent_flipped']:.1f}%)."
        )
    else:
        totals += " (A subset of the paper's 288 experiments: paper totals not comparable.)"
    return f"{text}\n\n{legend}\n\n{totals}\n"


def to_latex(df: pd.DataFrame, ref: dict, full_grid: bool) -> str:
    v, datasets = _grid(df)
    groups = _groups(df)
    s = summary(df)
    lines = [
        "% Table 1 (needs \\usepackage{wasysym, booktabs}); generated by evalsci",
        r"\begin{tabular}{lr" + "c" * len(groups) + "r}",
        r"\toprule",
        *(
            [r" & & \multicolumn{3}{c}{Base model} & \multicolumn{3}{c}{Instruction-tuned} & \\"]
            if groups is GROUPS
            else []
        ),
        r" & & " + " & ".join(lab.replace(" instr.", "") for lab, _, _ in groups) + r" & \\",
        r"BIG-bench Lite dataset & $n$ & "
        + " & ".join(" ".join(LETTER.get(m, m) for m in ms) for _, ms, _ in groups)
        + r" & Total \\",
        r"\midrule",
    ]
    for d in datasets:
        cells = [" ".join(SYMBOL_TEX[v.get((d, m, k))] for m in ms) for _, ms, k in groups]
        dis = int(((df.dataset == d) & (df.verdict == "above_standard_only")).sum())
        lines.append(
            rf"{{\small \texttt{{{tex_escape(d)}}}}} & {display_size(d)} & "
            + " & ".join(cells)
            + rf" & {dis} \\"
        )
    stats = [_col_stats(df, ms, k) for _, ms, k in groups]
    lines += [
        r"\midrule",
        r"Baseline disagreements per model \quartermoon & & "
        + " & ".join(" ".join(map(str, pm)) for pm, _, _ in stats)
        + r" & \\",
        r"Total baseline disagreements \quartermoon & & "
        + " & ".join(str(dd) for _, dd, _ in stats)
        + rf" & {s['disagreements']} \\",
        r"Total percentage flipped & & "
        + " & ".join(p.replace("%", r"\%") for _, _, p in stats)
        + rf" & {s['percent_flipped']:.0f}\% \\",
        r"\bottomrule",
        r"\end{tabular}",
    ]
    return "\n".join(lines) + "\n"
