"""Section 5.2 / Appendix D: does max validation accuracy above a baseline predict that
held-out test accuracy is above random? (Tables 3 and 4, Figures 5 and 8.)

Procedure (the paper's Section 5.2 and the authors' split script):
  per experiment and split, 75% of the distinct Example IDs (floor) are the validation
  ("train") set and the rest the test set; among t prompts (a random subset of the 200 when
  t < 200) the prompt with the best validation accuracy is chosen;
  prediction `standard`: validation accuracy > p; prediction `max`: validation accuracy >
  E[max of t random classifiers on num_train examples]; label: that prompt's test accuracy
  > p. Scores for the ROC/PR curves (Figure 5, gray): the distribution functions F of the
  two baselines at the validation count (same ranking for both baselines).
Metrics: accuracy, precision, recall of the binary predictions, and AUROC/AUPR of the
binary predictions used as scores (sklearn), as the authors computed them.
"""

from __future__ import annotations

import math
import zlib
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pandas as pd

from evalsci.data.bigbench_meta import num_choices
from evalsci.pipeline.progress import progress_bar
from evalsci.studies.baselines import keys
from evalsci.studies.baselines.columns import HELDOUT_COLUMNS
from evalsci.studies.baselines.formatting import fmt, md_table, tex_escape
from evalsci.studies.baselines.load import HELDOUT_TS, read_per_example
from evalsci.studies.baselines.settings import HELDOUT_MODEL, MODELS, PAPER_MODEL, Cell

METRICS = ("accuracy", "precision", "recall", "auroc", "aupr")
LABEL = "Above standard random on test"
PRED = {"standard": "Above standard random on train", "max": "Above max random on train"}
SCORE = {"standard": "Standard random F", "max": "Max random F"}
TRAIN_FRACTION = 0.75
SPLITS = 100
# Table 4 row order of the paper (language_identification, absent there, goes last).
TABLE4_ORDER = (
    "code_line_description",
    "bbq_lite_json",
    "hindu_knowledge",
    "novel_concepts",
    "emoji_movie",
    "vitaminc_fact_verification",
    "conceptual_combinations",
    "formal_fallacies_syllogisms_negation",
    "known_unknowns",
    "logical_deduction",
    "play_dialog_same_or_different",
    "strange_stories",
    "symbol_interpretation",
    "winowhy",
    "strategyqa",
    "language_identification",
)


# ----------------------------------------------------------------------------- metrics
def metrics(df: pd.DataFrame) -> dict:
    """Metrics of both binary predictors over the rows of `df` (one t)."""
    from sklearn.metrics import average_precision_score, roc_auc_score

    y = df[LABEL].to_numpy().astype(int)
    out = {"trials": len(df), "pct_test_above": 100 * y.mean()}
    for which, col in PRED.items():
        pred = df[col].to_numpy().astype(int)
        tp, fp = int(((pred == 1) & (y == 1)).sum()), int(((pred == 1) & (y == 0)).sum())
        fn = int(((pred == 0) & (y == 1)).sum())
        out[f"accuracy_{which}"] = float((pred == y).mean())
        out[f"precision_{which}"] = tp / (tp + fp) if tp + fp else float("nan")
        out[f"recall_{which}"] = tp / (tp + fn) if tp + fn else float("nan")
        # ROC is undefined with one class in the labels (paper prints "n/a").
        out[f"auroc_{which}"] = float(roc_auc_score(y, pred)) if len(set(y)) > 1 else float("nan")
        out[f"aupr_{which}"] = float(average_precision_score(y, pred)) if y.any() else float("nan")
    return out


def distribution_scores(df: pd.DataFrame) -> dict:
    """AUROC/AUPR of the baselines' distribution functions as confidence scores."""
    from sklearn.metrics import average_precision_score, roc_auc_score

    y = df[LABEL].to_numpy().astype(int)
    return {
        f"{m}_{w}": float(f(y, df[SCORE[w]].to_numpy()))
        for w in SCORE
        for m, f in (("auroc", roc_auc_score), ("aupr", average_precision_score))
    }


def full_grid(pred: pd.DataFrame) -> bool:
    """All 288 experiments present: only then are the paper's columns comparable."""
    return pred.groupby(["Dataset", "Model", "Number of shots"]).ngroups == 288


def _with_paper(rows: list[dict], ref_rows: dict, metrics_in_paper) -> pd.DataFrame:
    df = pd.DataFrame(rows)
    df["pct_test_above_paper"] = [ref_rows.get(r, {}).get("pct", np.nan) for r in df.iloc[:, 0]]
    for m in metrics_in_paper:
        for i, w in enumerate(("standard", "max")):
            vals = []
            for r in df.iloc[:, 0]:
                v = ref_rows.get(r, {}).get(m)
                vals.append(np.nan if v is None or v[i] is None else v[i])
            df[f"{m}_{w}_paper"] = vals
    return df


def _metric_columns():
    return [f"{m}_{w}" for m in METRICS for w in ("standard", "max")]


def table3(pred: pd.DataFrame, ref: dict, t: int = 200) -> pd.DataFrame:
    """Per-model metrics at t (paper: t = 200) plus a Total row."""
    d = pred[pred["t"] == t]
    name = {HELDOUT_MODEL[m]: PAPER_MODEL[m] for m in MODELS}
    name.update({m: m for m in d["Model"].unique() if m not in name})  # non-paper models
    rows = []
    for held, paper in name.items():
        sub = d[d["Model"] == held]
        if len(sub):
            rows.append({"model": paper, **metrics(sub)})
    rows.append({"model": "Total", **metrics(d)})
    df = _with_paper(rows, ref["rows"] if full_grid(d) else {}, METRICS)
    return df[
        [
            "model",
            "trials",
            "pct_test_above",
            *_metric_columns(),
            "pct_test_above_paper",
            *[c for c in df.columns if c.endswith("_paper") and c != "pct_test_above_paper"],
        ]
    ]


def table4(pred: pd.DataFrame, ref: dict, t: int = 200) -> pd.DataFrame:
    """Per-dataset metrics at t plus a Total row (paper prints AUROC/AUPR only)."""
    d = pred[pred["t"] == t]
    rows = [
        {"dataset": ds, **metrics(d[d["Dataset"] == ds])}
        for ds in TABLE4_ORDER
        if (d["Dataset"] == ds).any()
    ]
    rows.append({"dataset": "Total", **metrics(d)})
    df = _with_paper(rows, ref["rows"] if full_grid(d) else {}, ("auroc", "aupr"))
    return df[
        [
            "dataset",
            "trials",
            "pct_test_above",
            *_metric_columns(),
            "pct_test_above_paper",
            *[c for c in df.columns if c.endswith("_paper") and c != "pct_test_above_paper"],
        ]
    ]


def _pair(ours, paper) -> str:
    return (
        fmt(ours)
        if paper is None or (isinstance(paper, float) and np.isnan(paper))
        else f"{fmt(ours)} ({fmt(paper)})"
    )


def to_markdown(df: pd.DataFrame, metrics_shown=METRICS) -> str:
    first = df.columns[0]
    header = [first.capitalize()] + [
        f"{m.upper() if m.startswith('au') else m.capitalize()} {w}"
        for m in metrics_shown
        for w in ("std", "max")
    ]
    rows = []
    for r in df.to_dict("records"):
        pct = f"{r['pct_test_above']:.0f}%"
        label = f"{r[first]} ({pct}" + (
            f"; paper {r['pct_test_above_paper']:.0f}%)"
            if not np.isnan(r["pct_test_above_paper"])
            else ")"
        )
        rows.append(
            [label]
            + [
                _pair(r[f"{m}_{w}"], r.get(f"{m}_{w}_paper"))
                for m in metrics_shown
                for w in ("standard", "max")
            ]
        )
    note = (
        "Ours (paper in parentheses). Percentages: trials whose best prompt's test "
        "accuracy is above random. std = standard random baseline, max = maximum random "
        "baseline; AUROC/AUPR use the binary predictions as scores; n/a: one class only."
    )
    return md_table(header, rows) + "\n\n" + note + "\n"


def to_latex(df: pd.DataFrame, metrics_shown=METRICS) -> str:
    first = df.columns[0]
    spec = "l" + "rr" * len(metrics_shown)
    lines = [
        f"\\begin{{tabular}}{{{spec}}}",
        r"\toprule",
        " & "
        + " & ".join(
            f"\\multicolumn{{2}}{{c}}{{{m.upper() if m.startswith('au') else m.capitalize()}}}"
            for m in metrics_shown
        )
        + r" \\",
        f"{first.capitalize()} & " + " & ".join("Standard & Max" for _ in metrics_shown) + r" \\",
        r"\midrule",
    ]
    for r in df.to_dict("records"):
        name = tex_escape(str(r[first])) + f" ({r['pct_test_above']:.0f}\\%)"
        if r[first] == "Total":
            lines.append(r"\midrule")
        lines.append(
            name
            + " & "
            + " & ".join(fmt(r[f"{m}_{w}"]) for m in metrics_shown for w in ("standard", "max"))
            + r" \\"
        )
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------- the split procedure itself
def _cell_seed(seed: int, cell: Cell) -> int:
    return (int(seed) * 1_000_003 + zlib.crc32(cell.key.encode())) % (2**32)


def split_cell(cell: Cell, path, seed: int, splits: int = SPLITS, ts=HELDOUT_TS) -> pd.DataFrame:
    """Run the held-out split procedure on one experiment's per-example results.

    Returns one row per (split, t): num_train, the chosen prompt, its validation
    ("train") accuracy and count, and its test accuracy."""
    df = read_per_example(path, ["Prompt ID", "Example ID", "Correct prediction"])
    wide = df.pivot_table(
        index="Prompt ID", columns="Example ID", values="Correct prediction", aggfunc="mean"
    )
    prompts, ids = wide.index.to_numpy(), wide.columns.to_numpy()
    values = wide.to_numpy()
    present = ~np.isnan(values)
    values = np.nan_to_num(values)
    rng = np.random.default_rng(_cell_seed(seed, cell))
    num_train = math.floor(len(ids) * TRAIN_FRACTION)
    rows = []
    for split in range(splits):
        train = np.zeros(len(ids), bool)
        train[rng.choice(len(ids), num_train, replace=False)] = True
        with np.errstate(invalid="ignore", divide="ignore"):
            train_acc = (values * train).sum(1) / (present * train).sum(1)
            test_acc = (values * ~train).sum(1) / (present * ~train).sum(1)
        for t in ts:
            use = (
                np.arange(len(prompts))
                if len(prompts) <= t
                else np.sort(rng.choice(len(prompts), t, replace=False))
            )
            best = use[np.nanargmax(train_acc[use])]
            rows.append(
                {
                    "dataset": cell.task,
                    "model": cell.model,
                    "shots": cell.shots,
                    "split": split,
                    "t": t,
                    "num_train": num_train,
                    "prompt": int(prompts[best]),
                    "train_acc": float(train_acc[best]),
                    "test_acc": float(test_acc[best]),
                }
            )
    return pd.DataFrame(rows)


def _split_job(args):
    return split_cell(*args)


def split_all(
    files: dict[Cell, object], seed: int, threads: int = 1, splits: int = SPLITS, ts=HELDOUT_TS
) -> pd.DataFrame:
    jobs = [(cell, path, seed, splits, tuple(ts)) for cell, path in sorted(files.items())]
    if threads > 1:
        with ProcessPoolExecutor(threads) as pool:
            parts = list(
                progress_bar(pool.map(_split_job, jobs), total=len(jobs), desc="held-out splits")
            )
    else:
        parts = [_split_job(j) for j in progress_bar(jobs, desc="held-out splits")]
    return pd.concat(parts, ignore_index=True)


def _counts(splits: pd.DataFrame) -> np.ndarray:
    """Correct validation answers of each chosen prompt: accuracy x num_train, ROUNDED
    (the authors floored, which turns 44.999... into 44)."""
    from evalsci.maxrandom import correct_count

    acc, n = splits["train_acc"].to_numpy(), splits["num_train"].to_numpy()
    out = np.empty(len(acc), dtype=np.int64)
    for value in np.unique(n):
        sel = n == value
        out[sel] = correct_count(acc[sel], int(value))
    return out


def split_request_keys(splits: pd.DataFrame) -> set[str]:
    """E[max](num_train, p, t) and, for the F scores, P(>= count + 1) (F(c) = 1 - that)."""
    k = splits["dataset"].map(num_choices).to_numpy()
    n, t, c = splits["num_train"].to_numpy(), splits["t"].to_numpy(), _counts(splits)
    out = {keys.emax(*q) for q in set(zip(n, k, t, strict=True))}
    has = c < n
    out |= {keys.tail(*q) for q in set(zip(n[has], k[has], t[has], c[has] + 1, strict=True))}
    return out


def predictions(splits: pd.DataFrame, baselines: keys.Baselines) -> pd.DataFrame:
    """The authors' prediction schema (plus `t`) from our splits and the maxrandom table."""
    k = splits["dataset"].map(num_choices).to_numpy()
    n, t = splits["num_train"].to_numpy(), splits["t"].to_numpy()
    c = _counts(splits)
    emax = baselines.many([keys.emax(*q) for q in zip(n, k, t, strict=True)], "expected_max")
    # F(c) = P(X <= c) = 1 - P(X >= c + 1); F = 1 when every validation answer is correct
    has = c < n
    tail_keys = [keys.tail(*q) for q in zip(n[has], k[has], t[has], c[has] + 1, strict=True)]
    f_std, f_max = np.ones(len(c)), np.ones(len(c))
    f_std[has] = 1.0 - baselines.many(tail_keys, "tail_standard")
    f_max[has] = 1.0 - baselines.many(tail_keys, "tail_max")
    p = 1.0 / k
    return pd.DataFrame(
        {
            "Dataset": splits["dataset"],
            "Model": splits["model"].map(lambda m: HELDOUT_MODEL.get(m, m)),
            "Number of shots": splits["shots"],
            "Split number": splits["split"],
            "Above max random on train": (splits["train_acc"].to_numpy() > emax).astype(int),
            "Above standard random on train": (splits["train_acc"].to_numpy() > p).astype(int),
            "Max random F": f_max,
            "Standard random F": f_std,
            "Above standard random on test": (splits["test_acc"].to_numpy() > p).astype(int),
            "t": t,
        },
        columns=[*HELDOUT_COLUMNS, "t"],
    )
