"""The `tapt` blocks of docs/tapt.md: "ours vs the paper" Markdown rendered from result
files (registered in evalsci/pipeline/doc_blocks.yaml, written by rule docs_tables)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from evalsci import reference
from evalsci.stats.agreement import verdict, verdict_bound
from evalsci.tables import markdown_table


def _decimals(printed: float) -> int:
    """Decimals of a value as the paper printed it (stored as printed in reference.yaml)."""
    text = f"{printed:g}"
    return len(text.split(".")[1]) if "." in text else 0


def table1_and_task_level(paths) -> str:
    """Table 1 (16 cells) and the Section 7 task-level claims, ours against the paper."""
    t = pd.read_csv(paths["table1"])
    conc = reference.load("tapt")["conclusions"]

    def cell(ours, paper):
        # ours to 3 decimals; the paper's value as printed
        return (
            f"{100 * ours:.3f}% ({round(100 * paper, 4):g}%)"
            if pd.notna(paper)
            else f"{100 * ours:.3f}%"
        )

    def judge(ours, paper):
        # exact arithmetic on the released accuracies (no sampling error): the paper's
        # rounding is the only uncertainty (evalsci.stats.agreement)
        if pd.isna(paper):
            return "n/a"
        printed = round(100 * paper, 4)
        return verdict(100 * ours, printed, paper_decimals=_decimals(printed))

    verdicts = [
        f"{judge(ob, pb)}; {judge(oi, pi)}"
        for ob, pb, oi, pi in zip(
            t["boost_mean"], t["boost_paper"], t["bias_mean"], t["bias_paper"], strict=True
        )
    ]
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
            "verdict (boost; bias)": verdicts,
        }
    )
    tl = pd.read_csv(paths["task_level"])
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
    t = pd.read_csv(paths["beta_posteriors"])

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


def _bh_min_se(p: np.ndarray, n_resamples: int) -> tuple[float, float]:
    """BH's smallest adjusted p, min over k of m p_(k) / k, and its Monte Carlo SE: the SE
    sqrt(p (1 - p) / N) of the raw p that attains it, times m / k."""
    from scipy.stats import false_discovery_control

    p = np.sort(np.asarray(p, float))
    m = len(p)
    adj = false_discovery_control(p, method="bh")
    k = int(np.argmin(m * p / np.arange(1, m + 1)))
    return float(adj.min()), m / (k + 1) * math.sqrt(p[k] * (1 - p[k]) / n_resamples)


def permutation_sections(paths) -> str:
    """Permutation tests (App. D.1, Sec. 8, 9) against the paper's statements, with the
    procedures that could explain Section 8's and 9's differences, each with a verdict."""
    conc = reference.load("tapt")["conclusions"]
    tests = pd.read_csv(paths["permutation_tests"])
    acc = pd.read_csv(paths["accuracies"])

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
    n_sig, paper_sig = (
        int((main["p_adjusted"] < alpha).sum()),
        conc["permutation_main"]["significant"],
    )
    rows.append(
        [
            f"App. D.1: main permutation tests ({n_cells} (m, n, LM) x "
            f"{main['dataset'].nunique()} tasks, H1 bias > 0, BH)",
            f"{n_sig} significant at {alpha}",
            f"{paper_sig} significant",
            verdict(n_sig, paper_sig),
        ]
    )
    ref_over = conc["permutation_overtraining"]
    bound = ref_over["min_p_adjusted"]
    over = family(lambda c: "epochs" in c, "bias", "greater")
    named = over[over["config"].isin(ref_over["configs"])]
    n_res = int(named["n_resamples"].iloc[0])
    per = [_bh_min_se(g["p_value"], n_res) for _, g in named.groupby("config", sort=False)]
    worst = min(per)
    rows.append(
        [
            f"Sec. 8: overtraining, {' and '.join(ref_over['configs'])}, H1 bias > 0 (eq. 10), "
            "BH per configuration: smallest adjusted p ± Monte Carlo SE; raw p < 0.05",
            "; ".join(f"{v:.2f} ± {se:.3f}" for v, se in per) + "; "
            f"{int((named['p_value'] < 0.05).sum())} raw p < 0.05, "
            f"{int((named['p_adjusted'] < alpha).sum())} significant",
            f"all adjusted p > {bound}",
            verdict_bound(worst[0], bound, ">", se=worst[1]),
        ]
    )
    pooled = _bh_min_se(named["p_value"], n_res)
    rows.append(
        [
            f"Sec. 8: the same {len(named)} one-sided tests, BH over both configurations at once",
            f"{pooled[0]:.2f} ± {pooled[1]:.3f}",
            f"all adjusted p > {bound}",
            verdict_bound(pooled[0], bound, ">", se=pooled[1]),
        ]
    )
    two = family(lambda c: c in ref_over["configs"], "bias", "two-sided")
    per2 = [_bh_min_se(g["p_value"], n_res) for _, g in two.groupby("config", sort=False)]
    pooled2 = _bh_min_se(two["p_value"], n_res)
    rows.append(
        [
            "Sec. 8: two-sided tests (scipy's default alternative, not eq. 10), BH per "
            "configuration; over both at once",
            "; ".join(f"{v:.2f}" for v, _ in per2) + f"; {pooled2[0]:.2f} ± {pooled2[1]:.3f}",
            f"all adjusted p > {bound}",
            f"{verdict_bound(min(per2)[0], bound, '>', se=min(per2)[1])}; "
            f"{verdict_bound(pooled2[0], bound, '>', se=pooled2[1])}",
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
            "n/a",
        ]
    )
    fn4 = conc["overtraining_boost_negative_tests"]
    neg = family(lambda c: c == fn4["config"], "boost", "less")
    n_fn4 = int((neg["p_value"] < fn4["alpha"]).sum())
    rows.append(
        [
            f"Sec. 8 footnote 4: {fn4['config']}, H1 boost < 0",
            f"{n_fn4} of {len(neg)} raw p < {fn4['alpha']}",
            f"{fn4['count']} of 25",
            verdict(n_fn4, fn4["count"]),
        ]
    )
    zs = conc["zero_shot_tasks"]
    z = family(lambda c: c == zs["config"], "bias", "greater")
    signs = [int((z["mean_diff"] > 0).sum()), int((z["mean_diff"] < 0).sum())]
    z_min, z_se = _bh_min_se(z["p_value"], n_res)
    rows.append(
        [
            f"Sec. 9: zero-shot ({zs['config']}) bias per task, exact (integer counts): "
            "positive / negative / 0; smallest adjusted p ± Monte Carlo SE",
            f"{signs[0]} / {signs[1]} / {int((z['mean_diff'] == 0).sum())}; "
            f"{z_min:.2f} ± {z_se:.3f}",
            f"{zs['positive']} / {zs['negative']} / 0; all > {zs['min_p_adjusted']}",
            f"{verdict(signs[1], zs['negative'])}; "
            + verdict_bound(z_min, zs["min_p_adjusted"], ">", se=z_se),
        ]
    )
    # The permutation statistic as the paper's code computes it: the mean of float
    # differences acc_test - acc_extra, where an exactly zero bias can come out as -1e-18.
    a = acc[acc["config"] == zs["config"]].sort_values(["dataset", "subsample"])
    fl = a.groupby("dataset")[["test", "extra"]].apply(
        lambda g: float(np.mean(g["test"].to_numpy() - g["extra"].to_numpy()))
    )
    tiny = fl[(fl != 0) & (fl.abs() < 1e-12)]
    rows.append(
        [
            "Sec. 9: the same signs from the float statistic mean(acc_test - acc_extra): "
            "positive / negative / 0",
            f"{int((fl > 0).sum())} / {int((fl < 0).sum())} / {int((fl == 0).sum())}"
            + "".join(f"; {k}: {v:.1e}" for k, v in tiny.items()),
            f"{zs['positive']} / {zs['negative']} / 0",
            verdict(int((fl < 0).sum()), zs["negative"]),
        ]
    )
    return markdown_table(pd.DataFrame(rows, columns=["artefact", "ours", "paper", "verdict"]))


def comparisons(paths) -> str:
    """Meta-analysis (Sec. 10), recovery (App. E.1) and PCA (App. G), ours against the
    paper's statements in reference.yaml (the permutation tests: `permutation_sections`)."""
    conc = reference.load("tapt")["conclusions"]
    rows: list[list[str]] = []
    meta = pd.read_csv(paths["meta_analysis"])
    ref_meta = {r[0]: r for r in conc["meta_analysis"]["rows"]}
    paper_slices = 500  # Section 10: 500 subsample draws

    def share_se(p, n):
        # Monte Carlo (binomial) SE of a share of n independent slices
        return math.sqrt(p * (1 - p) / n)

    for r in meta.itertuples():
        paper = ref_meta.get(r.config)
        se = share_se(r.p_outside, int(r.n_slices))
        pse = share_se(paper[3], paper_slices) if paper else 0.0
        rows.append(
            [
                f"Sec. 10 meta-analysis, {r.config}, P(\\|mean of beta\\| > {r.threshold:g})"
                " ± Monte Carlo SE",
                f"{r.p_outside:.2f} ± {se:.2f} ({int(r.n_slices)} slices)",
                f"{paper[3]:.2f} ± {pse:.2f} ({paper_slices} slices)" if paper else "n/a",
                verdict(r.p_outside, paper[3], se=se, paper_se=pse, paper_decimals=2)
                if paper
                else "n/a",
            ]
        )
    rec = pd.read_csv(paths["recovery"])
    inside = (rec["hdi_5.5"] <= rec["beta_true"]) & (rec["beta_true"] <= rec["hdi_94.5"])
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
            "matches" if inside.all() else "differs",
        ]
    )
    pca = pd.read_csv(paths["pca"])
    lo_n, hi_n = pca["n"].min(), pca["n"].max()
    ranks = sorted(pca["effective_rank"].unique())

    def by_rank(n):
        b = pca[pca["n"] == n].set_index("effective_rank")
        return ", ".join(f"{b.loc[k, 'bias_mean']:.3f} ± {b.loc[k, 'bias_se']:.3f}" for k in ranks)

    def increase(n):
        # the claim as a test: bias at the largest rank minus at the smallest, above 0
        b = pca[pca["n"] == n].set_index("effective_rank")
        d = b.loc[ranks[-1], "bias_mean"] - b.loc[ranks[0], "bias_mean"]
        return verdict_bound(d, 0.0, ">", se=math.hypot(*b.loc[[ranks[0], ranks[-1]], "bias_se"]))

    rows.append(
        [
            f"App. G PCA: mean bias ± SE at effective rank {', '.join(map(str, ranks))}",
            f"n = {lo_n}: {by_rank(lo_n)}; n = {hi_n}: {by_rank(hi_n)}",
            f'"{conc["pca"]["text"]}"',
            f"n = {lo_n}: {increase(lo_n)}; n = {hi_n}: {increase(hi_n)}",
        ]
    )
    return markdown_table(pd.DataFrame(rows, columns=["artefact", "ours", "paper", "verdict"]))


def paper_run_time(paths) -> str:
    """Where the CPU of a recorded tapt run went: the jobs with a `benchmark:` file, by group
    (a directory of them, e.g. the fits, or one file), from its run record."""
    from evalsci import runrecord

    rec = runrecord.load(paths["record"])
    jobs = rec["benchmarked_jobs"]
    rows = [
        [
            f"`logs/{g}`",
            f"{v['jobs']:,}",
            f"{v['cpu_s']:,.0f}",
            f"{v['wall_s']:,.0f}",
            f"{v['max_wall_s']:,.0f}",
        ]
        for g, v in sorted(jobs.items(), key=lambda kv: -kv[1]["cpu_s"])
    ]
    rows.append(
        [
            "all of them",
            f"{sum(v['jobs'] for v in jobs.values()):,}",
            f"{rec['benchmarked_cpu_s']:,.0f}",
            f"{sum(v['wall_s'] for v in jobs.values()):,.0f}",
            "",
        ]
    )
    return markdown_table(
        pd.DataFrame(
            rows,
            columns=["jobs (benchmark files)", "jobs", "CPU-s", "wall-s, sum", "wall-s, longest"],
        )
    )
