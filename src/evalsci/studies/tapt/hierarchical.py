"""The hierarchical model of Section 6 (eqs. 1-8), as the authors fit it with bambi.

    Y_ijkl ~ Binomial(n, lambda_ijkl)
    logit(lambda_ijkl) = mu + alpha z_i + U_j + V_jk + W_jl + beta x_ijkl

i = LM type, j = task (dataset), k = subsample (pair), l = method. In bambi's formula:

    p(num_correct, num_test) ~ method + lm_type + (1|dataset/method) + (1|dataset/pair)

`(1|dataset/method)` adds the task x treatment effect W_jl; the paper's eq. 2 omits it,
the authors' code has it, and it is a switch here (`task_treatment`). `lm_type` is dropped
when a configuration has one LM. The pair id is the subsample index: subsample i of a task is
the same (train, extra, test) split for every LM (the seed depends only on i), so BERT and
GPT-2 rows of one subsample share V_jk.

Priors are written out in full (`priors`): the paper's eqs. 3-8 plus, for the terms the
authors left to bambi, the values bambi printed in their notebooks (lm_type N(0, 5);
sigma_W HalfNormal(3.5355) with two LMs and HalfNormal(2.5) with one).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from evalsci.stats.bayes import PriorSpec
from evalsci.studies.tapt.columns import LONG_COLUMNS
from evalsci.studies.tapt.data import COMPARISONS

COUNT_RULES = ("round", "truncate")


def num_correct(acc: pd.Series | np.ndarray, n, rule: str = "round") -> np.ndarray:
    """Number of correct predictions behind an accuracy on n test texts.

    "round" is correct. "truncate" reproduces the authors' `(acc * n).cast(pl.Int64)`,
    which truncates floats and so gives one fewer for e.g. 0.29 * 100 = 28.999...
    (about 3% of the released rows).
    """
    counts = np.asarray(acc, float) * np.asarray(n, float)
    if rule == "round":
        return np.round(counts).astype(np.int64)
    if rule == "truncate":
        return np.trunc(counts).astype(np.int64)
    raise ValueError(f"unknown count rule {rule!r}; choose one of {COUNT_RULES}")


def long_format(acc: pd.DataFrame, comparison: str, counts: str = "round") -> pd.DataFrame:
    """One row per (LM type, task, subsample, method) for one configuration and comparison.

    `acc` is the normalised accuracy table (evalsci.studies.tapt.data) restricted to one
    configuration. `method` takes the control and treatment accuracy names, so its reference
    level (alphabetical, as in bambi) is the control: base for boost, extra for bias.
    """
    if comparison not in COMPARISONS:
        raise ValueError(f"unknown comparison {comparison!r}; choose one of {list(COMPARISONS)}")
    if acc["config"].nunique() != 1:
        raise ValueError(
            f"long_format needs one configuration, got {sorted(acc['config'].unique())}"
        )
    frames = []
    for method in COMPARISONS[comparison]:
        frames.append(
            pd.DataFrame(
                {
                    "lm_type": acc["lm"].to_numpy(),
                    "dataset": acc["dataset"].to_numpy(),
                    # The subsample index, shared across LMs: the same split for every LM.
                    "pair": acc["subsample"].astype(int).astype(str).to_numpy(),
                    "method": method,
                    "num_correct": num_correct(acc[method], acc["n"], counts),
                    "num_test": acc["n"].astype(np.int64).to_numpy(),
                }
            )
        )
    out = pd.concat(frames, ignore_index=True)
    return out.sort_values(
        ["lm_type", "dataset", "pair", "method"], kind="stable", ignore_index=True
    )[list(LONG_COLUMNS)]


def formula(n_lms: int, task_treatment: bool = True) -> str:
    """The authors' formula (lm_type only with more than one LM; W_jl switchable)."""
    rhs = ["method"]
    if n_lms > 1:
        rhs.append("lm_type")
    rhs.append("(1|dataset/method)" if task_treatment else "(1|dataset)")
    rhs.append("(1|dataset/pair)")
    return "p(num_correct, num_test) ~ " + " + ".join(rhs)


def priors(n_lms: int, task_treatment: bool = True) -> dict[str, PriorSpec]:
    """Every prior of the model, explicitly (keys are bambi term names)."""

    def half_normal(sigma):
        return PriorSpec("HalfNormal", {"sigma": sigma})

    out = {
        "Intercept": PriorSpec("Normal", {"mu": 0.0, "sigma": 1.0}),  # eq. 3
        "method": PriorSpec("Normal", {"mu": 0.0, "sigma": 1.0}),  # eq. 7 (beta)
        "1|dataset": PriorSpec("Normal", {"mu": 0.0, "sigma": half_normal(1.0)}),  # eqs. 5, 8
        "1|dataset:pair": PriorSpec("Normal", {"mu": 0.0, "sigma": half_normal(1.0)}),  # 6, 8
    }
    if n_lms > 1:
        out["lm_type"] = PriorSpec("Normal", {"mu": 0.0, "sigma": 5.0})  # eq. 4
    if task_treatment:
        # bambi's automatic prior as printed in the authors' notebooks (not set in their code).
        sigma_w = 3.5355 if n_lms > 1 else 2.5
        out["1|dataset:method"] = PriorSpec("Normal", {"mu": 0.0, "sigma": half_normal(sigma_w)})
    return out


def beta_name(comparison: str) -> str:
    """bambi's name of beta: the treatment level of `method`."""
    return f"method[{COMPARISONS[comparison][1]}]"


def build(long: pd.DataFrame, *, task_treatment: bool = True):
    """The built bambi model of one configuration and comparison (every prior explicit),
    group-level effects non-centred as bambi's default. The workflow samples the same model
    in other coordinates (`evalsci.studies.tapt.reparam`)."""
    from evalsci.stats.bayes import build_model

    n_lms = long["lm_type"].nunique()
    return build_model(
        formula(n_lms, task_treatment),
        long,
        priors(n_lms, task_treatment),
        family="binomial",
        noncentered=True,
    )
