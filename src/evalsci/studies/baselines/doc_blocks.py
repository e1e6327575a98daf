"""The `baselines` blocks of docs/baselines.md rendered from result files (registered in
evalsci/pipeline/doc_blocks.yaml, written by rule docs_tables). "Ours vs the paper" is the
claims ledger's block (evalsci.claims.render.study_block): no block here decides a verdict."""

from __future__ import annotations

import re

import pandas as pd

from evalsci import reference
from evalsci.claims.render import study_block


def claims(paths) -> str:
    """docs/baselines.md: the study's claims ledger (input `claims`), rows as it holds them."""
    return study_block(paths)


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
