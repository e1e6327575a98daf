"""Table 2 (paper 000 Appendix C): Table 1's judgement on non-quantized models, and what
4-bit quantisation changes, from our own inference.

The paper evaluates its six models in 4-bit (NF4, nested quantisation, bf16 compute; Sec.
5.1, Appendix B) and gives the same table for the non-quantized models in Appendix C: 40
disagreements, 15.8% of results above the standard baseline are not above the maximum
random baseline (22.0% quantized, Table 1). The authors released no non-quantized results,
so we recompute both precisions: each pair of config `baselines.recompute.
precision_pairs` (an NF4 model and the same model in full precision) runs the grid's tasks,
shots and prompts (the same prompts: the authors' demonstration IDs).

Per experiment (model, task, shots) and precision: the best prompt's validation accuracy
and its verdict against the standard and the maximum random baseline (`table1.verdict`,
the paper's criterion, at the setting's exact n and t). Between the precisions: whether the
verdict changes; the share of (prompt, example) predictions that are identical; the
accuracy difference NF4 - full (best prompt, and the mean over prompts).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from evalsci.configcheck import where as config_where
from evalsci.lm.icl import predictions, prompt_accuracies
from evalsci.studies.baselines import table1
from evalsci.studies.baselines.columns import TABLE2_COLUMNS
from evalsci.studies.baselines.formatting import fmt, md_table
from evalsci.studies.baselines.keys import Baselines
from evalsci.studies.baselines.recompute_grid import RecomputeSettings
from evalsci.studies.baselines.settings import Cell


def pairs(settings: RecomputeSettings) -> list[tuple[str, str]]:
    """(nf4 model, full-precision model) of every configured pair."""
    return list(settings.precision_pairs)


def check_pairs(settings: RecomputeSettings, lm_models: Mapping, where: str) -> None:
    """At parse time: both models of a pair are in lm.models, the NF4 one is not forced to
    full precision and the full one is not forced to NF4 (clear error naming the key)."""
    key = f"{where.removeprefix('config ')}.precision_pairs"
    for i, (nf4, full) in enumerate(pairs(settings)):
        for role, name, forbidden in (("nf4", nf4, "none"), ("full", full, "nf4")):
            if name not in lm_models:
                raise ValueError(
                    f"{where}.precision_pairs[{i}].{role} ({config_where(key)}): "
                    f"unknown model {name!r}; "
                    f"known (config lm.models): {sorted(lm_models)}"
                )
            if (lm_models[name] or {}).get("quantize", "auto") == forbidden:
                raise ValueError(
                    f"{where}.precision_pairs[{i}].{role}: model {name!r} has quantize: "
                    f"{forbidden} in lm.models, so it cannot be the {role} side of the pair"
                )
        if nf4 == full:
            raise ValueError(f"{where}.precision_pairs[{i}]: nf4 and full are both {nf4!r}")


def pair_cells(settings: RecomputeSettings) -> list[tuple[str, str, int]]:
    """(model, task, shots) of both models of every pair, in the order Table 2 reads them
    (their files: the study's plan, `table2_per_example` and `table2_options`)."""
    cells = (
        (model, task, int(shots))
        for nf4, full in pairs(settings)
        for model in (nf4, full)
        for task in settings.tasks
        for shots in settings.shots
    )
    return list(dict.fromkeys(cells))  # a model in two pairs: once


def _predictions(path) -> pd.Series:
    return predictions(pd.read_csv(path))


def build(
    settings: RecomputeSettings,
    per_example: Mapping[tuple[str, str, int], str],
    options: Mapping[tuple[str, str, int], str],
    baselines: Baselines,
) -> pd.DataFrame:
    """One row per (full-precision model, task, shots): see the module docstring."""
    rows = []
    for nf4, full in pairs(settings):
        for task in settings.tasks:
            for shots in settings.shots:
                accs = {
                    m: np.asarray(prompt_accuracies(pd.read_csv(per_example[(m, task, shots)])))
                    for m in (nf4, full)
                }
                judged = table1.build(
                    {Cell(m, task, shots): a for m, a in accs.items()}, baselines
                ).set_index("model")
                a, b = judged.loc[full], judged.loc[nf4]
                pf = _predictions(options[(full, task, shots)])
                pq = _predictions(options[(nf4, task, shots)])
                if not pf.index.equals(pq.index):
                    raise ValueError(
                        f"{task} {shots}-shot: {full} and {nf4} scored different "
                        "(prompt, example) pairs; rerun both with the same grid"
                    )
                rows.append(
                    [
                        task,
                        int(a.n),
                        full,
                        nf4,
                        shots,
                        int(a.t),
                        float(a.standard_baseline),
                        float(a.max_baseline),
                        float(a.max_val_acc),
                        a.verdict,
                        float(b.max_val_acc),
                        b.verdict,
                        a.verdict != b.verdict,
                        float((pf.to_numpy() == pq.to_numpy()).mean()),
                        float(accs[full].mean()),
                        float(accs[nf4].mean()),
                    ]
                )
    return pd.DataFrame(rows, columns=TABLE2_COLUMNS)


def summary(df: pd.DataFrame) -> dict:
    """Table 1's summary per precision, and what changes between them."""

    def side(col: str) -> dict:
        return table1.summary(pd.DataFrame({"verdict": df[col]}))

    return {
        "full": side("verdict_full"),
        "nf4": side("verdict_nf4"),
        "verdicts_changed": int(df.verdict_changed.sum()),
        "experiments": len(df),
        "identical_predictions": float(df.identical_predictions.mean()) if len(df) else np.nan,
    }


def _pct(x: float) -> str:
    return "n/a" if x != x else f"{x:.1f}%"


def to_markdown(df: pd.DataFrame, ref: Mapping, ref_quantized: Mapping) -> str:
    """Per-experiment rows, then the summary beside the paper's numbers."""
    sym = table1.SYMBOL_MD
    header = [
        "dataset",
        "n",
        "model",
        "shots",
        "t",
        "standard",
        "max random",
        "best acc. full",
        "full",
        "best acc. NF4",
        "NF4",
        "verdict changed",
        "identical predictions",
        "mean acc. NF4 - full",
    ]
    rows = [
        [
            r.dataset,
            str(r.n),
            r.model,
            str(r.shots),
            str(r.t),
            fmt(r.standard_baseline, 3),
            fmt(r.max_baseline, 3),
            fmt(r.max_val_acc_full, 3),
            sym[r.verdict_full],
            fmt(r.max_val_acc_nf4, 3),
            sym[r.verdict_nf4],
            "yes" if r.verdict_changed else "no",
            f"{100 * r.identical_predictions:.1f}%",
            f"{r.mean_acc_nf4 - r.mean_acc_full:+.3f}",
        ]
        for r in df.itertuples()
    ]
    s = summary(df)

    def row(label: str, d: Mapping) -> list[str]:
        """A summary row; a count the paper does not state stays empty."""
        counts = ("experiments", "above_standard", "above_max", "disagreements")
        return [label, *(str(d[k]) if k in d else "" for k in counts), _pct(d["percent_flipped"])]

    totals = md_table(
        ["", "experiments", "above standard", "above max", "disagreements ◐", "% flipped"],
        [
            row("ours, full precision", s["full"]),
            row("ours, NF4", s["nf4"]),
            row("paper, non-quantized (Table 2)", ref),
            row("paper, quantized (Table 1)", ref_quantized),
        ],
    )
    legend = (
        "○: best prompt below both baselines; ◐: above the standard random baseline but not "
        "above the maximum random baseline; ●: above both. Verdict changed: the NF4 and the "
        "full-precision run of the same experiment land in different classes. Identical "
        "predictions: share of (prompt, example) pairs where both precisions choose the same "
        f"option. Verdicts changed: {s['verdicts_changed']} of {s['experiments']}. "
        f'Paper (Appendix B): "{ref["claim"]}" ({ref["claim_source"]}).'
    )
    return md_table(header, rows) + "\n\n" + totals + "\n\n" + legend + "\n"
