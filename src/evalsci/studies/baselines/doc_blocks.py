"""The `baselines` blocks of docs/baselines.md: "ours vs the paper" Markdown rendered from
result files (registered in evalsci/pipeline/doc_blocks.yaml, written by rule docs_tables)."""

from __future__ import annotations

import re

import pandas as pd

from evalsci import reference
from evalsci.stats.agreement import verdict
from evalsci.tables import markdown_table


def _pct(num: int, den: int) -> str:
    return f"{100 * num / den:.1f}%"


def table1_and_section53(paths) -> str:
    t1 = pd.read_csv(paths["table1"])
    ref = reference.load("baselines")
    above_std = int(t1["verdict"].isin(["above_standard_only", "above_both"]).sum())
    above_max = int((t1["verdict"] == "above_both").sum())
    dis = above_std - above_max
    p = ref["table1"]
    # Counts and exact arithmetic on the authors' released results: no sampling error, so a
    # verdict is "matches" or "differs" (evalsci.stats.agreement), the worst over a row's numbers.
    rows = [
        [
            "Table 1 (288 experiments): above standard / above max / disagreements",
            f"{len(t1)}: {above_std} / {above_max} / {dis} ({_pct(dis, above_std)})",
            f"{p['experiments']}: {p['above_standard']} / {p['above_max']} / "
            f"{p['disagreements']} ({p['percent_flipped']:.1f}%)",
            _worst(
                verdict(o, q)
                for o, q in zip(
                    (len(t1), above_std, above_max, dis),
                    (p["experiments"], p["above_standard"], p["above_max"], p["disagreements"]),
                    strict=True,
                )
            ),
        ]
    ]
    t3 = pd.read_csv(paths["table3"]).set_index("model").loc["Total"]

    def trio(kind, suffix=""):
        return " / ".join(f"{t3[f'{m}_{kind}{suffix}']:.2f}" for m in ("accuracy", "auroc", "aupr"))

    cols = [f"{m}_{k}" for k in ("standard", "max") for m in ("accuracy", "auroc", "aupr")]
    rows.append(
        [
            "Table 3 total, accuracy / AUROC / AUPR: standard; max",
            f"{trio('standard')}; {trio('max')}",
            f"{trio('standard', '_paper')}; {trio('max', '_paper')}",
            _worst(verdict(t3[c], t3[f"{c}_paper"], paper_decimals=2) for c in cols),
        ]
    )
    s53 = pd.read_csv(paths["section53"])
    for _, r in s53[s53["experiments_paper"].notna()].iterrows():
        rows.append(
            [
                f"Sec. 5.3 {r['suite']} ({r['protocol']}): experiments, above standard, "
                "above max (% flipped)",
                f"{r['experiments']}, {r['above_standard']}, {r['above_max']} "
                f"({r['percent_flipped']:.1f}%)",
                f"{int(r['experiments_paper'])}, {int(r['above_standard_paper'])}, "
                f"{int(r['above_max_paper'])} ({r['percent_flipped_paper']:.1f}%)",
                _worst(
                    verdict(int(r[k]), int(r[f"{k}_paper"]))
                    for k in ("experiments", "above_standard", "above_max")
                ),
            ]
        )
    return markdown_table(pd.DataFrame(rows, columns=["artefact", "ours", "paper", "verdict"]))


def _worst(verdicts) -> str:
    """A row's verdict: the worst of its numbers' (differs > within noise > matches)."""
    return max(verdicts, key=("matches", "within noise", "differs").index)


def data_quirks(paths) -> str:
    """What rule baselines_make_per_example_check finds in the released data (its quirks.md
    without the headings)."""
    text = paths["quirks"].read_text()
    body = "\n".join(line for line in text.splitlines() if not line.startswith("#"))
    return re.sub(r"\n{3,}", "\n\n", body).strip() + "\n"


def table2_precisions(paths) -> str:
    """docs/baselines.md: NF4 against full precision per experiment, and both summaries
    beside the paper's (rule docs_tables, from results/baselines/tables/table2.csv)."""
    from evalsci.studies.baselines import table1, table2
    from evalsci.studies.baselines.formatting import md_table

    df = pd.read_csv(next(iter(paths.values())))
    ref = reference.load("baselines")
    s = table2.summary(df)
    rows = [
        [
            f"{r.dataset} {r.shots}-shot ({r.model} / {r.nf4_model})",
            f"{r.max_val_acc_full:.3f} {table1.SYMBOL_MD[r.verdict_full]}",
            f"{r.max_val_acc_nf4:.3f} {table1.SYMBOL_MD[r.verdict_nf4]}",
            "yes" if r.verdict_changed else "no",
            f"{100 * r.identical_predictions:.1f}%",
            f"{r.max_val_acc_nf4 - r.max_val_acc_full:+.3f}",
            f"{r.mean_acc_nf4 - r.mean_acc_full:+.3f}",
        ]
        for r in df.itertuples()
    ]
    out = md_table(
        [
            "experiment (full / NF4 model)",
            "best acc. full",
            "best acc. NF4",
            "verdict changed",
            "identical predictions",
            "best acc. NF4 - full",
            "mean acc. NF4 - full",
        ],
        rows,
    )
    p, q = ref["table2"], ref["table1"]
    lines = [
        f"- Verdicts changed between NF4 and full precision: {s['verdicts_changed']} of "
        f"{s['experiments']} experiments; identical predictions over all (prompt, example) "
        f"pairs: {100 * s['identical_predictions']:.1f}% (mean of the experiments).",
        f"- Ours, full precision: {s['full']['above_standard']} above standard, "
        f"{s['full']['above_max']} above max, {s['full']['disagreements']} disagreements "
        f"({table2._pct(s['full']['percent_flipped'])}); NF4: {s['nf4']['above_standard']}, "
        f"{s['nf4']['above_max']}, {s['nf4']['disagreements']} "
        f"({table2._pct(s['nf4']['percent_flipped'])}).",
        f"- Paper, {p['experiments']} experiments: non-quantized {p['disagreements']} "
        f"disagreements ({p['percent_flipped']:.1f}%, {p['source'].split(';')[0]}); quantized "
        f'{q["disagreements"]} ({q["percent_flipped"]:.1f}%, Table 1). "{p["claim"]}" '
        f"({p['claim_source']}).",
    ]
    return out + "\n\n" + "\n".join(lines) + "\n"
