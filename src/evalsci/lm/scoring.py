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
once (`Scorer.prefix`, extendable with `Prefix.extend`). Then, per batch of queries:
stage 1 runs every query's context after the prefix cache (expanded to the batch), with
the contexts left-padded *between* prefix and context, so all rows end in the same column
and `logits_to_keep` returns only the last columns; stage 2 copies each query's cache row
once per option and runs the options (minus their last token, whose output is never
needed). Position ids are explicit, pad keys are masked, so every real token sees exactly
the keys and positions it has in the unsplit string.

Tokenisation at the boundaries is checked: the tokens of `prefix + context` must start
with the prefix's tokens, and those of the full candidate with the tokens of
`prefix + context`. A candidate that fails (a BPE merge across the boundary), that would be
truncated, or that has no prefix token to attend to, is scored without the cache (full
sequence, batched); `ScoringStats` counts each case.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, fields

import numpy as np

log = logging.getLogger(__name__)

OPTION_TOKENS = ("span", "authors")


@dataclass(frozen=True)
class Query:
    """One multiple-choice item: `context` (text after the prefix) and its `options`
    (continuations; include their leading space, e.g. `" yes"`)."""

    context: str
    options: Sequence[str]


@dataclass
class QueryScores:
    """Per-option sum and count of scored token log-probabilities (natural log)."""

    sums: np.ndarray
    counts: np.ndarray
    cached: np.ndarray  # bool: scored through the prefix cache

    @property
    def means(self) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.counts > 0, self.sums / np.maximum(self.counts, 1), np.nan)

    @property
    def losses(self) -> np.ndarray:
        """The authors' per-candidate loss: mean negative log-likelihood per token."""
        return -self.means

    def prediction(self) -> int:
        """Index of the option with the highest mean log-likelihood (first on ties)."""
        m = np.nan_to_num(self.means, nan=-np.inf)
        return int(np.argmax(m))


@dataclass
class ScoringStats:
    candidates: int = 0
    cached: int = 0
    fallback_boundary: int = 0  # tokenisation at a cache boundary differed from the unsplit one
    fallback_truncated: int = 0  # longer than max_length
    uncached: int = 0  # scored without cache by request, or no prefix token to attend to
    prefix_retokenised: int = 0  # Prefix.extend whose new text merged with the old tokens
    forward_tokens: int = 0  # tokens fed through the model (padding excluded)
    seconds: float = 0.0

    def as_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @property
    def fallbacks(self) -> int:
        return self.fallback_boundary + self.fallback_truncated


def common_prefix_len(a: Sequence[int], b: Sequence[int]) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


# ---------------------------------------------------------------------------------------
# KV cache helpers (transformers 5.x DynamicCache)
# ---------------------------------------------------------------------------------------
def _kv(cache) -> list[tuple]:
    return [(layer.keys, layer.values) for layer in cache.layers]


def _new_cache(model, kvs):
    """A DynamicCache holding `kvs` (tensors or views such as `expand`), laid out for
    `model`'s layers.

    Plain full-attention layers take the tensors as they are: the next forward pass
    concatenates the new keys onto them (one copy), so an expanded prefix is materialised
    once per batch instead of twice. Other layer types (sliding windows) go through their
    own `update`.
    """
    from transformers import DynamicCache
    from transformers.cache_utils import DynamicLayer

    cache = DynamicCache(config=model.config)
    kvs = list(kvs)
    if not kvs:
        return cache
    if len(cache.layers) != len(kvs):  # lazily built layer list
        return DynamicCache(ddp_cache_data=kvs, config=model.config)
    for layer, (k, v) in zip(cache.layers, kvs, strict=True):
        if type(layer) is DynamicLayer:
            layer.lazy_initialization(k, v)
            layer.keys, layer.values = k, v
        else:
            layer.update(k, v)
    return cache


@dataclass
class Prefix:
    """The instruction + demonstrations part of a prompt, run once through the model.

    `ids`: its tokens; `token_lp[j]`: log p(ids[j] | ids[:j]) (nan for j = 0);
    `last_lp`: the log-distribution of the next token (None for an empty prefix);
    `cache`: the DynamicCache of batch size 1 (None for an empty prefix).
    Immutable in use: `extend` returns a new Prefix and never modifies this one's cache.
    """

    scorer: Scorer
    text: str
    ids: list[int]
    cache: object | None
    token_lp: np.ndarray
    last_lp: object | None

    def __len__(self) -> int:
        return len(self.ids)

    def extend(self, text: str) -> Prefix:
        """This prefix followed by `text` (e.g. one more demonstration), reusing the cache
        for every token whose tokenisation is unchanged."""
        return self.scorer._extend(self, text)


def _leading_special_tokens(tokenizer) -> list[int]:
    """Special tokens the tokenizer adds in front (e.g. Llama's BOS). Trailing ones (an EOS
    some tokenizers append) are dropped: a prefix must not end a sequence."""
    with_sp = list(tokenizer("a", add_special_tokens=True).input_ids)
    without = list(tokenizer("a", add_special_tokens=False).input_ids)
    for k in range(len(with_sp) - len(without) + 1):
        if with_sp[k: k + len(without)] == without:
            return with_sp[:k]
    return []


class Scorer:
    """Scores multiple-choice queries with a causal LM (see module docstring).

    token_budget: max new (non-pad) + pad tokens per forward pass;
    cache_budget: max rows x (cached + new) tokens per pass (bounds KV memory);
    max_rows: max rows per pass;
    add_special_tokens: put the tokenizer's leading special tokens (e.g. Llama's BOS) in
    front of every sequence, as `tokenizer(text)` does; False encodes the text alone, as
    `tokenizer(text, add_special_tokens=False)` (lm-evaluation-harness 0.4.x).
    """

    def __init__(self, model, tokenizer, *, option_tokens: str = "span",
                 max_length: int | None = None, token_budget: int = 2048,
                 cache_budget: int = 262144, max_rows: int = 256, progress: bool = False,
                 add_special_tokens: bool = True):
        if option_tokens not in OPTION_TOKENS:
            raise ValueError(f"option_tokens must be one of {OPTION_TOKENS}, not {option_tokens!r}")
        self.model = model
        self.tok = tokenizer
        self.option_tokens = option_tokens
        self.max_length = max_length
        self.token_budget = int(token_budget)
        self.cache_budget = int(cache_budget)
        self.max_rows = int(max_rows)
        self.progress = progress
        self.stats = ScoringStats()
        self.device = next(model.parameters()).device
        self.pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
        self.lead = _leading_special_tokens(tokenizer) if add_special_tokens else []
        self._n_choice_cache: dict[str, int] = {}

    # --- tokenisation -------------------------------------------------------------------
    def encode(self, text: str) -> list[int]:
        return self.lead + self.tok(text, add_special_tokens=False).input_ids

    def encode_batch(self, texts: Sequence[str]) -> list[list[int]]:
        if not texts:
            return []
        enc = self.tok(list(texts), add_special_tokens=False).input_ids
        return [self.lead + list(e) for e in enc]

    def n_choice_tokens(self, option: str) -> int:
        """The authors' `num_choice_tokens`: len(tokenizer(choice).input_ids), choice = the
        option without one leading space, special tokens included."""
        n = self._n_choice_cache.get(option)
        if n is None:
            choice = option[1:] if option.startswith(" ") else option
            n = len(self.tok(choice).input_ids)
            self._n_choice_cache[option] = n
        return n

    # --- model calls ----------------------------------------------------------------------
    def _forward(self, input_ids, attention_mask, position_ids, cache, keep: int):
        import torch

        with torch.inference_mode():
            out = self.model(input_ids=input_ids, attention_mask=attention_mask,
                             position_ids=position_ids, past_key_values=cache, use_cache=True,
                             logits_to_keep=keep)
        logits = out.logits
        if logits.shape[1] != keep:  # a model that ignores logits_to_keep
            logits = logits[:, -keep:]
        return logits, out.past_key_values

    def _run_prefix(self, ids: list[int], start: int, cache) -> tuple[object, np.ndarray, object]:
        """Run ids[start:] after `cache` (holding ids[:start]) in chunks; returns the cache,
        log p of ids[start+1:] ... and the final next-token log-distribution."""
        import torch

        lps = []
        last = None
        pos = start
        while pos < len(ids):
            chunk = ids[pos: pos + self.token_budget]
            n = len(chunk)
            inp = torch.tensor([chunk], device=self.device)
            mask = torch.ones(1, pos + n, dtype=torch.long, device=self.device)
            posid = torch.arange(pos, pos + n, device=self.device)[None]
            logits, cache = self._forward(inp, mask, posid, cache, keep=n)
            lp = torch.log_softmax(logits[0].float(), dim=-1)
            if last is not None:  # first token of this chunk, predicted by the previous chunk
                lps.append(last[chunk[0]].item())
            nxt = torch.tensor(ids[pos + 1: pos + n], device=self.device)
            lps.extend(lp[: len(nxt)].gather(1, nxt[:, None])[:, 0].double().cpu().tolist())
            last = lp[-1]
            self.stats.forward_tokens += n
            pos += n
        return cache, np.asarray(lps, dtype=np.float64), last

    def prefix(self, text: str = "") -> Prefix:
        """Run the shared prefix once."""
        t0 = time.perf_counter()
        ids = self.encode(text)
        if not ids:
            return Prefix(self, text, [], None, np.zeros(0), None)
        cache = _new_cache(self.model, [])
        cache, lps, last = self._run_prefix(ids, 0, cache)
        token_lp = np.concatenate([[np.nan], lps])
        self.stats.seconds += time.perf_counter() - t0
        return Prefix(self, text, ids, cache, token_lp, last)

    def _extend(self, pre: Prefix, text: str) -> Prefix:
        if not text:
            return pre
        t0 = time.perf_counter()
        new_text = pre.text + text
        ids = self.encode(new_text)
        c = common_prefix_len(pre.ids, ids)
        if c < len(pre.ids):
            self.stats.prefix_retokenised += 1
        if c == 0 or pre.cache is None:
            return self.prefix(new_text)
        if c == len(ids):  # no new token survived (tokenisation shrank): start afresh
            return self.prefix(new_text)
        cache = _new_cache(self.model, [(k[..., :c, :], v[..., :c, :]) for k, v in _kv(pre.cache)])
        cache, lps, last = self._run_prefix(ids, c, cache)
        # lps[0] is log p(ids[c+1]); log p(ids[c]) comes from the old prefix's state
        if c == len(pre.ids):
            first = pre.last_lp[ids[c]].item()
        else:
            first = self._recompute_lp(pre, c, ids[c])
        token_lp = np.concatenate([pre.token_lp[:c], [first], lps])
        self.stats.seconds += time.perf_counter() - t0
        return Prefix(self, new_text, ids, cache, token_lp, last)

    def _recompute_lp(self, pre: Prefix, c: int, token: int) -> float:
        """log p(token | pre.ids[:c]) for c < len(pre.ids), c >= 1 (one-token forward)."""
        import torch

        cache = _new_cache(self.model, [(k[..., : c - 1, :], v[..., : c - 1, :])
                                        for k, v in _kv(pre.cache)])
        inp = torch.tensor([[pre.ids[c - 1]]], device=self.device)
        logits, _ = self._forward(inp, torch.ones(1, c, dtype=torch.long, device=self.device),
                                  torch.tensor([[c - 1]], device=self.device), cache, keep=1)
        return torch.log_softmax(logits[0, -1].float(), -1)[token].item()

    # --- planning -------------------------------------------------------------------------
    def _plan(self, queries: Sequence[Query], prefix_text: str, prefix_ids: list[int]):
        """Tokenise every candidate and decide its scored window and whether the cache applies."""
        P = len(prefix_ids)
        ctx_full = self.encode_batch([prefix_text + q.context for q in queries])
        cand_text, owner = [], []
        for i, q in enumerate(queries):
            if len(q.options) == 0:
                raise ValueError(f"query {i} has no options: {q.context[:60]!r}")
            for o, opt in enumerate(q.options):
                cand_text.append(prefix_text + q.context + opt)
                owner.append((i, o))
        full = self.encode_batch(cand_text)
        plans = []
        for (i, o), F in zip(owner, full, strict=True):
            E = ctx_full[i]
            L = len(F)
            b = min(L, self.max_length) if self.max_length else L
            if self.option_tokens == "span":
                a = min(common_prefix_len(E, F), b)
            else:
                a = max(b - self.n_choice_tokens(queries[i].options[o]), 0)
            a = max(a, 1)  # the first token of a sequence has no prediction
            ok_b1 = E[:P] == prefix_ids
            ok_b2 = F[: len(E)] == E and len(F) > len(E)
            if P == 0:
                mode = "uncached"
            elif b < L:
                mode = "truncated"
            elif not (ok_b1 and ok_b2):
                mode = "boundary"
            else:
                mode = "cached"
            plans.append(_Cand(i, o, F, a, max(a, b), len(E), mode))
        return plans

    # --- public scoring -------------------------------------------------------------------
    def score(self, queries: Sequence[Query], prefix: Prefix | str = "", *,
              use_cache: bool = True, desc: str | None = None) -> list[QueryScores]:
        """Score every option of every query after `prefix` (a Prefix, or its text)."""
        t0 = time.perf_counter()
        if isinstance(prefix, str):
            prefix = self.prefix(prefix) if use_cache else Prefix(
                self, prefix, self.encode(prefix), None, np.zeros(0), None)
        plans = self._plan(queries, prefix.text, prefix.ids)
        out = [QueryScores(np.zeros(len(q.options)), np.zeros(len(q.options), dtype=np.int64),
                           np.zeros(len(q.options), dtype=bool)) for q in queries]
        cached, rest = [], []
        for c in plans:
            if use_cache and c.mode == "cached":
                cached.append(c)
            else:
                rest.append(c)
                if not use_cache or c.mode == "uncached":
                    self.stats.uncached += 1
                elif c.mode == "truncated":
                    self.stats.fallback_truncated += 1
                else:
                    self.stats.fallback_boundary += 1
        self.stats.candidates += len(plans)
        self.stats.cached += len(cached)
        if cached:
            self._score_cached(prefix, cached, desc)
        if rest:
            self._score_full(rest, desc)
        for c in plans:
            out[c.i].sums[c.o] = c.sum
            out[c.i].counts[c.o] = c.b - c.a
            out[c.i].cached[c.o] = use_cache and c.mode == "cached"
        self.stats.seconds += time.perf_counter() - t0
        return out

    def score_uncached(self, queries: Sequence[Query], prefix: str = "",
                       desc: str | None = None) -> list[QueryScores]:
        """Reference path: every candidate as one full sequence (batched, right-padded)."""
        return self.score(queries, prefix, use_cache=False, desc=desc)

    # --- uncached path --------------------------------------------------------------------
    def _score_full(self, cands: list[_Cand], desc: str | None) -> None:
        import torch
        from tqdm.auto import tqdm

        order = sorted(range(len(cands)), key=lambda k: -cands[k].b)
        batches, cur, width = [], [], 0
        for k in order:
            n = cands[k].b
            w = max(width, n)
            if cur and (w * (len(cur) + 1) > self.token_budget or len(cur) >= self.max_rows):
                batches.append(cur)
                cur, w = [], n
            cur.append(k)
            width = w
        if cur:
            batches.append(cur)
        bar = tqdm(total=len(cands), desc=desc or "score (uncached)", disable=not self.progress,
                   leave=False)
        for batch in batches:
            rows = [cands[k] for k in batch]
            Lm = max(c.b for c in rows)
            ids = torch.full((len(rows), Lm), self.pad_id, dtype=torch.long)
            mask = torch.zeros((len(rows), Lm), dtype=torch.long)
            for r, c in enumerate(rows):
                ids[r, : c.b] = torch.tensor(c.F[: c.b])
                mask[r, : c.b] = 1
            ids, mask = ids.to(self.device), mask.to(self.device)
            pos = (mask.cumsum(1) - 1).clamp(min=0)
            logits, _ = self._forward(ids, mask, pos, None, keep=Lm)
            for r, c in enumerate(rows):
                lp = torch.log_softmax(logits[r, c.a - 1: c.b - 1].float(), -1)
                tgt = ids[r, c.a: c.b]
                c.sum = float(lp.gather(1, tgt[:, None]).double().sum().item())
                self.stats.forward_tokens += c.b
            bar.update(len(rows))
        bar.close()

    # --- cached path ----------------------------------------------------------------------
    def _score_cached(self, prefix: Prefix, cands: list[_Cand], desc: str | None) -> None:
        from tqdm.auto import tqdm

        P = len(prefix)
        by_q: dict[int, list[_Cand]] = {}
        for c in cands:
            by_q.setdefault(c.i, []).append(c)
        qs = sorted(by_q, key=lambda i: -(by_q[i][0].ctx_end - P))
        # stage-1 batches of queries, sized by context width and cache size
        batches, cur, width = [], [], 0
        for i in qs:
            li = by_q[i][0].ctx_end - P
            w = max(width, li, 1)
            n = len(cur) + 1
            if cur and (w * n > self.token_budget or (P + w) * n > self.cache_budget
                        or n > self.max_rows):
                batches.append(cur)
                cur, w = [], max(li, 1)
            cur.append(i)
            width = w
        if cur:
            batches.append(cur)
        kv_prefix = _kv(prefix.cache)
        bar = tqdm(total=len(qs), desc=desc or "score", disable=not self.progress, leave=False)
        for batch in batches:
            self._stage(prefix, kv_prefix, [by_q[i] for i in batch])
            bar.update(len(batch))
        bar.close()

    def _stage(self, prefix: Prefix, kv_prefix, groups: list[list[_Cand]]) -> None:
        import torch

        dev = self.device
        P = len(prefix)
        B = len(groups)
        ctx = [g[0].F[P: g[0].ctx_end] for g in groups]
        lens = [len(x) for x in ctx]
        Lc = max(max(lens), 1)
        # how many trailing context columns' logits are needed (authors' windows reach back)
        need = 1
        for g, li in zip(groups, lens, strict=True):
            for c in g:
                if c.a <= P + li and li > 0:
                    need = max(need, li - max(c.a - P, 1) + 1)
        W1 = min(need, Lc)
        ids = torch.full((B, Lc), self.pad_id, dtype=torch.long)
        mask = torch.zeros((B, P + Lc), dtype=torch.long)
        mask[:, :P] = 1
        pos = torch.full((B, Lc), P, dtype=torch.long)
        for r, (x, li) in enumerate(zip(ctx, lens, strict=True)):
            if li:
                ids[r, Lc - li:] = torch.tensor(x)
                mask[r, P + Lc - li:] = 1
                pos[r, Lc - li:] = torch.arange(P, P + li)
        ids, mask, pos = ids.to(dev), mask.to(dev), pos.to(dev)
        cache = _new_cache(self.model, [(k.expand(B, -1, -1, -1), v.expand(B, -1, -1, -1))
                                        for k, v in kv_prefix])
        logits, cache = self._forward(ids, mask, pos, cache, keep=W1)
        self.stats.forward_tokens += sum(lens)
        lp1 = torch.log_softmax(logits.float(), dim=-1)  # [B, W1, V]
        last = [lp1[r, -1] if lens[r] else prefix.last_lp for r in range(B)]

        def ctx_lp(r: int, j: int) -> float:
            """log p of the token at absolute position j (< P + li) of row r."""
            li = lens[r]
            if j < P:
                return float(prefix.token_lp[j])
            s = j - P
            if s == 0:
                return prefix.last_lp[ctx[r][0]].item()
            col = (Lc - li) + s - 1  # stage-1 column whose output predicts ctx token s
            k = col - (Lc - W1)
            return lp1[r, k, ctx[r][s]].item()

        # stage 2: options with >= 2 tokens need their tokens but the last run through
        two = []
        for r, g in enumerate(groups):
            li = lens[r]
            for c in g:
                opt = c.F[c.ctx_end:]
                s = 0.0
                for j in range(c.a, min(c.b, P + li)):
                    s += ctx_lp(r, j)
                if c.a <= P + li < c.b:  # option token 0 is in the window
                    s += last[r][opt[0]].item()
                c.sum = s
                if c.b > P + li + 1:
                    two.append((r, c))
        if not two:
            return
        kv1 = _kv(cache)
        # sub-batches of stage-2 rows
        two.sort(key=lambda rc: -(len(rc[1].F) - rc[1].ctx_end))
        start = 0
        while start < len(two):
            Lo = len(two[start][1].F) - two[start][1].ctx_end - 1
            n = 1
            while (start + n < len(two) and (n + 1) * Lo <= self.token_budget
                   and (n + 1) * (P + Lc + Lo) <= self.cache_budget and n + 1 <= self.max_rows):
                n += 1
            chunk = two[start: start + n]
            start += n
            R = len(chunk)
            rows = torch.tensor([r for r, _ in chunk], device=dev)
            ids2 = torch.full((R, Lo), self.pad_id, dtype=torch.long)
            m2 = torch.zeros((R, Lo), dtype=torch.long)
            pos2 = torch.zeros((R, Lo), dtype=torch.long)
            tgt = torch.zeros((R, Lo), dtype=torch.long)
            for q, (r, c) in enumerate(chunk):
                opt = c.F[c.ctx_end:]
                lo = len(opt) - 1
                ids2[q, Lo - lo:] = torch.tensor(opt[:-1])
                tgt[q, Lo - lo:] = torch.tensor(opt[1:])
                m2[q, Lo - lo:] = 1
                base = P + lens[r]
                pos2[q, Lo - lo:] = torch.arange(base, base + lo)
                pos2[q, : Lo - lo] = base
                self.stats.forward_tokens += lo
            ids2, m2, pos2, tgt = ids2.to(dev), m2.to(dev), pos2.to(dev), tgt.to(dev)
            mask2 = torch.cat([mask.index_select(0, rows), m2], dim=1)
            cache2 = _new_cache(self.model, [(k.index_select(0, rows), v.index_select(0, rows))
                                             for k, v in kv1])
            logits2, _ = self._forward(ids2, mask2, pos2, cache2, keep=Lo)
            lp2 = torch.log_softmax(logits2.float(), -1).gather(2, tgt[..., None])[..., 0]
            lp2 = lp2.double().cpu().numpy()
            for q, (r, c) in enumerate(chunk):
                opt_len = len(c.F) - c.ctx_end
                lo = opt_len - 1
                base = P + lens[r]
                # option token t (>= 1) sits at absolute position base + t, column Lo-lo+t-1
                t_from = max(c.a - base, 1)
                t_to = c.b - base  # exclusive
                if t_to > t_from:
                    c.sum += float(lp2[q, Lo - lo + t_from - 1: Lo - lo + t_to - 1].sum())


@dataclass
class _Cand:
    i: int  # query index
    o: int  # option index
    F: list[int]  # tokens of the full candidate
    a: int  # scored window [a, b) in F
    b: int
    ctx_end: int  # len(tokens of prefix + context)
    mode: str  # cached | boundary | truncated | uncached
    sum: float = field(default=math.nan)
