"""Choosing combinations on validation data (Section 4.3) and the Figure 2 / Table 3 tables.

- Generic assessor (and its restrictions "random selector", "reference only", "all train
  data"): for each validation LLM, the win rate of every combination against every other on
  validation AUC (ties count one half); the combination with the highest average win rate over
  the validation LLMs wins. (A plain average of AUCs would be dominated by the LLMs whose
  success is easiest to predict.)
- Specific assessor: for each test LLM, the (features, classifier) with the best AUC on that
  LLM's validation instances.
Ties are decided by a stated rule, not by float noise: win rates and AUCs are rounded to
`TIE_DECIMALS` decimals first (equal ones then tie exactly on every CPU), and a tie goes to
the first combination in sorted (features, selector, classifier) order for the generic
assessor and its restrictions, and to the first (features, classifier) in config order for
the specific assessor.
Every selection also reports t, the number of combinations it chose among: this is the t of
the max random baseline (choosing the best of t on validation data).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["METHODS", "COMBO_KEYS", "win_rates", "choose", "figure2_table", "table3"]

TIE_DECIMALS = 9
METHODS = ("generic", "specific", "reference_only", "all_train", "random_selector")
# Which result rows and which columns make one combination, per method.
COMBO_KEYS = {
    "generic": ("generic", ["features", "selector", "classifier"]),
    "random_selector": ("generic", ["features", "selector", "classifier"]),
    "reference_only": ("reference_only", ["selector", "classifier"]),
    "all_train": ("all_train", ["classifier"]),
}


def win_rates(val: pd.DataFrame, keys: list[str]) -> pd.Series:
    """Average win rate over validation LLMs of each combination (rows: combo x llm)."""
    per_llm = []
    for _, g in val.groupby("llm", sort=True):
        a = g.set_index(keys)["auc"]
        if a.isna().all():
            continue  # a validation LLM with one label: no AUC, no vote
        v = np.round(a.to_numpy(), TIE_DECIMALS)  # equal AUCs tie on every CPU
        gt = (v[:, None] > v[None, :]).sum(axis=1)
        eq = (v[:, None] == v[None, :]).sum(axis=1) - 1
        per_llm.append(pd.Series((gt + 0.5 * eq) / max(len(v) - 1, 1), index=a.index))
    if not per_llm:
        raise ValueError("no validation LLM has both labels on the validation instances")
    return pd.concat(per_llm, axis=1).mean(axis=1).sort_index()


def choose(
    results: pd.DataFrame, split: str, method: str
) -> tuple[tuple, float, int, pd.DataFrame]:
    """(winning combination, its win rate, t, its validation rows) of `method` on `split`."""
    src, keys = COMBO_KEYS[method]
    r = results[(results["split"] == split) & (results["method"] == src)]
    if method == "random_selector":
        r = r[r["selector"] == "random"]
    val = r[(r["llm_role"] == "validation") & (r["eval_set"] == "validation")]
    if val.empty:
        raise ValueError(f"no validation results for {method} on split {split}")
    wr = win_rates(val, keys)
    # Ties (after rounding): the first combination in sorted order (np.argmax takes the first).
    best = wr.index[int(np.argmax(wr.round(TIE_DECIMALS).to_numpy()))]
    best = best if isinstance(best, tuple) else (best,)
    mask = np.logical_and.reduce([r[k] == v for k, v in zip(keys, best, strict=True)])
    return best, float(wr.max()), len(wr), r[mask]


def figure2_table(results: pd.DataFrame) -> pd.DataFrame:
    """Test AUC of each method's chosen combination, per split and test LLM."""
    rows = []
    for split in results["split"].unique():
        for method in METHODS:
            if method == "specific":
                r = results[(results["split"] == split) & (results["method"] == "specific")]
                for llm, g in r.groupby("llm", sort=False):
                    v = g[g["eval_set"] == "validation"].set_index(["features", "classifier"])[
                        "auc"
                    ]
                    best = np.nanargmax(v.round(TIE_DECIMALS).to_numpy()) if v.notna().any() else 0
                    f, c = v.index[int(best)]
                    t = g[(g["eval_set"] == "test") & (g["features"] == f) & (g["classifier"] == c)]
                    rows.append([split, llm, method, float(t["auc"].iloc[0])])
                continue
            _, _, _, r = choose(results, split, method)
            for _, row in r[r["llm_role"] == "test"].iterrows():
                rows.append([split, row["llm"], method, float(row["auc"])])
    return pd.DataFrame(rows, columns=["split", "llm", "method", "auc"])


def table3(results: pd.DataFrame) -> pd.DataFrame:
    """The winning generic combination per split, with its win rate and validation AUC."""
    rows = []
    for split in results["split"].unique():
        (feat, sel, clf), wr, t, r = choose(results, split, "generic")
        val = r[r["llm_role"] == "validation"]["auc"]
        test = r[r["llm_role"] == "test"]["auc"]
        rows.append(
            {
                "split": split,
                "features": feat,
                "selector": sel,
                "classifier": clf,
                "win_rate": round(wr, 4),
                "val_auc_mean": round(float(val.mean()), 4),
                "test_auc_mean": round(float(test.mean()), 4),
                "n_combinations": t,
            }
        )
    return pd.DataFrame(rows)
