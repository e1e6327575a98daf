"""Section 5.2 Z-score selection on constructed cases."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalsci.studies.mc_icl.selection import example_values, random_set, select


def scores_from_accuracy(
    trial: int, orders: list[list[int]], acc: dict[tuple[int, int], float], n: int = 10
) -> pd.DataFrame:
    """A scores table of one trial whose (permutation, k) accuracy is `acc[p, k]` exactly:
    the first round(acc * n) of n examples are predicted correctly (label 0 wins)."""
    rows = []
    for p, order in enumerate(orders):
        for k, demo in enumerate(order, start=1):
            n_ok = round(acc[p, k] * n)
            for e in range(n):
                rows.append(
                    {
                        "model": "m",
                        "dataset": "d",
                        "trial": trial,
                        "set": "trial",
                        "permutation": p,
                        "k": k,
                        "demo": demo,
                        "example": e,
                        "label": 0,
                        "ll_0": 0.0 if e < n_ok else -1.0,
                        "ll_1": -0.5,
                        "nchars_0": 1,
                        "nchars_1": 1,
                    }
                )
    return pd.DataFrame(rows)


def test_values_are_the_accuracy_where_each_example_enters():
    # two permutations of demos 7, 8; accuracy at step k of permutation p
    orders = [[7, 8], [8, 7]]
    acc = {(0, 1): 0.2, (0, 2): 0.6, (1, 1): 0.4, (1, 2): 1.0}
    v = example_values(scores_from_accuracy(0, orders, acc)).set_index("demo")
    # demo 7 enters at (0, 1) and (1, 2); demo 8 at (0, 2) and (1, 1)
    assert v.loc[7, "value"] == pytest.approx((0.2 + 1.0) / 2)
    assert v.loc[8, "value"] == pytest.approx((0.6 + 0.4) / 2)
    # two values: population Z = +-1
    assert v.loc[7, "z"] == pytest.approx(1.0) and v.loc[8, "z"] == pytest.approx(-1.0)


def test_z_scores_within_trial_and_top_bottom_sets():
    # per trial, the value of each demo is set directly through a single permutation:
    # demo d enters at step k = position; accuracy there = its value.
    frames = []
    values = {
        0: {10: 0.9, 11: 0.5, 12: 0.5, 13: 0.5, 14: 0.1, 15: 0.5},
        1: {20: 0.3, 21: 0.3, 22: 0.3, 23: 0.3, 24: 0.3, 25: 0.8},  # low mean, one high
    }
    for t, vals in values.items():
        order = list(vals)
        acc = {(0, k): vals[d] for k, d in enumerate(order, start=1)}
        frames.append(scores_from_accuracy(t, [order], acc))
    v = example_values(pd.concat(frames, ignore_index=True))
    for t, vals in values.items():
        x = np.array(list(vals.values()))
        z_expected = (x - x.mean()) / x.std()  # population std (the paper divides by k)
        got = v[v["trial"] == t].set_index("demo").loc[list(vals), "z"].to_numpy()
        np.testing.assert_allclose(got, z_expected)
    # trial 1's 0.8 is far above its own trial mean: Z computed within trial, so it is high
    sets = select(v, size=6, threshold=1.0)
    assert sets["high"] == [25, 10]  # Z(25) = 2.236 > Z(10) = 1.732
    assert sets["low"] == [14]  # only Z < -1; trial 1's 0.3's have Z = -0.447
    assert select(v, size=1)["high"] == [25]


def test_select_deduplicates_and_respects_threshold():
    v = pd.DataFrame(
        {
            "model": "m",
            "dataset": "d",
            "trial": [0, 1, 0, 1],
            "demo": [5, 5, 6, 7],
            "value": 0.0,
            "z": [1.5, 1.2, 0.9, -3.0],
        }
    )
    assert select(v, 6, 1.0) == {"high": [5], "low": [7]}
    assert select(v, 6, 0.5) == {"high": [5, 6], "low": [7]}


def test_random_set_is_a_seeded_sample_of_training_ids():
    ids = np.arange(100, 200)
    a = random_set(ids, 6, 0, "qnli")
    assert len(set(a)) == 6 and set(a) <= set(ids.tolist())
    assert a == random_set(ids, 6, 0, "qnli") and a != random_set(ids, 6, 1, "qnli")


def test_fill_tops_up_sets_when_few_pass_the_threshold():
    v = pd.DataFrame(
        {
            "model": "m",
            "dataset": "d",
            "trial": 0,
            "demo": [1, 2, 3, 4],
            "value": 0.0,
            "z": [1.0, 1.0, -1.0, -1.0],
        }
    )  # none strictly beyond 1
    assert select(v, 2, 1.0) == {"high": [], "low": []}
    assert select(v, 2, 1.0, fill=True) == {"high": [1, 2], "low": [3, 4]}
    assert select(v, 6, 1.0, fill=True) == {"high": [1, 2], "low": [3, 4]}  # halves at most
    flat = v.assign(z=0.0)  # no example differs from its trial mean
    assert select(flat, 1, 1.0, fill=True) == {"high": [1], "low": [2]}


def test_best_k_ties_within_float_noise_go_to_the_smallest_k():
    from evalsci.studies.mc_icl.summary import summary

    # k = 1 averages (0.3, 0.0), k = 2 averages (0.1, 0.2): both 0.15, but the second sums to
    # 0.15000000000000002. The stated rule (round, then the smallest k) gives k = 1.
    acc = pd.DataFrame(
        [("m", "sst2", 0, p, 0, 0.1) for p in (0, 1)]
        + [
            ("m", "sst2", 0, 0, 1, 0.3),
            ("m", "sst2", 0, 1, 1, 0.0),
            ("m", "sst2", 0, 0, 2, 0.1),
            ("m", "sst2", 0, 1, 2, 0.2),
        ],
        columns=["model", "dataset", "trial", "permutation", "k", "accuracy"],
    )
    base = pd.DataFrame(
        {"standard": [0.5, 0.5], "expected_max": [0.6, 0.7]},
        index=["sst2|k_curve", "sst2|trial0|prompts"],
    )
    assert acc[acc.k == 2]["accuracy"].mean() > acc[acc.k == 1]["accuracy"].mean()
    row = summary(acc, base, num_eval=12).iloc[0]
    assert row["best_k"] == 1
    assert row["best_k_accuracy"] == pytest.approx(0.15)
