"""The mc_icl named targets build end to end on a tiny configuration (SmolLM2 on CPU)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from conftest import SMOLLM2_MODEL, assert_same_tables, seed_outputs, snakemake

pytestmark = [pytest.mark.workflow, pytest.mark.slow, pytest.mark.lm]
TINY = Path(__file__).parent / "fixtures" / "mc_icl" / "tiny.yaml"
TARGETS = [
    "mc_icl_figure1",
    "mc_icl_figure2",
    "mc_icl_figure3",
    "mc_icl_figure4",
    "mc_icl_figures_one_shot",
    "mc_icl_figures_trials",
]


@pytest.fixture(scope="module")
def built(shared_workdir, mirror):
    snakemake(shared_workdir, *TARGETS, "--configfile", str(TINY), mirror=mirror)
    return shared_workdir


def test_mc_icl_targets(built, mirror):
    wd = built
    res = wd / "results" / "mc_icl"
    acc = pd.read_csv(res / "tables" / "accuracy_by_k.csv")
    assert list(acc.columns) == ["model", "dataset", "trial", "permutation", "k", "accuracy"]
    # every (dataset, trial, permutation, k) of Algorithm 1, k = 0..K
    assert len(acc) == 2 * 2 * 2 * (3 + 1)
    assert acc["accuracy"].between(0, 1).all()
    # k = 0 is one prompt per trial: the same accuracy for every permutation
    assert (acc[acc["k"] == 0].groupby(["dataset", "trial"])["accuracy"].nunique() == 1).all()
    for n in (1, 2, 3, 4, 11, 12, 19, 20):
        for ext in ("pdf", "png"):
            assert (res / "figures" / f"figure{n}.{ext}").stat().st_size > 0
    sets = json.loads((res / "selection" / "smollm2" / "sst2" / "sets.json").read_text())
    assert len(sets["random"]) == 1
    base = pd.read_csv(res / "maxrandom" / "baselines.csv").set_index("key")
    assert base.loc["sst2|k_curve", "t"] == 4
    assert base.loc["sst2|k_curve", "expected_max"] > base.loc["sst2|k_curve", "standard"]
    summary = pd.read_csv(res / "tables" / "summary.csv")
    assert set(summary["dataset"]) == {"sst2", "wnli"}
    # rerun: nothing left to do (shards are resumable outputs, not redone)
    proc = snakemake(wd, *TARGETS, "-n", "--configfile", str(TINY), mirror=mirror)
    assert "Nothing to be done" in proc.stdout + proc.stderr


def test_tables_are_byte_identical_in_a_fresh_workdir_with_other_cores(built, tmp_path, mirror):
    """Issue 17: the same tables, bit for bit, from a fresh workdir on 1 core (float32). The
    workdir starts from the built run's converted model only (the conversion is numpy's
    elementwise dequantisation, exact on any core count; it is the shared run's first job)."""
    seed_outputs(built, tmp_path, SMOLLM2_MODEL)
    snakemake(
        tmp_path,
        "mc_icl_figure1",
        "--configfile",
        str(TINY),
        mirror=mirror,
        cores=1,
    )
    assert_same_tables(tmp_path, built, "mc_icl")


def conclusions(summary: pd.DataFrame) -> pd.DataFrame:
    """What a reader takes from the summary: the best k, whether one example beats none,
    and whether the best k and the best prompt beat their max random baselines."""
    s = summary.set_index(["model", "dataset"])
    return pd.DataFrame(
        {
            "best_k": s["best_k"],
            "one_shot_above_zero_shot": s["one_shot_mean"] > s["zero_shot"],
            "best_k_above_max_random": s["best_k_accuracy"] > s["max_random_best_k"],
            "best_prompt_above_max_random": s["best_prompt"] > s["max_random_best_prompt"],
        }
    )


def test_conclusions_hold_without_portable_arithmetic(built, tmp_path, mirror):
    """`portable: false` lets torch use this CPU's fastest kernels (AVX2/AVX-512) instead of
    the portable baseline ones: float32 log-likelihoods then differ in the last bits.
    Predictions, and so accuracies and the conclusions, must not (docs/reproducibility.md).
    The converted model is the built run's (it is numpy, not torch)."""
    seed_outputs(built, tmp_path, SMOLLM2_MODEL)
    snakemake(
        tmp_path,
        "mc_icl_figure1",
        "--configfile",
        str(TINY),
        "--config",
        "portable=false",
        mirror=mirror,
    )
    ours, other = (pd.read_csv(w / "results/mc_icl/tables/summary.csv") for w in (built, tmp_path))
    pd.testing.assert_frame_equal(conclusions(ours), conclusions(other))
    # Accuracies: a prediction flips only where two options' log-likelihoods are closer than
    # float32 rounding; at most one of the 4 examples per cell, and in few cells.
    a, b = (pd.read_csv(w / "results/mc_icl/tables/accuracy_by_k.csv") for w in (built, tmp_path))
    diff = (a["accuracy"] - b["accuracy"]).abs()
    print(
        f"accuracy cells that differ without portable arithmetic: {(diff > 0).sum()} of {len(diff)}"
    )
    assert diff.max() <= 1 / 4 + 1e-12 and (diff == 0).mean() >= 0.9


def test_maxrandom_round_trip_with_the_tiny_config(built):
    """The mc_icl half of tests/test_maxrandom_roundtrip.py: the summary's max random best-k
    column is read from the maxrandom rule's answer to requests built from the same
    (non-default) config: n = TINY's num_eval (4 validation examples), t = its K + 1 = 4
    points of an accuracy-vs-k curve, two labels (sst2, wnli). Checked against paper 000's
    eq. 9 computed here with scipy."""
    import numpy as np
    import yaml
    from scipy.stats import binom

    from evalsci.settings import preset

    p = preset("mc_icl", yaml.safe_load(TINY.read_text())["mc_icl"]["scale"])  # its values
    n, t = p["num_eval"], p["num_demos"] + 1
    k = np.arange(n + 1)
    cdf = binom.cdf(k, n, 0.5)
    prev = np.concatenate([[0.0], cdf[:-1]])
    eq9 = float((k * (cdf**t - prev**t)).sum() / n)
    s = pd.read_csv(built / "results" / "mc_icl" / "tables" / "summary.csv")
    assert set(s["dataset"]) == {"sst2", "wnli"} and (s["n"] == n).all()
    assert s["max_random_best_k"].to_numpy() == pytest.approx(eq9, rel=1e-12)
    assert s["random"].to_numpy() == pytest.approx(0.5, rel=1e-15)
