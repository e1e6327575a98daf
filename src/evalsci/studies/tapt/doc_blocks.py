"""The `tapt` blocks of docs/tapt.md rendered from result files (registered in
evalsci/pipeline/doc_blocks.yaml, written by rule docs_tables). "Ours vs the paper" is the
claims ledger's (evalsci.studies.tapt.claims): a block here prints the ledger's rows or a
verdict of `evalsci.stats.agreement.judge`, never one of its own."""

from __future__ import annotations

import pandas as pd

from evalsci import reference
from evalsci.claims.render import study_block
from evalsci.stats.agreement import judge
from evalsci.studies.tapt.claims import DOUBLE_ROUNDING, comparison_rows
from evalsci.tables import markdown_table


def claims(paths) -> str:
    """docs/tapt.md: the study's claims ledger (input `claims`), rows as it holds them."""
    return study_block(paths)


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

    def verdict(ours, paper, cause=None):
        # exact arithmetic on the released accuracies (no sampling error): the paper's
        # rounding is the only uncertainty; the ledger's rows table1-* carry the same verdicts
        if pd.isna(paper):
            return "n/a"
        printed = round(100 * paper, 4)
        return judge(100 * ours, printed, paper_decimals=_decimals(printed), cause=cause).verdict

    verdicts = [
        f"{verdict(ob, pb)}; {verdict(oi, pi, cause=DOUBLE_ROUNDING)}"
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


def _ledger_table(rows) -> str:
    return markdown_table(
        pd.DataFrame(
            [[r.id, r.claim, r.paper, r.ours, r.uncertainty, r.verdict] for r in rows],
            columns=["claim", "quote", "paper", "ours", "uncertainty", "verdict"],
        )
    )


def comparisons(paths) -> str:
    """Meta-analysis (Sec. 10), recovery (App. E.1) and PCA (App. G): the claims ledger's rows
    (evalsci.studies.tapt.claims.comparison_rows) from these files, so a recorded run's
    block is judged by the same rule as the default run's ledger."""
    rows = comparison_rows(
        pd.read_csv(paths["meta_analysis"]),
        pd.read_csv(paths["recovery"]),
        pd.read_csv(paths["pca"]),
    )
    return _ledger_table(rows)


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
