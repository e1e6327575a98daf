"""The two halves of every study's round trip through the `maxrandom` rule see the same
config: the rule that writes a study's requests and the rule that reads their answers are
run by Snakemake with NON-default config values (t, cells, shots, sizes), and what the
reader reports is checked against the paper's formula computed here with scipy.

A config key that reaches only one half (as `baselines.section53.t` once did: the requests
fell back to the paper's t = 10) fails here: the reader asks for a key that was never
requested, or reports a baseline of another t.

Where each study's round trip is tested:
- baselines: here (Table 1 on a narrowed grid of cells, Section 5.3 with t = 20);
- assessors: tests/test_assessors_workflow.py::test_maxrandom_round_trip_with_the_tiny_config
  (t = the tiny config's combination counts; n_pos/n_neg from its sizes);
- mc_icl: tests/test_mc_icl_workflow.py::test_maxrandom_round_trip_with_the_tiny_config
  (t = K + 1 with the tiny config's K, n = its num_eval);
- audit: here (the leaderboard sweep with another t_max and number of points);
- tapt: none; it compares against no random baseline (no requests file).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import yaml
from scipy.stats import binom

from conftest import snakemake

pytestmark = [pytest.mark.workflow, pytest.mark.slow]

# Not the defaults: the config has 6 models x 16 tasks x shots 1, 2, 4 and section53.t 10.
BASELINES = {
    "baselines": {
        "cells": {
            "models": ["OLMo-7B", "falcon-7b-instruct"],
            "tasks": ["emoji_movie", "known_unknowns", "winowhy"],
            "shots": [1, 4],
        },
        "section53": {"t": 20},
    }
}


def eq9(n: int, p: float, t: int) -> float:
    """Paper 000 eq. 9 with scipy's binomial (independent of evalsci.maxrandom)."""
    k = np.arange(n + 1)
    F = binom.cdf(k, n, p)  # noqa: N806
    F_prev = np.concatenate([[0.0], F[:-1]])  # noqa: N806
    return float((k * (F**t - F_prev**t)).sum() / n)


@pytest.fixture(scope="module")
def baselines_run(tmp_path_factory, mirror):
    wd = tmp_path_factory.mktemp("roundtrip_baselines")
    cfg = wd / "config.yaml"
    cfg.write_text(yaml.safe_dump(BASELINES))
    snakemake(
        wd, "baselines_table1", "baselines_section53", "--configfile", str(cfg), mirror=mirror
    )
    return wd / "results" / "baselines"


def test_baselines_section53_reads_the_configured_t(baselines_run):
    exps = pd.read_csv(baselines_run / "data" / "section53_experiments.csv")
    assert len(exps) > 200 and (exps.t_paper == 20).all()
    for r in exps.drop_duplicates(["n", "k"]).itertuples():
        assert r.max_baseline_paper == pytest.approx(eq9(r.n, 1 / r.k, 20), rel=1e-9)
        assert r.standard == pytest.approx(1 / r.k, rel=1e-12)


def test_baselines_table1_reads_the_configured_cells(baselines_run):
    df = pd.read_csv(baselines_run / "tables" / "table1.csv")
    cells = BASELINES["baselines"]["cells"]
    assert set(zip(df.dataset, df.model, df.shots, strict=True)) == {
        (t, m, k) for m in cells["models"] for t in cells["tasks"] for k in cells["shots"]
    }
    for r in df.itertuples():
        assert r.max_baseline == pytest.approx(eq9(r.n, r.standard_baseline, r.t), rel=1e-9)


# Not the defaults: the config sweeps 41 log-spaced t from 1 to 10000.
AUDIT = {"audit": {"sweep": {"t_max": 300, "points": 5}}}


def test_audit_sweep_reads_the_configured_ts(tmp_path, mirror):
    cfg = tmp_path / "config.yaml"
    cfg.write_text(yaml.safe_dump(AUDIT))
    snakemake(tmp_path, "audit_open_llm_leaderboard", "--configfile", str(cfg), mirror=mirror)
    tables = tmp_path / "results" / "audit" / "tables"
    detail = pd.read_csv(tables / "open_llm_leaderboard_v2_runs.csv")
    sweep = pd.read_csv(tables / "open_llm_leaderboard_v2_sweep.csv")
    # log-spaced from 1 to t_max in `points` steps, plus the t's the leaderboard's runs have
    grid = {1, 4, 17, 72, 300} | set(detail.t.astype(int))
    assert set(sweep.t) == grid
    every = sweep[sweep.group == "all"].sort_values("t")
    assert every.flipped.iloc[0] == 0  # one guesser: the max baseline is the standard one
    assert every.flipped.is_monotonic_increasing  # more guessers, a higher bar
