"""The summary of the Monte Carlo runs per (model, dataset), beside the max random baselines."""

from __future__ import annotations

import pandas as pd

from evalsci.studies.mc_icl.columns import SUMMARY_COLUMNS
from evalsci.studies.mc_icl.maxrandom_requests import eval_size

# Curve values are rounded to this many decimals before the argmax: the trial-averaged mean
# accuracies are rationals, and equal ones must tie exactly whatever order a CPU summed them
# in. Ties go to the smallest k (the cheapest prompt).
TIE_DECIMALS = 9


def summary(acc: pd.DataFrame, baselines: pd.DataFrame, num_eval: int) -> pd.DataFrame:
    """Per (model, dataset), averaged over trials where it says mean:

    zero_shot: k = 0 accuracy; one_shot_*: k = 1 accuracy over permutations and trials, and
    the share of one-shot prompts below their trial's zero-shot accuracy (Section 5.1, "Is
    one example better than none?") and how many one-shot prompts it is a share of (the
    permutations over all trials); k_max_mean: mean accuracy at k = K; best_k and its
    accuracy: the argmax of the trial-averaged mean curve (rounded to TIE_DECIMALS; ties go to
    the smallest k); best_prompt: the best single
    (permutation, k) of a trial, averaged over trials. The random columns come from rule
    maxrandom: one random classifier, and the expected best of t = K + 1 (best k) and of
    t = a trial's distinct prompts (best prompt, averaged over trials).
    """
    rows = []
    for (m, d), sub in acc.groupby(["model", "dataset"], sort=True):
        zero = sub[sub["k"] == 0].groupby("trial")["accuracy"].first()
        one = sub[sub["k"] == 1].merge(zero.rename("zero").reset_index(), on="trial")
        curve = sub.groupby(["trial", "k"])["accuracy"].mean().groupby("k").mean()
        best_prompt = sub.groupby("trial")["accuracy"].max()
        trial_keys = [f"{d}|trial{t}|prompts" for t in best_prompt.index]
        rows.append(
            {
                "model": m,
                "dataset": d,
                "n": eval_size(d, num_eval),
                "zero_shot": zero.mean(),
                "one_shot_mean": one["accuracy"].mean(),
                "one_shot_min": one["accuracy"].min(),
                "one_shot_max": one["accuracy"].max(),
                "one_shot_below_zero_shot": (one["accuracy"] < one["zero"]).mean(),
                "one_shot_prompts": len(one),
                "k_max_mean": curve.iloc[-1],
                "best_k": int(curve.round(TIE_DECIMALS).idxmax()),
                "best_k_accuracy": curve.max(),
                "best_prompt": best_prompt.mean(),
                "random": baselines.loc[f"{d}|k_curve", "standard"],
                "max_random_best_k": baselines.loc[f"{d}|k_curve", "expected_max"],
                "max_random_best_prompt": baselines.loc[trial_keys, "expected_max"].mean(),
            }
        )
    return pd.DataFrame(rows, columns=SUMMARY_COLUMNS)
