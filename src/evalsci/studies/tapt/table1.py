"""Table 1: means of acc_extra - acc_base (boost) and acc_test - acc_extra (bias).

The mean is taken over all subsamples of all tasks of one (m, n, LM), so every subsample
weighs the same (tasks have equal numbers of subsamples in the released data).
"""

from __future__ import annotations

import pandas as pd

from evalsci import reference
from evalsci.studies.tapt.columns import TABLE1_COLUMNS


def paper_table1() -> pd.DataFrame:
    rows = reference.load("tapt")["table1"]["rows"]
    return pd.DataFrame(rows, columns=["m", "n", "lm", "boost_paper", "bias_paper"])


def differences(acc: pd.DataFrame) -> pd.DataFrame:
    """Add the paired differences boost = extra - base and bias = test - extra."""
    return acc.assign(boost=acc["extra"] - acc["base"], bias=acc["test"] - acc["extra"])


def table1(acc: pd.DataFrame) -> pd.DataFrame:
    """Exact means per (m, n, LM) of the main experiment next to the paper's values.

    Only the main experiment (family "main") is in the paper's Table 1; with recomputed
    accuracies for other LMs the paper columns are empty.
    """
    main = acc[acc["family"] == "main"]
    if main.empty:
        raise ValueError("no accuracies of the main experiment (family 'main') to tabulate")
    means = (
        differences(main)
        .groupby(["m", "n", "lm"], as_index=False)[["boost", "bias"]]
        .mean()
        .rename(columns={"boost": "boost_mean", "bias": "bias_mean"})
    )
    out = means.merge(paper_table1(), on=["m", "n", "lm"], how="left")
    return out.sort_values(["m", "n", "lm"], ignore_index=True)[list(TABLE1_COLUMNS)]
