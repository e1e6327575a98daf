"""Section 5.2: selecting demonstrations by their Monte Carlo value.

Every demonstration e of a trial enters each permutation at some step k. Its value mu_e is
the accuracy at the step where it was added, averaged over the trial's permutations (so over
different orderings and k's, as the paper says). Within each trial t the values are
standardised, Z = (mu_e - mu_t) / sigma_t, with sigma_t the population standard deviation
(the paper divides by k). Pooled over trials, the examples with Z > 1 (Z < -1) are the
candidates; the 6 with the highest (lowest) Z form the "high" ("low") set, which are then run
through Algorithm 1 again and compared with a random set of the same size (Figure 4).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from evalsci.studies.mc_icl.columns import VALUE_COLUMNS
from evalsci.studies.mc_icl.sampler import rng_for
from evalsci.studies.mc_icl.scores import correct

# Z is rounded to this many decimals before it is compared with the threshold or ranked:
# two examples with the same accuracies then tie exactly (ties go to the lower demo index)
# whatever order a CPU summed them in, and a Z of exactly 1 does not pass by float noise.
Z_DECIMALS = 9


def example_values(scores: pd.DataFrame) -> pd.DataFrame:
    """mu_e and its within-trial Z per (model, dataset, trial, demo) from Algorithm 1 scores."""
    df = scores[(scores["set"] == "trial") & (scores["k"] > 0)]
    df = df.assign(correct=correct(df))
    acc = df.groupby(["model", "dataset", "trial", "permutation", "k", "demo"])["correct"].mean()
    values = acc.groupby(["model", "dataset", "trial", "demo"]).mean().rename("value").reset_index()
    values["z"] = (
        values.groupby(["model", "dataset", "trial"])["value"].transform(zscore).round(Z_DECIMALS)
    )
    return values[VALUE_COLUMNS]


def zscore(values: pd.Series) -> pd.Series:
    """(x - mean) / population std; all zeros when the values do not vary."""
    sd = values.std(ddof=0)
    return (values - values.mean()) / sd if sd > 0 else values * 0.0


def select(
    values: pd.DataFrame, size: int = 6, threshold: float = 1.0, fill: bool = False
) -> dict[str, list[int]]:
    """The high and low sets of one (model, dataset): the `size` examples with the highest
    Z > threshold and the `size` with the lowest Z < -threshold, pooled over trials (an
    example drawn in two trials counts once, with its most extreme Z).

    With few trials or demonstrations (our reduced CPU configuration) fewer than `size`
    examples may pass the threshold. `fill=True` then ranks every example by Z and takes the
    top and the bottom min(size, m // 2) of the m distinct examples, so the Figure 4 runs
    still have something to compare. The paper's setting (100 candidates) never needs it.
    """
    if fill:
        ranked = values.sort_values(["z", "demo"], ascending=[False, True])
        order = [int(d) for d in ranked["demo"].drop_duplicates()]
        n = min(size, len(order) // 2)
        low_order = [int(d) for d in values.sort_values(["z", "demo"])["demo"].drop_duplicates()]
        high_ids = order[:n]
        return {"high": high_ids, "low": [d for d in low_order if d not in high_ids][:n]}
    high = values[values["z"] > threshold].sort_values(["z", "demo"], ascending=[False, True])
    low = values[values["z"] < -threshold].sort_values(["z", "demo"], ascending=[True, True])
    high_ids = [int(d) for d in high["demo"].drop_duplicates().head(size)]
    low_ids = [int(d) for d in low["demo"].drop_duplicates() if d not in high_ids][:size]
    return {"high": high_ids, "low": low_ids}


def passed(values: pd.DataFrame, ids: list[int], threshold: float, side: str) -> int:
    """How many of `ids` pass the paper's |Z| threshold on `side` (in any trial)."""
    v = values[values["demo"].isin(ids)]
    return int((v["z"] > threshold).sum() if side == "high" else (v["z"] < -threshold).sum())


def random_set(train_idx: np.ndarray, size: int, seed: int, dataset: str) -> list[int]:
    """The random baseline set: `size` training examples drawn uniformly (HF idx values)."""
    rng = rng_for(seed, "random_set", dataset)
    return [int(i) for i in rng.choice(np.asarray(train_idx), size=size, replace=False)]
