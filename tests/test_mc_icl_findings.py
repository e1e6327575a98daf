"""mc_icl findings (evalsci.studies.mc_icl.findings): each of the paper's Section 5.1 findings as
a stated test on per-example scores. Scores are built from known 0/1 outcomes, so each test's
outcome is known: a clear plateau supports `plateau`, a curve that keeps jumping supports
`erratic`, one-shot prompts far below and above zero-shot support `one_shot_below/above`; and
a run too small to test a finding says why (K before 8, n = 4, the model at chance)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalsci.studies.mc_icl.findings import COLUMNS, FINDINGS, curves, findings


def scores_from(mat: np.ndarray, firsts=None) -> pd.DataFrame:
    """A trial scores table (one curve per trial, permutation 0) whose harness `acc` is `mat`
    (curves x k = 0..K x examples, 0/1); the label is 0 and ll_0 wins exactly when correct."""
    rows = []
    r, k1, n = mat.shape
    for t in range(r):
        for k in range(k1):
            for e in range(n):
                ok = bool(mat[t, k, e])
                rows.append(
                    dict(
                        model="m", dataset="sst2", trial=t, set="trial",
                        permutation=-1 if k == 0 else 0, k=k,
                        demo=-1 if k == 0 else (firsts[t] if firsts and k == 1 else 1000 * t + k),
                        example=e, label=0, ll_0=0.0 if ok else -2.0, ll_1=-1.0,
                        nchars_0=8, nchars_1=8,
                    )
                )  # fmt: skip
    return pd.DataFrame(rows)


def bernoulli(rng, acc_by_k, r, n):
    acc = np.asarray(acc_by_k)
    return (rng.random((r, len(acc), n)) < acc[None, :, None]).astype(int)


def by_finding(df):
    return df.set_index("finding")


def test_curves_rebuild_the_matrix():
    mat = np.random.default_rng(0).integers(0, 2, size=(2, 5, 7))
    got, keys = curves(scores_from(mat))[("m", "sst2")]
    assert (got == mat).all() and [k[:2] for k in keys] == [(0, 0), (1, 0)]


def test_plateau_supported_by_a_rise_then_flat_average():
    rng = np.random.default_rng(1)
    acc = [0.55] + list(np.linspace(0.6, 0.85, 8)) + [0.86] * 12  # k = 0..20
    mat = bernoulli(rng, acc, 3, 256)
    f = by_finding(findings(scores_from(mat), {"sst2": 2}))
    assert list(f.columns) == COLUMNS[:2] + COLUMNS[3:]
    assert f.loc["plateau", "outcome"] == "supports", f.loc["plateau"].to_dict()
    assert "Holm over the 2" in f.loc["plateau", "test"]


def test_plateau_contradicted_when_ICL_only_hurts_early():
    rng = np.random.default_rng(2)
    acc = [0.85] + [0.6] * 8 + list(np.linspace(0.6, 0.85, 12))
    f = by_finding(findings(scores_from(bernoulli(rng, acc, 3, 256)), {"sst2": 2}))
    assert f.loc["plateau", "outcome"] == "contradicts"


def test_erratic_and_one_shot_directions():
    rng = np.random.default_rng(3)
    # curve 0: jumps between 0.6 and 0.9 after k = 8; one-shot far below zero-shot (0.75)
    # curve 1: flat after 8; one-shot far above zero-shot
    a0 = [0.75, 0.5] + [0.7] * 7 + [0.6, 0.9] * 6
    a1 = [0.75, 0.95] + [0.8] * 19
    mat = np.concatenate([bernoulli(rng, a0, 1, 256), bernoulli(rng, a1, 1, 256)])
    mat[1, 0] = mat[0, 0]  # one zero-shot prompt: the same outcomes in both trials
    f = by_finding(findings(scores_from(mat, firsts=[11, 22]), {"sst2": 2}))
    assert f.loc["erratic", "outcome"] == "supports"
    assert f.loc["erratic", "ours"].startswith("1 of 2 curves")
    assert f.loc["erratic_after_4", "outcome"] == "supports"
    assert f.loc["late_best", "outcome"] == "supports"  # curve 0: 0.9 at k = 10 vs 0.7 at 8
    assert f.loc["one_shot_below", "outcome"] == "supports"
    assert f.loc["one_shot_above", "outcome"] == "supports"
    assert f.loc["one_shot_depends", "outcome"] == "supports"


def test_flat_curves_support_neither_erratic_nor_late_best():
    rng = np.random.default_rng(6)
    mat = bernoulli(rng, [0.8] * 21, 2, 256)
    mat[:, 4:] = mat[:, 4:5]  # the same outcomes at every k from 4 on: no change at all
    f = by_finding(findings(scores_from(mat, firsts=[1, 2]), {"sst2": 2}))
    for name in ("erratic", "erratic_after_4", "late_best"):
        assert f.loc[name, "outcome"] == "inconclusive", name


def test_one_shot_inconclusive_when_prompts_equal_zero_shot():
    rng = np.random.default_rng(4)
    mat = bernoulli(rng, [0.8] * 21, 2, 256)
    mat[:, 1] = mat[:, 0]  # one-shot outcomes identical to zero-shot
    f = by_finding(findings(scores_from(mat, firsts=[1, 2]), {"sst2": 2}))
    for name in ("one_shot_below", "one_shot_above"):
        assert f.loc[name, "outcome"] == "inconclusive"


def test_the_default_demo_cannot_test_any_finding():
    """K = 3 and n = 4 (the default preset): each finding untestable, with the measured
    reason."""
    mat = np.array([[[1, 1, 0, 1], [1, 0, 0, 1], [1, 1, 1, 1], [0, 1, 1, 1]]] * 2)
    f = by_finding(findings(scores_from(mat, firsts=[1, 2]), {"sst2": 2}))
    assert set(f.index) == set(FINDINGS)
    assert (f["outcome"] == "untestable").all()
    assert "K = 3" in f.loc["plateau", "reason"]
    assert "0.125" in f.loc["one_shot_below", "reason"]


def test_a_model_at_chance_tests_nothing():
    rng = np.random.default_rng(5)
    mat = bernoulli(rng, [0.5] * 21, 2, 256)
    f = findings(scores_from(mat), {"sst2": 2})
    assert (f["outcome"] == "untestable").all()
    assert f["reason"].str.contains("at chance").all()


@pytest.mark.parametrize("n", [5, 6])
def test_one_shot_testable_from_six_examples(n):
    """Below 6 examples the exact test cannot reach 0.05 (the reason given first); from 6 on
    it can, and then 6 examples are too few to show the model above chance (Bonferroni over
    its 41 prompts), the next reason."""
    mat = np.ones((2, 21, n), int)
    mat[0, 1] = 0
    f = by_finding(findings(scores_from(mat, firsts=[1, 2]), {"sst2": 2}))
    reason = f.loc["one_shot_below", "reason"]
    assert f.loc["one_shot_below", "outcome"] == "untestable"
    assert ("McNemar" in reason) == (n < 6) and ("at chance" in reason) == (n >= 6)
