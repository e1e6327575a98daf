"""Per-example, per-choice log-likelihood shards and the accuracies computed from them.

A shard holds one (model, dataset, trial) of Algorithm 1 (or one Section 5.2 set), one row
per (permutation, k, validation example):

    model, dataset, trial, set, permutation, k, demo, example, label, ll_0..ll_{C-1}, nchars_0..nchars_{C-1}

- `permutation` = -1 and `k` = 0 for the zero-shot prompt, stored once per trial;
- `demo` is the training index (HF `idx`) of the demonstration added at step k (-1 at k = 0),
  so permutation p's order is its `demo` column sorted by k;
- `ll_c` is the summed log-probability of continuation " " + choice c (harness `acc` uses
  argmax ll), `nchars_c` the character length of choice c (harness `acc_norm` divides by it).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from evalsci.pipeline.jobs import atomic_path
from evalsci.studies.mc_icl.columns import ACCURACY_COLUMNS, KEY_COLUMNS


class ScoresError(ValueError):
    """A scores shard or table is missing columns or is inconsistent."""


def choice_columns(df: pd.DataFrame, prefix: str = "ll_") -> list[str]:
    cols = sorted(
        (c for c in df.columns if c.startswith(prefix)), key=lambda c: int(c[len(prefix) :])
    )
    return cols


def check_scores(df: pd.DataFrame, source: str = "scores") -> pd.DataFrame:
    missing = [c for c in KEY_COLUMNS if c not in df.columns]
    ll, nc = choice_columns(df), choice_columns(df, "nchars_")
    if missing or not ll or len(ll) != len(nc):
        raise ScoresError(
            f"{source}: not a mc_icl scores table (missing {missing or 'll_/nchars_ columns'}; "
            f"expected {KEY_COLUMNS} + ll_c + nchars_c)"
        )
    if df[ll].isna().any().any():
        raise ScoresError(f"{source}: missing log-likelihoods")
    return df


def write_scores(df: pd.DataFrame, path: str | os.PathLike) -> None:
    check_scores(df, str(path))
    with atomic_path(path) as tmp:
        df.to_parquet(tmp, index=False)


def read_scores(paths: Iterable[str | os.PathLike]) -> pd.DataFrame:
    frames = []
    for p in paths:
        if not Path(p).is_file():
            raise ScoresError(f"scores shard missing: {p}")
        frames.append(check_scores(pd.read_parquet(p), str(p)))
    if not frames:
        raise ScoresError("no scores shards given")
    return pd.concat(frames, ignore_index=True)


def correct(df: pd.DataFrame, norm: bool = False) -> np.ndarray:
    """Harness `acc` (argmax of the summed log-likelihood) or `acc_norm` (divided by the
    choice's character length) per row. Ties go to the first choice, as `np.argmax` does."""
    ll = df[choice_columns(df)].to_numpy(float)
    if norm:
        ll = ll / df[choice_columns(df, "nchars_")].to_numpy(float)
    return ll.argmax(axis=1) == df["label"].to_numpy()


def accuracy_by_k(scores: pd.DataFrame, norm: bool = False) -> pd.DataFrame:
    """Validation accuracy of every (model, dataset, trial, permutation, k).

    The zero-shot accuracy (stored once per trial as permutation -1) is repeated for every
    permutation of its trial, so each permutation's curve runs over k = 0..K.
    """
    df = scores.assign(correct=correct(scores, norm))
    df = df[df["set"] == "trial"]
    acc = (
        df.groupby(["model", "dataset", "trial", "permutation", "k"], sort=True)["correct"]
        .mean()
        .rename("accuracy")
        .reset_index()
    )
    zero = acc[acc["permutation"] == -1]
    rest = acc[acc["permutation"] >= 0]
    perms = rest[["model", "dataset", "trial", "permutation"]].drop_duplicates()
    zero = zero.drop(columns="permutation").merge(perms, on=["model", "dataset", "trial"])
    out = pd.concat([zero[ACCURACY_COLUMNS], rest[ACCURACY_COLUMNS]], ignore_index=True)
    return out.sort_values(ACCURACY_COLUMNS[:5], ignore_index=True)


def accuracy_by_set(scores: pd.DataFrame) -> pd.DataFrame:
    """Accuracy per (model, dataset, set, permutation, k) of the Section 5.2 runs, with the
    zero-shot accuracy repeated for every permutation."""
    df = scores.assign(correct=correct(scores))
    df = df[df["set"] != "trial"]
    acc = (
        df.groupby(["model", "dataset", "set", "permutation", "k"], sort=True)["correct"]
        .mean()
        .rename("accuracy")
        .reset_index()
    )
    zero = acc[acc["permutation"] == -1].drop(columns="permutation")
    rest = acc[acc["permutation"] >= 0]
    perms = rest[["model", "dataset", "set", "permutation"]].drop_duplicates()
    zero = zero.merge(perms, on=["model", "dataset", "set"])
    cols = ["model", "dataset", "set", "permutation", "k", "accuracy"]
    return pd.concat([zero[cols], rest[cols]], ignore_index=True).sort_values(
        cols[:5], ignore_index=True
    )


def check_accuracy(df: pd.DataFrame, source: str) -> pd.DataFrame:
    missing = [c for c in ACCURACY_COLUMNS if c not in df.columns]
    if missing:
        raise ScoresError(f"{source}: missing columns {missing}; expected {ACCURACY_COLUMNS}")
    return df
