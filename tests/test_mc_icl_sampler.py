"""Algorithm 1 bookkeeping: every k for every permutation, k = 0 once per trial, and the
shared-prefix walk scores each distinct prompt exactly once."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalsci.studies.mc_icl.inference import plan_rows, score_plan
from evalsci.studies.mc_icl.sampler import (
    eval_subsample,
    plan_fixed,
    plan_trial,
    prefix_tree,
)
from evalsci.studies.mc_icl.scores import accuracy_by_k
from evalsci.studies.mc_icl.templates import template


def test_plan_samples_K_and_permutes_them():
    plan = plan_trial(1000, K=20, P=20, seed=7, dataset="sst2", trial=3)
    assert plan.K == 20 and plan.P == 20
    assert len(set(plan.demos)) == 20 and all(0 <= d < 1000 for d in plan.demos)
    for perm in plan.permutations:
        assert sorted(perm) == sorted(plan.demos)  # a permutation of S^K
    assert len({tuple(p) for p in plan.permutations}) == 20  # random, distinct orders
    # deterministic in (seed, dataset, trial); trials differ
    again = plan_trial(1000, 20, 20, 7, "sst2", 3)
    assert again.demos == plan.demos and np.array_equal(again.permutations, plan.permutations)
    assert plan_trial(1000, 20, 20, 7, "sst2", 4).demos != plan.demos


def test_steps_cover_every_k_of_every_permutation_with_k0_once():
    plan = plan_trial(50, K=5, P=4, seed=1, dataset="rte", trial=0)
    steps = list(plan.steps())
    assert steps[0] == (-1, 0, ())
    assert sum(1 for p, k, _ in steps if k == 0) == 1
    assert {(p, k) for p, k, _ in steps if k > 0} == {(p, k) for p in range(4) for k in range(1, 6)}
    for p, k, demos in steps[1:]:
        assert demos == tuple(plan.permutations[p, :k])  # the first k of permutation p


def test_prefix_tree_lists_each_distinct_prompt_once_parent_first():
    plan = plan_trial(6, K=3, P=12, seed=0, dataset="wnli", trial=0)
    nodes = prefix_tree(plan)
    wanted = {tuple(perm[:k]) for perm in plan.permutations for k in range(plan.K + 1)}
    assert set(nodes) == wanted and len(nodes) == len(wanted)
    assert nodes[0] == ()
    seen = set()
    for n in nodes:  # depth first: a node's parent was visited before it
        assert n[:-1] in seen or n == ()
        seen.add(n)
    assert len(nodes) < 1 + plan.P * plan.K  # shared prefixes are not repeated


def test_eval_subsample():
    assert list(eval_subsample(71, 256, 0, "wnli")) == list(range(71))  # smaller split: all
    sub = eval_subsample(872, 256, 0, "sst2")
    assert len(sub) == len(set(sub)) == 256 and list(sub) == sorted(sub)
    assert list(sub) == list(eval_subsample(872, 256, 0, "sst2"))


def test_plan_fixed_pattern_depends_on_size_only():
    a = plan_fixed([5, 9, 2], P=4, seed=0, dataset="sst2", name="high")
    b = plan_fixed([1, 3, 7], P=4, seed=0, dataset="sst2", name="high")
    pos_a = np.vectorize({5: 0, 9: 1, 2: 2}.get)(a.permutations)
    pos_b = np.vectorize({1: 0, 3: 1, 7: 2}.get)(b.permutations)
    assert np.array_equal(pos_a, pos_b)


class CountingScorer:
    """A fake scorer that records each prompt it scores; the score encodes the prompt."""

    def __init__(self):
        self.scored: list[str] = []

    def prefix(self, text):
        return FakePrefix(self, text)

    def score(self, queries, prefix):
        self.scored.append(prefix.text)

        class S:  # noqa: B903 - a minimal QueryScores
            def __init__(self, sums):
                self.sums = sums

        # choice 1 wins when the prefix holds an even number of demonstrations
        n = prefix.text.count("Answer:")
        return [S(np.array([0.0, 1.0]) if n % 2 == 0 else np.array([1.0, 0.0])) for _ in queries]


class FakePrefix:
    def __init__(self, scorer, text):
        self.scorer, self.text, self.ids = scorer, text, list(range(len(text)))

    def extend(self, text):
        return FakePrefix(self.scorer, self.text + text)


@pytest.fixture
def toy():
    train = [{"sentence": f"train {i} ", "label": i % 2, "idx": 100 + i} for i in range(10)]
    queries = [{"sentence": f"val {i} ", "label": 1, "idx": i} for i in range(3)]
    return train, queries


def test_score_plan_scores_each_prompt_once_and_reproduces_harness_strings(toy):
    train, queries = toy
    plan = plan_trial(len(train), K=4, P=6, seed=2, dataset="sst2", trial=0)
    scorer = CountingScorer()
    node_scores, lengths = score_plan(
        scorer, template("sst2"), train, queries, plan, progress=False
    )
    assert len(scorer.scored) == len(prefix_tree(plan)) == len(set(scorer.scored))
    assert scorer.scored[0] == ""  # zero-shot: empty prefix, once
    tmpl = template("sst2")
    for node in node_scores:
        demos = [train[i] for i in node]
        # the cached prefix + what follows it is exactly the harness prompt
        prefix = "".join(tmpl.demo(d) for d in demos)
        assert prefix.rstrip("\n") in scorer.scored
    rows = plan_rows(plan, node_scores, lengths, train, queries, tmpl, "fake")
    assert len(rows) == len(queries) * (1 + plan.P * plan.K)
    assert (rows.loc[rows["k"] == 0, "permutation"] == -1).all()
    acc = accuracy_by_k(rows)
    assert len(acc) == plan.P * (plan.K + 1)  # every (permutation, k), k = 0 repeated
    assert set(acc["k"]) == set(range(plan.K + 1))
    # the fake scorer predicts label 1 (correct) exactly when k is even
    assert (acc["accuracy"] == (acc["k"] % 2 == 0)).all()
    # demo column = HF idx of the k-th demonstration of each permutation
    for p, perm in enumerate(plan.permutations):
        got = rows[(rows["permutation"] == p)].drop_duplicates("k").sort_values("k")["demo"]
        assert list(got) == [train[i]["idx"] for i in perm]


def test_accuracy_by_k_columns(toy):
    train, queries = toy
    plan = plan_trial(len(train), K=2, P=2, seed=2, dataset="sst2", trial=1)
    node_scores, lengths = score_plan(
        CountingScorer(), template("sst2"), train, queries, plan, progress=False
    )
    rows = plan_rows(plan, node_scores, lengths, train, queries, template("sst2"), "m")
    acc = accuracy_by_k(rows)
    assert list(acc.columns) == ["model", "dataset", "trial", "permutation", "k", "accuracy"]
    assert isinstance(acc, pd.DataFrame) and (acc["trial"] == 1).all()
