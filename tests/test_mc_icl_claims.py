"""mc_icl's claims ledger (evalsci.studies.mc_icl.claims): every claim of paper 004 in
reference.yaml gets one row, each verdict from evalsci.stats.agreement's rule on the findings'
tests (a supported finding on sampled data reads within_noise, an untestable one carries its
measured reason and what would test it), and the setup claims are exact against the paper
preset."""

from __future__ import annotations

import numpy as np
import pytest
from test_mc_icl_findings import bernoulli, scores_from

from evalsci import reference
from evalsci.settings import preset
from evalsci.studies.mc_icl.claims import build, selection_nodes, verdict_of
from evalsci.studies.mc_icl.findings import findings
from evalsci.studies.mc_icl.sampler import plan_fixed, plan_trial, prefix_tree

RECORD = {
    "commit": "0" * 40,
    "start": "2026-11-29T06:13:25Z",
    "benchmarked_jobs": {
        "mc_icl/shard/smollm2/sst2": {"jobs": 2, "cpu_s": 1680.0},
        "mc_icl/accuracy": {"jobs": 1, "cpu_s": 5.0},
    },
}


@pytest.fixture(scope="module")
def run_findings():
    rng = np.random.default_rng(7)
    a0 = [0.75, 0.5] + [0.7] * 7 + [0.6, 0.9] * 6
    a1 = [0.75, 0.95] + [0.8] * 19
    mat = np.concatenate([bernoulli(rng, a0, 1, 256), bernoulli(rng, a1, 1, 256)])
    mat[1, 0] = mat[0, 0]
    return findings(scores_from(mat, firsts=[11, 22]), {"sst2": 2})


def test_every_claim_has_one_row(run_findings):
    rows = build(run_findings, RECORD, preset("mc_icl", "paper"))
    assert [r.id for r in rows] == list(reference.load("mc_icl")["claims"])
    assert len(rows) >= 10
    by = {r.id: r for r in rows}
    assert by["s4_100_permutations"].verdict == "matches"
    assert by["appB_256_instances"].verdict == "matches"
    # the synthetic run shows one-shot prompts both below and above zero-shot
    assert by["s51_one_shot_both_ways"].verdict == "within_noise"
    assert "Holm over the run's 2 one-shot prompts" in by["s51_one_shot_both_ways"].test
    for id in ("s52_robust_sets", "s52_random_best", "s7_consistent_sizes"):
        assert by[id].verdict == "untestable_here" and "A100-hours" in by[id].cause
    # the selection's cost is the measured CPU-s per prompt times its prompts
    per_node = 1680.0 / (2 + 2 * 20)
    hours = selection_nodes(preset("mc_icl", "paper")) * per_node / 3600
    assert f"about {hours:.0f} CPU-hours" in by["s52_robust_sets"].cause


def test_verdicts_follow_the_findings_outcomes():
    row = {"outcome": "supports", "test": "a test at alpha 0.05", "reason": ""}
    assert verdict_of([row]).verdict == "within_noise"
    assert verdict_of([row | {"outcome": "inconclusive"}]).verdict == "within_noise"
    assert verdict_of([row | {"outcome": "contradicts"}]).verdict == "differs_unexplained"
    both = verdict_of([row, row | {"outcome": "inconclusive"}])
    assert both.verdict == "within_noise" and both.test == "a test at alpha 0.05"
    gone = verdict_of([row, row | {"outcome": "untestable", "reason": "n = 4: too few"}])
    assert gone.verdict == "untestable_here" and gone.cause.startswith("n = 4: too few")


def test_the_default_run_leaves_every_finding_untestable():
    """The default preset (K = 3, n = 4) as the ledger would see it: each finding untestable
    with its measured reason."""
    mat = np.array([[[1, 1, 0, 1], [1, 0, 0, 1], [1, 1, 1, 1], [0, 1, 1, 1]]] * 2)
    rows = build(
        findings(scores_from(mat, firsts=[1, 2]), {"sst2": 2}), RECORD, preset("mc_icl", "paper")
    )
    judged = [r for r in rows if r.artefact.startswith("mc_icl.findings")]
    assert judged and all(r.verdict == "untestable_here" for r in judged)


def test_selection_nodes_count_the_prefix_trees():
    paper = preset("mc_icl", "paper")
    want = sum(len(prefix_tree(plan_trial(10_000, 20, 20, 0, "sst2", t))) for t in range(5))
    want += sum(
        len(prefix_tree(plan_fixed(list(range(6)), 20, 0, "sst2", s)))
        for s in ("high", "low", "random")
    )
    assert selection_nodes(paper) == want
    assert 3 * (1 + 6) < want - 5 * (1 + 20) and want <= 5 * 401 + 3 * (1 + 20 * 6)
