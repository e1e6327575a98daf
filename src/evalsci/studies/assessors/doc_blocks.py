"""The `assessors` blocks of docs/assessors.md: "ours vs the paper" Markdown rendered from
result files (registered in evalsci/doc_blocks.yaml, written by rule docs_tables)."""

from __future__ import annotations

import pandas as pd

from evalsci import reference
from evalsci.studies.assessors.maxrandom_requests import read_answers
from evalsci.tables import markdown_table

COLLECTIONS = ("cfi_ground_truth", "predictaboard")
_METHOD_ORDER = ("specific", "generic", "random_selector", "reference_only", "all_train")


def figure2_means(paths, collection: str) -> str:
    """Mean test AUC per (split, method) of one collection's Figure 2, with the max random
    line (the expected best of t random scorers on the test LLMs' test sets)."""
    fig2 = f"results/assessors/{collection}/tables/figure2.csv"
    base = "results/assessors/maxrandom/baselines.csv"
    d = pd.read_csv(paths[fig2])
    mean = d.groupby(["split", "method"], sort=False)["auc"].mean().unstack("method")
    mean = mean[[m for m in _METHOD_ORDER if m in mean.columns]]
    mr = read_answers(paths[base])
    mr = mr[
        (mr["collection"] == collection) & (mr["search"] == "generic") & (mr["eval_set"] == "test")
    ]
    t = sorted(set(mr["t"].astype(int)))
    col = f"max random (t={t[0]})" if len(t) == 1 else "max random"
    mean[col] = mr.groupby("split")["expected_max"].mean().reindex(mean.index)
    out = mean.reset_index().rename(columns={m: m.replace("_", " ") for m in _METHOD_ORDER})
    for c in out.columns[1:]:
        out[c] = out[c].map(lambda v: f"{v:.3f}" if pd.notna(v) else "n/a")
    return markdown_table(out)


def table3(paths) -> str:
    t = pd.read_csv(paths["results/assessors/tables/table3.csv"], keep_default_na=False)
    cols = [
        "collection",
        "split",
        "features",
        "selector",
        "classifier",
        "val_auc_mean",
        "max_random_val_auc",
        "features_paper",
        "selector_paper",
        "classifier_paper",
    ]
    out = t[[c for c in cols if c in t.columns]].copy()
    for c in ("val_auc_mean", "max_random_val_auc"):
        if c in out:
            out[c] = out[c].map(lambda v: f"{float(v):.3f}" if v != "" else "n/a")
    return markdown_table(
        out.rename(columns={"val_auc_mean": "val AUC", "max_random_val_auc": "max random val AUC"})
    )


def _figure2_means(path, baselines, collection: str) -> pd.DataFrame:
    """Mean test AUC over the test LLMs per (split, method), with the max random line (the
    expected best of t random scorers on the test LLMs' test sets) as column `max_random`."""
    d = pd.read_csv(path)
    mean = d.groupby(["split", "method"], sort=False)["auc"].mean().unstack("method")
    mr = read_answers(baselines)
    mr = mr[
        (mr["collection"] == collection) & (mr["search"] == "generic") & (mr["eval_set"] == "test")
    ]
    mean["max_random"] = mr.groupby("split")["expected_max"].mean().reindex(mean.index)
    return mean


def findings(paths) -> str:
    """The numbers behind "Against the paper's findings": per collection, in distribution
    (split `random`) and out of distribution (the held-out-dataset splits)."""
    base = paths["results/assessors/maxrandom/baselines.csv"]
    t3 = pd.read_csv(paths["results/assessors/tables/table3.csv"], keep_default_na=False)
    findings = reference.load("assessors")["findings"]
    rows = {}
    for c in COLLECTIONS:
        m = _figure2_means(paths[f"results/assessors/{c}/tables/figure2.csv"], base, c)
        ind, ood = m.loc["random"], m.drop(index="random")
        win = t3[t3["collection"] == c].set_index("split")
        best = ood.drop(columns="max_random").max(axis=1)

        def f3(v):
            return f"{v:.3f}" if pd.notna(v) else "n/a"

        rows[c] = {
            "in distribution: generic / specific / all train / reference only / random "
            "selector": " / ".join(
                f3(ind.get(k))
                for k in ("generic", "specific", "all_train", "reference_only", "random_selector")
            ),
            "in distribution: max random line (test); chosen combination's validation AUC vs "
            "max random validation AUC": f"{f3(ind['max_random'])}; {f3(float(win.loc['random', 'val_auc_mean']))} vs "
            f"{f3(float(win.loc['random', 'max_random_val_auc']))}",
            "random selector >= generic (splits)": f"{int((m['random_selector'] >= m['generic']).sum())} of {len(m)}",
            "Table 3 winning selectors (splits)": ", ".join(
                f"{k} {v}" for k, v in win["selector"].value_counts().items()
            ),
            "Table 3 winning features (splits)": ", ".join(
                f"{k} {v}" for k, v in win["features"].value_counts().items()
            ),
            "out of distribution: range of the methods' mean test AUC": f"{ood.drop(columns='max_random').min().min():.3f}-"
            f"{ood.drop(columns='max_random').max().max():.3f} (in distribution "
            f"{ind.drop('max_random').min():.3f}-{ind.drop('max_random').max():.3f})",
            "out of distribution: splits whose best method is below the max random line": f"{int((best < ood['max_random']).sum())} of {len(ood)}",
            "out of distribution: splits where the specific assessor is below 0.5": f"{int((ood['specific'] < 0.5).sum())} of {len(ood)}",
            "out of distribution: chosen combinations' validation AUC": f"{win.drop(index='random')['val_auc_mean'].astype(float).min():.3f}-"
            f"{win.drop(index='random')['val_auc_mean'].astype(float).max():.3f}",
        }
    out = pd.DataFrame(rows).rename_axis("").reset_index()
    paper = "\n".join(
        f'- {k.replace("_", " ")}: "{v}"' for k, v in findings.items() if k != "source"
    )
    return markdown_table(out) + f"\nThe paper ({findings['source']}):\n\n" + paper + "\n"


NREF_FIGURES = {"cfi_ground_truth": "figure8", "predictaboard": "figure9"}


def nref(paths) -> str:
    """Mean AUC of the generic assessor against n_ref, in distribution (split `random`) and
    out of distribution (mean over the OOD splits), on validation and test LLMs."""
    rows = []
    for c, f in NREF_FIGURES.items():
        d = pd.read_csv(paths[f"results/assessors/{c}/tables/{f}.csv"])
        d = d.assign(
            where=d["split"].map(
                lambda s: "in distribution" if s == "random" else "out of distribution"
            )
        )
        m = d.groupby(["where", "eval_set", "n_ref"])["auc"].mean().unstack("n_ref")
        for (where, eval_set), r in m.iterrows():
            rows.append(
                {
                    "collection (figure)": f"{c} ({f})",
                    "splits": where,
                    "LLMs": eval_set,
                    **{f"n_ref={k}": f"{v:.2f}" for k, v in r.items()},
                }
            )
    return markdown_table(pd.DataFrame(rows).fillna("n/a"))
