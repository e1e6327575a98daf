"""Table 3 of the `assessors` study: the winning combination per split, beside the paper's
choice and the max random baseline of the selection (read from the `maxrandom` rule)."""

from __future__ import annotations

import pandas as pd

from evalsci import reference

__all__ = ["table3_with_paper"]


def table3_with_paper(
    t3: pd.DataFrame, collection: str, maxrandom: pd.DataFrame | None
) -> pd.DataFrame:
    """Table 3 of one collection plus the paper's winning combination (in-distribution only)
    and the max random validation AUC for t = number of combinations (mean over val LLMs)."""
    ref = reference.load("assessors")
    stand_in = ref["stand_in_for"].get(collection)  # None for collections with no paper analogue
    paper = ref["table3"][stand_in] if stand_in else {}
    out = t3.copy()
    out.insert(0, "collection", collection)
    for col in ("features", "selector", "classifier"):
        out[f"{col}_paper"] = [
            paper[s][col] if s == "random" and paper else "" for s in out["split"]
        ]
    if maxrandom is not None:
        mr = maxrandom[
            (maxrandom["collection"] == collection)
            & (maxrandom["search"] == "generic")
            & (maxrandom["eval_set"] == "validation")
        ]
        out["max_random_val_auc"] = [
            round(float(mr.loc[mr["split"] == s, "expected_max"].mean()), 4) for s in out["split"]
        ]
    return out
