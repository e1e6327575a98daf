"""The `assessors` blocks of docs/assessors.md: "ours vs the paper" Markdown rendered from
result files (registered in evalsci/pipeline/doc_blocks.yaml, written by rule docs_tables)."""

from __future__ import annotations

import pandas as pd

from evalsci.claims.render import study_block
from evalsci.stats.multiple import holm
from evalsci.studies.assessors.uncertainty import N_RESAMPLES, NOISE_SHARE
from evalsci.tables import markdown_table

COLLECTIONS = ("cfi_ground_truth", "predictaboard")
_METHOD_ORDER = ("specific", "generic", "random_selector", "reference_only", "all_train")


ALPHA = 0.05


def claims(paths) -> str:
    """docs/assessors.md: the study's claims ledger (input `claims`), rows as it holds them."""
    return study_block(paths)


def _summary(paths, collection: str) -> pd.DataFrame:
    """figure2_summary.csv of one collection with Holm-adjusted p-values of H1: mean test
    AUC > 0.5, the family being the collection's (split, method) tests."""
    s = pd.read_csv(paths[f"{collection}_summary"])
    s["p_holm"] = holm(s["p_above_half"].to_numpy())
    return s


def _auc_ci(r) -> str:
    star = "*" if r["p_holm"] < ALPHA else ""
    return f"{r['auc_mean']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}]{star}"


def figure2_means(paths, collection: str) -> str:
    """Mean test AUC per (split, method) of one collection's Figure 2 with its DeLong 95%
    interval (* = above 0.5, Holm over the collection's split x method tests), then how often
    each method's chosen combination is chosen again on resampled validation data."""
    s = _summary(paths, collection)
    methods = [m for m in _METHOD_ORDER if m in set(s["method"])]
    ci = s.assign(cell=s.apply(_auc_ci, axis=1)).pivot(
        index="split", columns="method", values="cell"
    )
    ci = ci.reindex(index=list(dict.fromkeys(s["split"])), columns=methods)
    st = s[s["method"] != "specific"].pivot(index="split", columns="method", values="stability")
    st = st.reindex(index=ci.index, columns=[m for m in methods if m != "specific"])
    st = st.map(lambda v: f"{v:.2f}" + (" (noise)" if v < NOISE_SHARE else ""))
    lo, hi = int(s["n_llms"].min()), int(s["n_llms"].max())
    n = f"{lo}" if lo == hi else f"{lo}-{hi}"
    out = ci.reset_index().rename(columns={m: m.replace("_", " ") for m in methods})
    stab = st.reset_index().rename(columns={m: m.replace("_", " ") for m in methods})
    return (
        markdown_table(out)
        + f"\nMean over {n} test LLMs with both labels; 95% DeLong intervals over instances;"
        f" * = above 0.5 at {ALPHA} (one-sided z, Holm over the {len(s)} tests above)."
        f" Winner stability (share of {N_RESAMPLES} resamples of the validation LLMs and"
        ' instances in which the method\'s chosen combination wins again; "(noise)" below'
        f" {NOISE_SHARE}; the specific assessor is chosen per test LLM):\n\n" + markdown_table(stab)
    )


def table3(paths) -> str:
    t = pd.read_csv(paths["table3"], keep_default_na=False)
    cols = [
        "collection",
        "split",
        "features",
        "selector",
        "classifier",
        "val_auc_mean",
        "max_random_val_auc",
        "stability",
        "features_paper",
        "selector_paper",
        "classifier_paper",
    ]
    out = t[[c for c in cols if c in t.columns]].copy()
    for c in ("val_auc_mean", "max_random_val_auc"):
        if c in out:
            out[c] = out[c].map(lambda v: f"{float(v):.3f}" if v != "" else "n/a")
    if "stability" in out:
        out["stability"] = out["stability"].map(
            lambda v: f"{float(v):.2f}" + (" (noise)" if float(v) < NOISE_SHARE else "")
        )
    return markdown_table(
        out.rename(
            columns={
                "val_auc_mean": "val AUC",
                "max_random_val_auc": "max random val AUC",
                "stability": "winner stability",
            }
        )
    )


def _pm(v, se) -> str:
    return f"{v:+.3f} ± {se:.3f}"


def findings(paths) -> str:
    """The numbers behind the claims ledger's Figure 2 and Table 3 rows, per collection: in
    distribution (split `random`) and out of distribution (the held-out-dataset splits), each
    test AUC with its DeLong SE, chance = 0.5. No verdict: the ledger (`assessors_claims`)
    judges the paper's claims, each by its stated test."""
    t3 = pd.read_csv(paths["table3"], keep_default_na=False)
    rows = {}
    for c in COLLECTIONS:
        s = _summary(paths, c)
        ind = s[s["split"] == "random"].set_index("method")
        ood = s[s["split"] != "random"]
        win = t3[t3["collection"] == c].set_index("split")
        rows[c] = {
            "in distribution: mean test AUC ± SE, generic / specific / all train / reference "
            "only / random selector": " / ".join(
                f"{ind.loc[k, 'auc_mean']:.3f} ± {ind.loc[k, 'se']:.3f}"
                for k in ("generic", "specific", "all_train", "reference_only", "random_selector")
            ),
            "in distribution: generic minus specific / all train / reference only (paired ± SE)": " / ".join(
                _pm(-ind.loc[k, "diff_vs_generic"], ind.loc[k, "se_diff_vs_generic"])
                for k in ("specific", "all_train", "reference_only")
            ),
            "in distribution: chosen combination's validation AUC vs max random validation AUC": f"{float(win.loc['random', 'val_auc_mean']):.3f} vs "
            f"{float(win.loc['random', 'max_random_val_auc']):.3f}",
            "Table 3 winning selectors (splits)": ", ".join(
                f"{k} {v}" for k, v in win["selector"].value_counts().items()
            ),
            "Table 3 winning features (splits)": ", ".join(
                f"{k} {v}" for k, v in win["features"].value_counts().items()
            ),
            "Table 3 winners within noise (stability below "
            f"{NOISE_SHARE})": f"{int((win['stability'].astype(float) < NOISE_SHARE).sum())} of {len(win)}",
            "out of distribution: range of the methods' mean test AUC": f"{ood['auc_mean'].min():.3f}-{ood['auc_mean'].max():.3f} (in distribution "
            f"{ind['auc_mean'].min():.3f}-{ind['auc_mean'].max():.3f})",
            f"out of distribution: (split, method) test AUCs above 0.5 (Holm, {ALPHA})": f"{int((ood['p_holm'] < ALPHA).sum())} of {len(ood)}; generic assessor "
            f"{int((ood[ood['method'] == 'generic']['p_holm'] < ALPHA).sum())} of "
            f"{int((ood['method'] == 'generic').sum())}",
            "out of distribution: chosen combinations' validation AUC": f"{win.drop(index='random')['val_auc_mean'].astype(float).min():.3f}-"
            f"{win.drop(index='random')['val_auc_mean'].astype(float).max():.3f}",
        }
    return markdown_table(pd.DataFrame(rows).rename_axis("").reset_index())


NREF_FIGURES = {"cfi_ground_truth": "figure8", "predictaboard": "figure9"}


def nref(paths) -> str:
    """Mean AUC of the generic assessor against n_ref, in distribution (split `random`) and
    out of distribution (mean over the OOD splits), on validation and test LLMs."""
    rows = []
    for c, f in NREF_FIGURES.items():
        d = pd.read_csv(paths[f"{c}_{f}"])
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


_LOMO_NAMES = {
    "random_mean": "random n, mean",
    "tinybenchmarks_irt": "tinyBenchmarks anchors",
    "tinybenchmarks_pirt": "tinyBenchmarks p-IRT",
    "tinybenchmarks_gpirt": "tinyBenchmarks gp-IRT",
    "generic_random": "generic assessor, random refs",
    "reference_default": "`evalsci reference` default",
}


def _mean_se(mean: float, se: float) -> str:
    """`mean ± se` unsigned (a level, not a difference; n/a where undefined)."""
    if pd.isna(mean):
        return "n/a"
    return f"{mean:.3f} ± {se:.3f}" if pd.notna(se) else f"{mean:.3f}"


def lomo(paths) -> str:
    """Leave one model out: per benchmark and n, each method's absolute error, per-item AUC
    and coverage (mean ± SE over held-out models), then the default against gp-IRT and the
    random mean (paired t-tests, Holm over benchmarks x n, at the run's level)."""
    t = pd.read_csv(paths["lomo"])
    tests = pd.read_csv(paths["lomo_tests"])
    rows = [
        {
            "benchmark": r["benchmark"],
            "n": int(r["n_reference"]),
            "method": _LOMO_NAMES[r["method"]],
            "abs. error": _mean_se(r["abs_error"], r["abs_error_se"]),
            "per-item AUC": _mean_se(r["auc"], r["auc_se"]),
            "coverage": _mean_se(r["coverage"], r["coverage_se"]),
        }
        for _, r in t.iterrows()
    ]
    level = float(tests["level"].iloc[0])
    held = ", ".join(
        f"{b} {int(n)}" for b, n in t.groupby("benchmark", sort=False)["n_models"].max().items()
    )
    lines = [
        f"Held-out models per benchmark: {held} (mean ± SE over them; coverage of the 90 % "
        "interval; tinyBenchmarks gives no interval).",
        "",
        markdown_table(pd.DataFrame(rows)).rstrip("\n"),
        "",
        f"The default against each other method, absolute error (default − other, mean ± SE "
        f"over held-out models), two-sided paired t-test, Holm over benchmarks × n per "
        f"comparison, level {level:g}:",
        "",
    ]
    trows = [
        {
            "benchmark": r["benchmark"],
            "n": int(r["n_reference"]),
            "versus": _LOMO_NAMES[r["versus"]],
            "difference": _mean_se(r["mean_difference"], r["difference_se"]),
            "p (Holm)": f"{r['p_holm']:.3g}",
            "verdict": r["verdict"],
        }
        for _, r in tests.iterrows()
    ]
    lines.append(markdown_table(pd.DataFrame(trows)).rstrip("\n"))
    vs = tests[tests["versus"] == "tinybenchmarks_gpirt"]
    better = vs[vs["verdict"] == "default better"]
    worse = vs[vs["verdict"] == "default worse"]

    def cells(d):
        return ", ".join(
            f"{b} n={int(n)}" for b, n in zip(d["benchmark"], d["n_reference"], strict=True)
        )

    lines += [
        "",
        f"Against tinyBenchmarks' gp-IRT: the default's error is smaller, significantly, on "
        f"{len(better)} of {len(vs)} benchmark × n cells{': ' + cells(better) if len(better) else ''}; "
        f"larger, significantly, on {len(worse)}{': ' + cells(worse) if len(worse) else ''}; "
        f"the other {len(vs) - len(better) - len(worse)} show no difference at this level. "
        f"(Point estimates, no verdict: the default's mean error is below gp-IRT's in "
        f"{int((vs['mean_difference'] < 0).sum())} of {len(vs)} cells.)",
    ]
    return "\n".join(lines) + "\n"


def lomo_rank(paths) -> str:
    """`evalsci reference` left out model by model, by rank (`lomo_rank`): errors by
    collection against 100 random items, gp-IRT and the reference mean, the paired tests, and
    coverage of the 90 % intervals per held-out model and pooled by rank group."""
    s = pd.read_csv(paths["summary"])
    tests = pd.read_csv(paths["tests"])
    cov = pd.read_csv(paths["coverage"], keep_default_na=False, na_values=[""])
    rows = [
        {
            "collection": r["benchmark"],
            "models (held out)": f"{int(r['n_models'])} ({int(r['n_held_out'])})",
            "tasks": int(r["n_tasks"]),
            "overall: reference": _mean_se(r["abs_error"], r["abs_error_se"]),
            "100 random items (expected)": _mean_se(
                r["random_expected_error"], r["random_expected_error_se"]
            ),
            "gp-IRT": _mean_se(r["gpirt_error"], r["gpirt_error_se"]),
            "per task: reference": _mean_se(r["task_error"], r["task_error_se"]),
            "mean of the same items": _mean_se(
                r["task_reference_mean_error"], r["task_reference_mean_error_se"]
            ),
        }
        for _, r in s.iterrows()
    ]
    trows = [
        {
            "collection": r["benchmark"],
            "versus": r["versus"],
            "difference": _mean_se(r["mean_difference"], r["difference_se"]),
            "p (Holm)": f"{r['p_holm']:.3g}",
            "verdict": r["verdict"],
        }
        for _, r in tests.iterrows()
    ]
    crows = [
        {
            "collection": r["benchmark"],
            "model": r["held_out_model"],
            "rank": "" if pd.isna(r["rank"]) else f"{int(r['rank'])} of {int(r['n_models'])}",
            "group": r["group"],
            "covered": f"{int(r['covered'])}/{int(r['n'])}",
            "coverage (95 % CI)": f"{r['coverage']:.2f} [{r['low']:.2f}, {r['high']:.2f}]",
            "outside the known range": r["out_of_range"]
            if isinstance(r["out_of_range"], str)
            else "",
            "mean width": f"{r['mean_width']:.3f}",
            "coverage >= 0.85? p (Holm)": ""
            if pd.isna(r.get("p_below_target_holm"))
            else f"{r['p_below_target_holm']:.3g}: {r['target_verdict']}",
        }
        for _, r in cov.iterrows()
    ]
    return "\n".join(
        [
            "Mean absolute error over held-out models (± SE over them); overall = the "
            "item-weighted accuracy over the collection's tasks:",
            "",
            markdown_table(pd.DataFrame(rows)).rstrip("\n"),
            "",
            "Paired over held-out models (reference − other; two-sided t-test, Holm over the "
            "collections within each comparison, level 0.05):",
            "",
            markdown_table(pd.DataFrame(trows)).rstrip("\n"),
            "",
            "Coverage of the 90 % intervals over each held-out model's tasks (Clopper-Pearson "
            "95 % interval, tasks treated as independent), and pooled by rank group (rank 1 = "
            "the weakest). Issue 44's target, coverage >= 0.85 for every held-out model: per "
            "model the exact one-sided binomial test of coverage >= 0.85 (Holm over the "
            "collection's held-out models, level 0.05); `below target` rejects it, `not shown "
            "below` means no evidence against it, not a proof:",
            "",
            markdown_table(pd.DataFrame(crows)).rstrip("\n"),
            "",
            _verdicts(tests, cov),
            "",
            "Published anchors at about 100 items (assessors `reference.yaml`, as issue 44 quotes "
            "them; each with hundreds of known models on fixed benchmarks, no interval, and its "
            "own metric), beside the overall error above in the same unit (points = 100 x "
            "accuracy): " + _anchors(s) + ".",
        ]
    )


def _verdicts(tests: pd.DataFrame, cov: pd.DataFrame) -> str:
    """The run's verdicts in words, from its tables: the coverage target per held-out model and
    each paired comparison per collection."""
    per_model = cov[cov["rank"].notna()]
    if "target_verdict" not in per_model:  # a run before the coverage-target test
        per_model = per_model.assign(target_verdict="not tested")
    below = per_model[per_model["target_verdict"] == "below target"]
    tested = (per_model["target_verdict"] != "not tested").all()
    parts = [
        "Coverage target (>= 0.85 for every held-out model): not tested in this run."
        if not tested
        else f"Coverage target (>= 0.85 for every held-out model): shown below it for {len(below)} "
        f"of {len(per_model)} held-out models"
        + (
            " ("
            + ", ".join(f"{r['benchmark']} rank {int(r['rank'])}" for _, r in below.iterrows())
            + ")"
            if len(below)
            else ""
        )
        + "; for the others no evidence that it fails, which with a model's few tasks is no "
        "proof that it holds."
    ]
    for versus, g in tests.groupby("versus", sort=False):
        say = {
            v: ", ".join(g[g["verdict"] == v]["benchmark"]) or "none"
            for v in ("reference better", "reference worse")
        }
        lower = ", ".join(g[g["mean_difference"] < 0]["benchmark"]) or "none"
        parts.append(
            f"Against {versus}: error smaller, significantly, on {say['reference better']}; "
            f"larger, significantly, on {say['reference worse']}; smaller by point estimate "
            f"(no verdict) on {lower}."
        )
    return " ".join(parts)


def _anchors(summary: pd.DataFrame) -> str:
    from evalsci import reference

    anchors = "; ".join(
        f"{a['method']} {a['value']:g} ({a['metric']}; {a['source']})"
        for a in reference.load("assessors")["anchors_100_items"]
    )
    ours = ", ".join(
        f"{r['benchmark']} {100 * r['abs_error']:.1f} ± {100 * r['abs_error_se']:.1f}"
        for _, r in summary.iterrows()
    )
    return f"{anchors}. `evalsci reference` here, mean absolute error in points ± SE: {ours}"
