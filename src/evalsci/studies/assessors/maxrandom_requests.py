"""Requests to the shared max random baseline for the `assessors` AUC figures.

Choosing the best of t combinations on validation data is selection over t. For each
(collection, split, LLM, evaluation set) we ask the `maxrandom` rule for the expected maximum
AUC of t random scorers on a set with that LLM's n_pos successes and n_neg failures:
- `t = n_combinations`: the generic assessor's search (Figure 2, Table 3);
- `t = n_nref`: the n_ref sweep (number of sizes x feature sets; Figures 8-9).
The answers come back in `results/assessors/maxrandom/baselines.csv` (column `expected_max`);
this module only writes requests and reads answers, it never computes the baseline.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

__all__ = ["request_key", "build_requests", "read_answers"]


def request_key(collection: str, split: str, eval_set: str, llm: str, search: str) -> str:
    return f"{collection}|{split}|{eval_set}|{llm}|{search}"


def build_requests(
    collection: str,
    success: pd.DataFrame,
    splits: pd.DataFrame,
    llms: Mapping[str, Sequence[str]],
    t: Mapping[str, int],
) -> pd.DataFrame:
    """One request per (split, validation or test LLM on its evaluation set, search in `t`).

    `success` is indexed by instance_id (one column per LLM), `splits` by instance_id (one
    role column per split); `t` maps a search name ("generic", "nref") to its t.
    """
    from evalsci.maxrandom.requests import auc_request, requests_frame

    rows = []
    for split in splits.columns:
        roles = splits[split]
        for role in ("validation", "test"):
            ids = roles.index[roles == role]
            for llm in llms[role]:
                y = success.loc[ids, llm]
                n_pos = int(y.sum())
                n_neg = int(len(y) - n_pos)
                if n_pos == 0 or n_neg == 0:
                    continue  # no AUC exists for a single-label set
                for search, tt in t.items():
                    if tt < 1:
                        continue
                    rows.append(
                        auc_request(
                            request_key(collection, split, role, llm, search), n_pos, n_neg, int(tt)
                        )
                    )
    return requests_frame(rows)


def read_answers(path: str | Path) -> pd.DataFrame:
    """baselines.csv rows with the key split back into collection, split, eval_set, llm, search."""
    from evalsci.maxrandom.requests import read_baselines

    df = read_baselines(path).reset_index()
    if "expected_max" not in df.columns:
        raise ValueError(f"{path}: no 'expected_max' column")
    parts = df["key"].str.split("|", expand=True)
    if parts.shape[1] != 5:
        raise ValueError(
            f"{path}: keys are not assessors keys (collection|split|eval_set|llm|search)"
        )
    df[["collection", "split", "eval_set", "llm", "search"]] = parts
    return df
