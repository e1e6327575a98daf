"""Multiple-choice scoring by per-token log-likelihood, with a shared-prefix KV cache.

A *candidate* is the string `prefix + context + option`. Its score is the sum and the count
of the log-probabilities of the tokens in its *scored window*; the answer to a query is the
option with the highest mean (Holtzman et al. 2021, as the `baselines` authors did). The
window is, per `option_tokens`:

- `"span"`: the option's own tokens: the tokens of the full string after the longest
  common token prefix with `prefix + context`;
- `"authors"`: the last `len(tokenizer(choice).input_ids)` tokens of the full string, where
  `choice` is the option without its one leading space. This is what the `baselines`
  authors' code did; it includes the BOS token in the count for tokenizers that add one
  (Llama), so the window then reaches one token into the context.

`max_length` reproduces the authors' right-truncation at 512 tokens (the window is then
taken at the end of the truncated sequence; such candidates are scored without the cache).

How the cache is used (`Scorer.score`). The prefix (instruction + demonstrations) is run
once (`Scorer.prefix`, extendable with `Prefix.extend`). Then queries are *packed*: one row
holds, for several queries, each query's context followed by each of its options minus the
last token (whose output is never needed), run in one forward pass after the prefix cache
of batch size 1. A 4D attention mask lets each token see the prefix, its query's context
and its own option causally; position ids are those of the unsplit string. So every token
sees exactly the keys and positions it has in `prefix + context + option`, the prefix cache
is never expanded or copied per query, and no pass carries padding.

The output head runs only at the positions whose next-token log-probability is scored, in
float32 whatever the model's dtype (`Head`): in bf16 the logits' own rounding (1/8 at
magnitude 16-32) was the largest source of disagreement between cached and fresh scores.

Tokenisation at the boundaries is checked: the tokens of `prefix + context` must start
with the prefix's tokens, and those of the full candidate with the tokens of
`prefix + context`. A candidate that fails (a BPE merge across the boundary), that would be
truncated, or that has no prefix token to attend to, is scored without the cache (full
sequence, batched); `ScoringStats` counts each case.

Layout: `queries` (Query, QueryScores, ScoringStats), `planner` (tokenisation, scored
windows, `Planner.plan_tokens`), `head` (float32 output head, KV-cache helpers), `packing`
(one packed pass's layout and reads); this module holds `Prefix` and `Scorer` and re-exports
the public names above, so `from evalsci.lm.scoring import Query, Scorer, ...` keeps working.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from evalsci.lm.head import Head, kv_layers, new_cache
from evalsci.lm.packing import PackLayout, Reads
from evalsci.lm.planner import OPTION_TOKENS, Planner, TokenPlan, query_tokens
from evalsci.lm.queries import Candidate, Query, QueryScores, ScoringStats, common_prefix_len

__all__ = [
    "OPTION_TOKENS",
    "Planner",
    "Prefix",
    "Query",
    "QueryScores",
    "Scorer",
    "ScoringStats",
    "TokenPlan",
    "common_prefix_len",
]


@dataclass
class Prefix:
    """The instruction + demonstrations part of a prompt, run once through the model.

    `ids`: its tokens; `token_lp[j]`: log p(ids[j] | ids[:j]) (nan for j = 0; computed on
    first use from the kept final hidden states when the model's head is split off);
    `last_lp`: the float32 log-distribution of the next token (None for an empty prefix);
    `cache`: the DynamicCache of batch size 1 (None for an empty prefix).
    Immutable in use: `extend` returns a new Prefix and never modifies this one's cache.
    """

    scorer: Scorer
    text: str
    ids: list[int]
    cache: object | None
    last_lp: object | None
    hidden: object | None = None  # [len(ids), hidden] final states (split head only)
    _token_lp: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def token_lp(self) -> np.ndarray:
        if self._token_lp is None:
            lp = self.scorer.head.target_lp(self.hidden, range(len(self.ids) - 1), self.ids[1:])
            self._token_lp = np.concatenate([[np.nan], lp])
        return self._token_lp

    def extend(self, text: str) -> Prefix:
        """This prefix followed by `text` (e.g. one more demonstration), reusing the cache
        for every token whose tokenisation is unchanged."""
        return self.scorer._extend(self, text)


class Scorer(Planner):
    """Scores multiple-choice queries with a causal LM (see module docstring).

    token_budget: max new (non-pad) + pad tokens per forward pass (a single query longer
    than that still gets one packed pass of its own);
    cache_budget: bounds attention memory: a packed pass of n tokens after a prefix of p
    keeps n x (p + n) <= 4 x cache_budget (halving n down to 64);
    max_rows: max rows per pass of the uncached path;
    add_special_tokens: put the tokenizer's leading special tokens (e.g. Llama's BOS) in
    front of every sequence, as `tokenizer(text)` does; False encodes the text alone, as
    `tokenizer(text, add_special_tokens=False)` (lm-evaluation-harness 0.4.x).
    """

    def __init__(
        self,
        model,
        tokenizer,
        *,
        option_tokens: str = "span",
        max_length: int | None = None,
        token_budget: int = 2048,
        cache_budget: int = 262144,
        max_rows: int = 256,
        progress: bool = False,
        add_special_tokens: bool = True,
    ):
        super().__init__(
            tokenizer,
            option_tokens=option_tokens,
            max_length=max_length,
            add_special_tokens=add_special_tokens,
        )
        self.model = model
        self.token_budget = int(token_budget)
        self.cache_budget = int(cache_budget)
        self.max_rows = int(max_rows)
        self.progress = progress
        self.stats = ScoringStats()
        self.device = next(model.parameters()).device
        self.pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
        self.head = Head(model)
        dtype = getattr(model, "dtype", None)
        self.head_dtype = (
            dtype
            if dtype is not None and dtype.is_floating_point
            else next(p.dtype for p in model.parameters() if p.is_floating_point())
        )

    # --- model calls ----------------------------------------------------------------------
    def _run_prefix(self, ids: list[int], start: int, cache):
        """Run ids[start:] after `cache` (holding ids[:start]) in chunks of `token_budget`;
        returns (cache, states of every run position)."""
        import torch

        states = []
        pos = start
        while pos < len(ids):
            chunk = ids[pos : pos + self.token_budget]
            n = len(chunk)
            inp = torch.tensor([chunk], device=self.device)
            mask = torch.ones(1, pos + n, dtype=torch.long, device=self.device)
            posid = torch.arange(pos, pos + n, device=self.device)[None]
            st, cache = self.head.run(
                inp, mask, posid, cache, torch.ones(1, n, dtype=torch.bool, device=self.device)
            )
            states.append(st)
            self.stats.forward_tokens += n
            pos += n
        return cache, torch.cat(states)

    def _make_prefix(
        self, text: str, ids: list[int], cache, states, parent: Prefix | None, c: int
    ) -> Prefix:
        """The Prefix of `ids` whose first `c` tokens are `parent`'s and whose positions
        c.. produced `states` (hidden states, or logits when the head is not split)."""
        import torch

        last_lp = self.head.log_softmax(states[-1:])[0]
        if self.head.split:
            hidden = states if parent is None else torch.cat([parent.hidden[:c], states])
            return Prefix(self, text, ids, cache, last_lp, hidden)
        # logits at hand: keep the per-token log-probabilities, not the [n, vocab] logits
        lps = self.head.target_lp(states, range(len(ids) - c - 1), ids[c + 1 :])
        if parent is None:
            first = [np.nan]
        elif c == len(parent.ids):
            first = [parent.last_lp[ids[c]].item()]
        else:
            first = [self._recompute_lp(parent, c, ids[c])]
        head_lp = parent.token_lp[:c] if parent is not None else []
        return Prefix(
            self, text, ids, cache, last_lp, _token_lp=np.concatenate([head_lp, first, lps])
        )

    def prefix(self, text: str = "") -> Prefix:
        """Run the shared prefix once."""
        import torch

        t0 = time.perf_counter()
        ids = self.encode(text)
        if not ids:
            return Prefix(self, text, [], None, None, _token_lp=np.zeros(0))
        with torch.inference_mode():
            cache, states = self._run_prefix(ids, 0, new_cache(self.model, []))
            pre = self._make_prefix(text, ids, cache, states, None, 0)
        self.stats.seconds += time.perf_counter() - t0
        return pre

    def _extend(self, pre: Prefix, text: str) -> Prefix:
        import torch

        if not text:
            return pre
        t0 = time.perf_counter()
        new_text = pre.text + text
        ids = self.encode(new_text)
        c = common_prefix_len(pre.ids, ids)
        if c < len(pre.ids):
            self.stats.prefix_retokenised += 1
        if c == 0 or pre.cache is None or c == len(ids):
            # nothing to reuse, or no new token survived (tokenisation shrank): start afresh
            return self.prefix(new_text)
        with torch.inference_mode():
            cache = new_cache(
                self.model, [(k[..., :c, :], v[..., :c, :]) for k, v in kv_layers(pre.cache)]
            )
            cache, states = self._run_prefix(ids, c, cache)
            out = self._make_prefix(new_text, ids, cache, states, pre, c)
        self.stats.seconds += time.perf_counter() - t0
        return out

    def _recompute_lp(self, pre: Prefix, c: int, token: int) -> float:
        """log p(token | pre.ids[:c]) for c < len(pre.ids), c >= 1 (one-token forward; only
        needed when the head is not split, else the kept hidden state gives it)."""
        import torch

        cache = new_cache(
            self.model, [(k[..., : c - 1, :], v[..., : c - 1, :]) for k, v in kv_layers(pre.cache)]
        )
        st, _ = self.head.run(
            torch.tensor([[pre.ids[c - 1]]], device=self.device),
            torch.ones(1, c, dtype=torch.long, device=self.device),
            torch.tensor([[c - 1]], device=self.device),
            cache,
            torch.ones(1, 1, dtype=torch.bool, device=self.device),
        )
        return float(self.head.target_lp(st, [0], [token])[0])

    # --- public scoring -------------------------------------------------------------------
    def score(
        self,
        queries: Sequence[Query],
        prefix: Prefix | str = "",
        *,
        use_cache: bool = True,
        desc: str | None = None,
    ) -> list[QueryScores]:
        """Score every option of every query after `prefix` (a Prefix, or its text)."""
        t0 = time.perf_counter()
        if isinstance(prefix, str):
            prefix = (
                self.prefix(prefix)
                if use_cache
                else Prefix(self, prefix, self.encode(prefix), None, None)
            )
        plans = self._plan(queries, prefix.text, prefix.ids)
        out = [
            QueryScores(
                np.zeros(len(q.options)),
                np.zeros(len(q.options), dtype=np.int64),
                np.zeros(len(q.options), dtype=bool),
            )
            for q in queries
        ]
        cached, packed, rest = [], [], []
        for c in plans:
            if use_cache and c.mode == "cached":
                cached.append(c)
            elif use_cache and c.mode == "uncached":
                # no prefix: nothing cached, but packing still runs each query's context once
                # for all its options (the empty prefix's pass is the packed row alone)
                packed.append(c)
                self.stats.uncached += 1
            else:
                rest.append(c)
                if not use_cache:
                    self.stats.uncached += 1
                elif c.mode == "truncated":
                    self.stats.fallback_truncated += 1
                else:
                    self.stats.fallback_boundary += 1
        self.stats.candidates += len(plans)
        self.stats.cached += len(cached)
        if cached or packed:
            self._score_cached(prefix, cached + packed, desc)
        if rest:
            self._score_full(rest, desc)
        for c in plans:
            out[c.i].sums[c.o] = c.sum
            out[c.i].counts[c.o] = c.end - c.start
            out[c.i].cached[c.o] = use_cache and c.mode == "cached"
        self.stats.seconds += time.perf_counter() - t0
        return out

    def score_uncached(
        self, queries: Sequence[Query], prefix: str = "", desc: str | None = None
    ) -> list[QueryScores]:
        """Reference path: every candidate as one full sequence (batched, right-padded)."""
        return self.score(queries, prefix, use_cache=False, desc=desc)

    # --- uncached path --------------------------------------------------------------------
    def _score_full(self, cands: list[Candidate], desc: str | None) -> None:
        from evalsci.pipeline.progress import progress_bar

        order = sorted(range(len(cands)), key=lambda k: -cands[k].end)
        batches, cur, width = [], [], 0
        for k in order:
            n = cands[k].end
            w = max(width, n)
            if cur and (w * (len(cur) + 1) > self.token_budget or len(cur) >= self.max_rows):
                batches.append(cur)
                cur, w = [], n
            cur.append(k)
            width = w
        if cur:
            batches.append(cur)
        bar = progress_bar(
            total=len(cands),
            desc=desc or "score (uncached)",
            disable=not self.progress,
            leave=False,
        )
        for batch in batches:
            self._full_batch([cands[k] for k in batch])
            bar.update(len(batch))
        bar.close()

    def _full_batch(self, rows: list[Candidate]) -> None:
        """One right-padded batch of full sequences; the head runs at the window positions."""
        import torch

        width = max(c.end for c in rows)
        ids = torch.full((len(rows), width), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        select = torch.zeros((len(rows), width), dtype=torch.bool)
        reads = Reads()
        for r, c in enumerate(rows):
            ids[r, : c.end] = torch.tensor(c.tokens[: c.end])
            mask[r, : c.end] = 1
            select[r, c.start - 1 : c.end - 1] = True  # the output at j - 1 predicts token j
            c.sum = 0.0
            for j in range(c.start, c.end):
                reads.add(r * width + j - 1, c.tokens[j], c)
            self.stats.forward_tokens += c.end
        pos = (mask.cumsum(1) - 1).clamp(min=0)
        with torch.inference_mode():
            states, _ = self.head.run(
                ids.to(self.device),
                mask.to(self.device),
                pos.to(self.device),
                None,
                select.to(self.device),
            )
            reads.apply(self.head, states, select.flatten())

    # --- cached path ----------------------------------------------------------------------
    def _score_cached(self, prefix: Prefix, cands: list[Candidate], desc: str | None) -> None:
        from evalsci.pipeline.progress import progress_bar

        by_query: dict[int, list[Candidate]] = {}
        for c in cands:
            by_query.setdefault(c.i, []).append(c)
        packs = self._packs(list(by_query.values()), len(prefix))
        kv_prefix = kv_layers(prefix.cache) if prefix.cache is not None else []
        bar = progress_bar(
            total=len(by_query), desc=desc or "score", disable=not self.progress, leave=False
        )
        for pack in packs:
            self._run_pack(prefix, kv_prefix, pack)
            bar.update(len(pack))
        bar.close()

    def _pack_limit(self, n_prefix: int) -> int:
        """Most tokens in one packed pass: `token_budget`, and few enough that the attention
        scores (tokens x (prefix + tokens) per head) stay within `cache_budget` x 4."""
        n = self.token_budget
        while n > 64 and n * (n_prefix + n) > 4 * self.cache_budget:
            n //= 2
        return n

    def _packs(self, groups: list[list[Candidate]], n_prefix: int) -> list[list[list[Candidate]]]:
        """Consecutive queries packed up to `_pack_limit` tokens (a query is never split: its
        options attend to its context in the same pass)."""
        limit = self._pack_limit(n_prefix)
        packs, cur, size = [], [], 0
        for g in groups:
            n = query_tokens(g, n_prefix)
            if cur and size + n > limit:
                packs.append(cur)
                cur, size = [], 0
            cur.append(g)
            size += n
        if cur:
            packs.append(cur)
        return packs

    def _run_pack(self, prefix: Prefix, kv_prefix, groups: list[list[Candidate]]) -> None:
        """One forward pass of several queries packed into one row after the prefix cache.

        The row holds each query's context, then each of its options but the last token.
        The attention mask (`PackLayout.mask`) lets every token see the whole prefix, its
        own segment up to itself, and (option tokens) its query's context: exactly the keys
        it has in its unsplit candidate string, at the same position ids. One row means the
        prefix cache is used as is (never expanded or copied per query).
        """
        import torch

        lay = PackLayout.build(prefix, groups)
        dev = self.device
        select = torch.zeros((1, len(lay.ids)), dtype=torch.bool)
        select[0, sorted(set(lay.reads.index))] = True
        with torch.inference_mode():
            cache = new_cache(self.model, kv_prefix)
            states, _ = self.head.run(
                torch.tensor([lay.ids], device=dev),
                lay.mask(len(prefix), self.head_dtype).to(dev),
                torch.tensor([lay.pos], device=dev),
                cache,
                select.to(dev),
            )
            lay.reads.apply(self.head, states, select.flatten())
        self.stats.forward_tokens += len(lay.ids)
