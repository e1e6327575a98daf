"""Mechanics of the prefix-cached scorer on tiny random-initialised models (CPU, seconds)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from evalsci.lm.load import tiny_model  # noqa: E402
from evalsci.lm.scoring import Query, Scorer, common_prefix_len  # noqa: E402

pytestmark = pytest.mark.lm

PREFIX = (
    "Q: What is the capital of France?\n  choice: Paris\n  choice: London\nA: Paris\n"
    "Q: Is the following argument valid?\n  choice: valid\n  choice: invalid\nA: invalid\n"
)
QUERIES = [
    Query("Q: Does the story make sense?\n  choice: yes\n  choice: no\nA:", [" yes", " no"]),
    Query("Q: The capital of England is\nA:", [" London", " Paris is nice", " France"]),
    Query(
        "Identify the language. choice: English choice: French\nA:",
        [" English", " French", " German language"],
    ),
    Query("Q: x\nA:", [" True", " False"]),
]


@pytest.fixture(scope="module", params=["llama", "gpt2"])
def tiny(request):
    return tiny_model(request.param, seed=0)


def _uncached_reference(model, tok, prefix, queries, scorer):
    """Independent reference: one full sequence per candidate, no batching, plain logits."""
    out = []
    for q in queries:
        sums = []
        for opt in q.options:
            ids = scorer.encode(prefix + q.context + opt)
            ctx = scorer.encode(prefix + q.context)
            if scorer.option_tokens == "span":
                a = common_prefix_len(ctx, ids)
            else:
                a = len(ids) - scorer.n_choice_tokens(opt)
            with torch.inference_mode():
                lp = torch.log_softmax(model(torch.tensor([ids])).logits[0].float(), -1)
            sums.append(sum(lp[j - 1, ids[j]].item() for j in range(a, len(ids))))
        out.append(np.array(sums))
    return out


@pytest.mark.parametrize("mode", ["span", "authors"])
def test_cached_equals_uncached(tiny, mode):
    model, tok = tiny
    # small budgets force several stage-1 and stage-2 batches
    sc = Scorer(model, tok, option_tokens=mode, token_budget=48, cache_budget=400)
    cached = sc.score(QUERIES, PREFIX)
    assert sc.stats.cached == sum(len(q.options) for q in QUERIES)
    uncached = sc.score_uncached(QUERIES, PREFIX)
    ref = _uncached_reference(model, tok, PREFIX, QUERIES, sc)
    for c, u, r in zip(cached, uncached, ref, strict=True):
        assert c.cached.all() and not u.cached.any()
        np.testing.assert_allclose(c.sums, r, atol=1e-4)
        np.testing.assert_allclose(u.sums, r, atol=1e-4)
        np.testing.assert_array_equal(c.counts, u.counts)
        assert c.prediction() == u.prediction()


def test_authors_window_differs_from_span():
    """The authors' window counts the tokens of the bare choice; when that tokenises into
    fewer tokens than the option in context, the window starts inside the option."""
    model, tok = tiny_model("llama")
    q = [Query("Q: x\nA:", [" Paris is nice", " London"])]
    span = Scorer(model, tok, option_tokens="span").score(q, PREFIX)[0]
    auth = Scorer(model, tok, option_tokens="authors").score(q, PREFIX)[0]
    bare = [len(tok(o.strip()).input_ids) for o in q[0].options]
    np.testing.assert_array_equal(auth.counts, bare)
    assert (span.counts == [len(tok(o).input_ids) for o in q[0].options]).all()


def test_boundary_fallback_counted(tiny):
    """A context ending in a space merges with the option's first token (" yes"): the
    cached split would tokenise differently, so the candidate is scored uncached."""
    model, tok = tiny
    sc = Scorer(model, tok)
    qs = [Query("Q: Does it make sense?\nA: ", ["yes", "no"]), QUERIES[0]]
    split = sc.encode(PREFIX + qs[0].context) + tok("yes", add_special_tokens=False).input_ids
    assert split != sc.encode(PREFIX + qs[0].context + "yes")  # the premise of the test
    res = sc.score(qs, PREFIX)
    assert sc.stats.fallback_boundary >= 1
    assert not res[0].cached.all() and res[1].cached.all()
    ref = sc.score_uncached(qs, PREFIX)
    for a, b in zip(res, ref, strict=True):
        np.testing.assert_allclose(a.sums, b.sums, atol=1e-4)


def test_truncation_matches_truncated_sequence(tiny):
    """max_length: the window sits at the end of the truncated sequence (authors' 512)."""
    model, tok = tiny
    sc = Scorer(model, tok, option_tokens="authors", max_length=40)
    res = sc.score(QUERIES[:1], PREFIX)[0]
    assert sc.stats.fallback_truncated == 2
    ids = sc.encode(PREFIX + QUERIES[0].context + " yes")[:40]
    n = sc.n_choice_tokens(" yes")
    with torch.inference_mode():
        lp = torch.log_softmax(model(torch.tensor([ids])).logits[0].float(), -1)
    want = sum(lp[j - 1, ids[j]].item() for j in range(40 - n, 40))
    assert res.sums[0] == pytest.approx(want, abs=1e-4)
    # both options truncated inside the shared prefix: identical scores (a tie)
    assert res.sums[0] == pytest.approx(res.sums[1], abs=1e-6)


def test_prefix_extend_reuses_cache(tiny):
    model, tok = tiny
    sc = Scorer(model, tok)
    demos = PREFIX.splitlines(keepends=True)
    p = sc.prefix(demos[0])
    for d in demos[1:]:
        before = p.cache.layers[0].keys.clone()
        q = p.extend(d)
        assert torch.equal(p.cache.layers[0].keys, before)  # the original is untouched
        p = q
    full = sc.prefix(PREFIX)
    assert p.ids == full.ids
    np.testing.assert_allclose(p.token_lp[1:], full.token_lp[1:], atol=1e-5)
    a = sc.score(QUERIES, p)
    b = sc.score(QUERIES, full)
    for x, y in zip(a, b, strict=True):
        np.testing.assert_allclose(x.sums, y.sums, atol=1e-4)


def test_extend_across_a_merge_is_exact(tiny):
    """Appending text that merges with the last prefix token re-encodes from the merge."""
    model, tok = tiny
    sc = Scorer(model, tok)
    p = sc.prefix("Q: What is the cap").extend("ital of France?\nA: Paris\n")
    full = sc.prefix("Q: What is the capital of France?\nA: Paris\n")
    assert p.ids == full.ids
    assert sc.stats.prefix_retokenised == 1
    np.testing.assert_allclose(p.token_lp[1:], full.token_lp[1:], atol=1e-5)
    assert torch.allclose(p.last_lp, full.last_lp, atol=1e-5)


def test_empty_prefix_is_scored_uncached(tiny):
    model, tok = tiny
    sc = Scorer(model, tok)
    res = sc.score(QUERIES[:2], "")
    assert sc.stats.uncached == 5 and not any(r.cached.any() for r in res)
    assert all(np.isfinite(r.sums).all() for r in res)
    # packed without a prefix (each context once for its options) == full sequences
    for r, u in zip(res, sc.score_uncached(QUERIES[:2], ""), strict=True):
        np.testing.assert_allclose(r.sums, u.sums, atol=1e-4)


def test_prediction_is_highest_mean():
    from evalsci.lm.scoring import QueryScores

    s = QueryScores(np.array([-3.0, -4.0, -1.0]), np.array([1, 4, 1]), np.ones(3, bool))
    assert s.prediction() == 1  # mean -1.0 beats -3.0 and ... -1.0 first on ties
    np.testing.assert_allclose(s.losses, [3.0, 1.0, 1.0])


def test_special_tokens_follow_the_tokenizer_or_are_left_out(tiny):
    """add_special_tokens=True encodes as tokenizer(text) without its trailing specials
    (a BERT tokenizer: [CLS] text [SEP] -> [CLS] text); False as tokenizer(text,
    add_special_tokens=False), the lm-evaluation-harness 0.4.x convention."""
    from transformers import AutoTokenizer

    from evalsci.studies.tapt.training.models import minilm_dir

    model, _ = tiny
    tok = AutoTokenizer.from_pretrained(minilm_dir())
    text = "Q: The capital of England is\nA: London"
    plain = tok(text).input_ids
    assert plain[0] == tok.cls_token_id and plain[-1] == tok.sep_token_id
    assert Scorer(model, tok).encode(text) == plain[:-1]
    without = Scorer(model, tok, add_special_tokens=False).encode(text)
    assert without == tok(text, add_special_tokens=False).input_ids == plain[1:-1]


@pytest.mark.parametrize("arch", ["llama", "gpt2"])
def test_bf16_scores_use_a_float32_head(arch):
    """bf16 models: the output head runs in float32, so bf16 logit rounding (1/4 at
    magnitude 32-64) does not enter the scores. The head is sharpened (x40) so the logits are
    as large as a trained model's; cached and fresh scores then agree to a few hundredths of
    a nat and stay within 0.1 of the float32 model's (bf16 logits: up to 0.24 here)."""
    import copy

    model, tok = tiny_model(arch, seed=0)
    with torch.no_grad():
        model.get_output_embeddings().weight.mul_(40)
    ref = Scorer(model, tok).score_uncached(QUERIES, PREFIX)
    bf16 = copy.deepcopy(model).to(torch.bfloat16)
    sc = Scorer(bf16, tok, token_budget=48, cache_budget=400)
    assert sc.head.split and sc.head.weight.dtype == torch.float32
    cached = sc.score(QUERIES, PREFIX)
    fresh = sc.score_uncached(QUERIES, PREFIX)
    for c, f, r in zip(cached, fresh, ref, strict=True):
        assert np.abs(r.sums).max() > 20  # large log-likelihoods, as in real prompts
        np.testing.assert_allclose(c.sums, f.sums, atol=0.05)
        np.testing.assert_allclose(c.sums, r.sums, atol=0.1)
        assert c.prediction() == f.prediction() == r.prediction()


@pytest.mark.parametrize("max_length", [None, 40])
def test_planner_counts_exactly_what_the_engine_forwards(tiny, max_length):
    """`Planner.plan_tokens` (no model: benchmarks/paper_scale.py) predicts the scorer's
    own count of forwarded tokens, fallbacks (boundary merge, truncation) included; naive
    is the sum of the (truncated) full candidates, what the uncached path forwards."""
    from evalsci.lm.scoring import Planner

    model, tok = tiny
    qs = [*QUERIES, Query("Q: Does it make sense?\nA: ", ["yes", "no"])]  # a boundary merge
    for mode in ("span", "authors"):
        sc = Scorer(model, tok, option_tokens=mode, max_length=max_length, token_budget=64)
        sc.score(qs, PREFIX)
        plan = Planner(tok, option_tokens=mode, max_length=max_length).plan_tokens(qs, PREFIX)
        assert plan.engine == sc.stats.forward_tokens
        assert plan.fallbacks == sc.stats.fallbacks
        assert plan.candidates == sum(len(q.options) for q in qs)
        sc.stats = type(sc.stats)()
        sc.score_uncached(qs, PREFIX)
        assert plan.naive == sc.stats.forward_tokens
        if max_length is None:  # all cached: the prefix and contexts run once
            assert plan.engine < plan.naive and plan.fallbacks == 2
