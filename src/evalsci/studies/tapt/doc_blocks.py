"""The `tapt` blocks of docs/tapt.md: "ours vs the paper" Markdown rendered from result
files (registered in evalsci/doc_blocks.yaml, written by rule docs_tables)."""

from __future__ import annotations

import pandas as pd

from evalsci import reference
from evalsci.tables import markdown_table


def table1_and_task_level(paths) -> str:
    """Table 1 (16 cells) and the Section 7 task-level claims, ours against the paper."""
    t = pd.read_csv(paths["results/tapt/tables/table1.csv"])
    conc = reference.load("tapt")["conclusions"]

    def cell(ours, paper):
        # ours to 3 decimals; the paper's value as printed
        return (
            f"{100 * ours:.3f}% ({round(100 * paper, 4):g}%)"
            if pd.notna(paper)
            else f"{100 * ours:.3f}%"
        )

    out = pd.DataFrame(
        {
            "m": t["m"],
            "n": t["n"],
            "LM": t["lm"],
            "boost, ours (paper)": [
                cell(o, p) for o, p in zip(t["boost_mean"], t["boost_paper"], strict=True)
            ],
            "bias, ours (paper)": [
                cell(o, p) for o, p in zip(t["bias_mean"], t["bias_paper"], strict=True)
            ],
        }
    )
    tl = pd.read_csv(paths["results/tapt/tables/task_level.csv"])
    neg = tl[tl["boost"] < 0].sort_values("dataset")
    ref_neg, ref_sign = conc["task_boost_negative"], conc["task_bias_sign"]
    lines = [
        markdown_table(out),
        f"Section 7 (per task, averaged over every (m, n, LM)): tasks with boost < 0: "
        f"{', '.join(neg['dataset'])} (smallest {100 * neg['boost'].min():.2f}%); paper: "
        f"{', '.join(ref_neg['tasks'])}, both above {100 * ref_neg['min']:.0f}%. Bias signs: "
        f"{int((tl['bias'] > 0).sum())} positive, {int((tl['bias'] < 0).sum())} negative, "
        f"{int((tl['bias'] == 0).sum())} zero, max |bias| {100 * tl['bias'].abs().max():.2f}%; "
        f"paper: {ref_sign['positive']} / {ref_sign['negative']}, all "
        f"< {100 * ref_sign['max_abs']:.0f}%.",
    ]
    return "\n".join(lines)


def beta_posteriors(paths) -> str:
    t = pd.read_csv(paths["results/tapt/tables/beta_posteriors.csv"])

    def pct(v):
        return f"{100 * v:+.2f}%"

    out = pd.DataFrame(
        {
            "configuration": t["config"],
            "comparison": t["comparison"],
            "variant": t["variant"],
            "beta mean [89% HDI]": [
                f"{m:.3f} [{lo:.3f}, {hi:.3f}]"
                for m, lo, hi in zip(t["mean"], t["hdi_5.5"], t["hdi_94.5"], strict=True)
            ],
            "average difference [89% HDI]": [
                f"{pct(m)} [{pct(lo)}, {pct(hi)}]"
                for m, lo, hi in zip(
                    t["ppd_mean"], t["ppd_hdi_5.5"], t["ppd_hdi_94.5"], strict=True
                )
            ],
            "draws/chain": t["draws_per_chain"].map(lambda v: f"{int(v):,}"),
            "checks": t["diagnostics_ok"].map({True: "pass", False: "fail"}),
        }
    )
    return markdown_table(out)


def comparisons(paths) -> str:
    """Permutation tests (App. D.1, Sec. 8, 9), meta-analysis (Sec. 10), recovery (App. E.1)
    and PCA (App. G), ours against the paper's statements in reference.yaml."""
    conc = reference.load("tapt")["conclusions"]
    tests = pd.read_csv(paths["results/tapt/tables/permutation_tests.csv"])

    def family(config_pred, comparison, alternative):
        return tests[
            tests["config"].map(config_pred)
            & (tests["comparison"] == comparison)
            & (tests["alternative"] == alternative)
        ]

    rows = []
    main = family(lambda c: c.startswith("m"), "bias", "greater")
    n_cells = main.groupby(["config", "lm"]).ngroups
    alpha = conc["permutation_main"]["alpha"]
    rows.append(
        [
            f"App. D.1: main permutation tests ({n_cells} (m, n, LM) x "
            f"{main['dataset'].nunique()} tasks, H1 bias > 0, BH)",
            f"{int((main['p_adjusted'] < alpha).sum())} significant at {alpha}",
            f"{conc['permutation_main']['significant']} significant",
        ]
    )
    over = family(lambda c: "epochs" in c, "bias", "greater")
    ref_over = conc["permutation_overtraining"]
    named = over[over["config"].isin(ref_over["configs"])]
    mins = named.groupby("config", sort=False)["p_adjusted"].min().reindex(ref_over["configs"])
    rows.append(
        [
            f"Sec. 8: overtraining, {' and '.join(ref_over['configs'])} (BH): smallest "
            "adjusted p; raw p < 0.05",
            "; ".join(f"{p:.2f}" for p in mins) + "; "
            f"{int((named['p_value'] < 0.05).sum())} raw p < 0.05, "
            f"{int((named['p_adjusted'] < alpha).sum())} significant",
            f"all adjusted p > {ref_over['min_p_adjusted']}",
        ]
    )
    others = over[~over["config"].isin(ref_over["configs"]) & (over["p_adjusted"] < alpha)]
    rows.append(
        [
            "Sec. 8: the other overtraining configurations, BH-significant tasks",
            ", ".join(
                f"{r.config} {r.dataset} (adjusted p {r.p_adjusted:.2f})"
                for r in others.itertuples()
            )
            or "none",
            "not discussed",
        ]
    )
    fn4 = conc["overtraining_boost_negative_tests"]
    neg = family(lambda c: c == fn4["config"], "boost", "less")
    rows.append(
        [
            f"Sec. 8 footnote 4: {fn4['config']}, H1 boost < 0",
            f"{int((neg['p_value'] < fn4['alpha']).sum())} of {len(neg)} raw p < {fn4['alpha']}",
            f"{fn4['count']} of 25",
        ]
    )
    zs = conc["zero_shot_tasks"]
    z = family(lambda c: c == zs["config"], "bias", "greater")
    rows.append(
        [
            f"Sec. 9: zero-shot ({zs['config']}) bias per task: positive / negative / 0; "
            "smallest adjusted p",
            f"{int((z['mean_diff'] > 0).sum())} / {int((z['mean_diff'] < 0).sum())} / "
            f"{int((z['mean_diff'] == 0).sum())}; {z['p_adjusted'].min():.2f}",
            f"{zs['positive']} / {zs['negative']} / 0; all > {zs['min_p_adjusted']}",
        ]
    )
    meta = pd.read_csv(paths["results/tapt/tables/meta_analysis.csv"])
    ref_meta = {r[0]: r for r in conc["meta_analysis"]["rows"]}
    for r in meta.itertuples():
        paper = ref_meta.get(r.config)
        rows.append(
            [
                f"Sec. 10 meta-analysis, {r.config}, P(\\|mean of beta\\| > {r.threshold:g})",
                f"{r.p_outside:.2f} ({int(r.n_slices)} slices)",
                f"{paper[3]:.2f} (500 slices)" if paper else "n/a",
            ]
        )
    rec = pd.read_csv(paths["results/tapt/tables/recovery.csv"])
    rows.append(
        [
            "App. E.1 recovery: true beta -> posterior mean [89% HDI]",
            "; ".join(
                f"{t:g} -> {m:.3f} [{lo:.3f}, {hi:.3f}]"
                for t, m, lo, hi in zip(
                    rec["beta_true"], rec["mean"], rec["hdi_5.5"], rec["hdi_94.5"], strict=True
                )
            ),
            "both recovered (Figure 8)",
        ]
    )
    pca = pd.read_csv(paths["results/tapt/tables/pca.csv"])
    lo_n, hi_n = pca["n"].min(), pca["n"].max()
    ranks = sorted(pca["effective_rank"].unique())

    def by_rank(n):
        b = pca[pca["n"] == n].set_index("effective_rank")["bias_mean"]
        return ", ".join(f"{b[k]:.3f}" for k in ranks)

    rows.append(
        [
            f"App. G PCA: mean bias at effective rank {', '.join(map(str, ranks))}",
            f"n = {lo_n}: {by_rank(lo_n)}; n = {hi_n}: {by_rank(hi_n)}",
            f'"{conc["pca"]["text"]}"',
        ]
    )
    return markdown_table(pd.DataFrame(rows, columns=["artefact", "ours", "paper"]))
