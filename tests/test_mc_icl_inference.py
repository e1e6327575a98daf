"""Incremental-prefix scoring along a permutation equals scoring every prompt afresh.

A tiny random-initialised Llama (evalsci.lm.load.tiny_model, no download) scores one trial
of Algorithm 1 through the KV-cache walk of `score_plan`; each (permutation, k) prompt is then
scored as one full, uncached sequence of the harness string (demonstrations + query +
" " + choice). The two must agree to float precision, and the cache must actually be used.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")
pytestmark = pytest.mark.lm


@pytest.fixture(scope="module")
def tiny():
    import torch

    from evalsci.lm.load import tiny_model

    torch.set_num_threads(2)
    return tiny_model("llama", seed=0)


@pytest.mark.parametrize("add_bos", [False, True])
def test_incremental_prefix_equals_fresh_scoring(mirror, tiny, add_bos):
    from evalsci.data.glue import load_glue
    from evalsci.lm.scoring import Query
    from evalsci.studies.mc_icl.inference import score_plan
    from evalsci.studies.mc_icl.sampler import plan_trial, prefix_tree
    from evalsci.studies.mc_icl.shards import make_scorer
    from evalsci.studies.mc_icl.templates import template

    model, tok = tiny
    train = load_glue("sst2", "train", root=mirror / "glue")[:40]
    queries = load_glue("sst2", "validation", root=mirror / "glue")[:2]
    # short demonstrations keep the tiny model's byte-level prompts small
    train = [d for d in train if len(d["sentence"]) < 40]
    plan = plan_trial(len(train), K=3, P=2, seed=5, dataset="sst2", trial=0)
    tmpl = template("sst2")

    scorer = make_scorer(model, tok, add_bos=add_bos)
    node_scores, _ = score_plan(scorer, tmpl, train, queries, plan, progress=False)
    assert set(node_scores) == set(prefix_tree(plan))
    assert scorer.stats.cached > 0 and scorer.stats.fallback_boundary == 0

    fresh = make_scorer(model, tok, add_bos=add_bos)
    for _p, _k, demos in plan.steps():
        items = []
        for q in queries:
            # the harness prompt, built independently of score_plan's prefix/context split
            full = tmpl.context([train[i] for i in demos], q)
            items.append(Query(full, tmpl.continuations(q)))
        ref = np.array([s.sums for s in fresh.score_uncached(items, "")])
        np.testing.assert_allclose(node_scores[demos], ref, rtol=1e-4, atol=1e-4)
