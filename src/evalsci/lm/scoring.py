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
float32 whatever the model's dtype (`_Head`): in bf16 the logits' own rounding (1/8 at
magnitude 16-32) was the largest source of disagreement between cached and fresh scores.

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


# ---------------------------------------------------------------------------------------
# The model as body + output head
# ---------------------------------------------------------------------------------------
# Model types whose logits are exactly `lm_head(base_model(...).last_hidden_state)`: no
# soft-capping or scaling after the head. For these the head runs only at the positions
# whose next-token distribution is read, and in float32 whatever the model's dtype: a bf16
# logit of magnitude ~20 is rounded to 1/8, which alone moved cached and fresh scores of the
# same candidate by tenths of a nat (issue 15).
_SPLIT_HEAD_TYPES = frozenset(
    {"llama", "mistral", "gpt2", "gpt_neo", "gpt_neox", "opt", "olmo", "olmo2", "falcon", "qwen2"}
)
_LSE_ROWS = 256  # rows of float32 logits held at once (256 x 50k vocab = 50 MB)


class _Head:
    """Runs the model and turns its output states into float32 log-probabilities.

    Split mode (`body` set): `run` returns final hidden states, the float32 head is applied
    here. Otherwise (other model types, custom heads): `run` asks the model itself for the
    logits of the selected positions (`logits_to_keep` as a boolean mask) and upcasts them.
    A PEFT model is unwrapped to its (adapter-injected) base model, so adapters still apply.
    The float32 copy of a bf16 head weight is taken once: score with a Scorer made after
    any training of the head.
    """

    def __init__(self, model):
        import torch

        self.model = model
        inner = model.get_base_model() if hasattr(model, "get_base_model") else model
        self.body = None
        cfg = getattr(inner, "config", None)
        if getattr(cfg, "model_type", None) in _SPLIT_HEAD_TYPES:
            head = inner.get_output_embeddings()
            body = getattr(inner, getattr(inner, "base_model_prefix", ""), None)
            if (
                type(head) is torch.nn.Linear
                and head.weight.is_floating_point()
                and isinstance(body, torch.nn.Module)
                and body is not inner
            ):
                self.body = body
                self.weight = head.weight.detach().float()
                self.bias = None if head.bias is None else head.bias.detach().float()

    @property
    def split(self) -> bool:
        return self.body is not None

    def run(self, input_ids, attention_mask, position_ids, cache, select):
        """One forward pass; returns (states of the positions where `select` [B, N] is
        True, in row-major order, and the cache)."""
        kw = dict(
            input_ids=input_ids,
            attention_mask=attention_mask,
            position_ids=position_ids,
            past_key_values=cache,
            use_cache=True,
        )
        if self.body is not None:
            out = self.body(**kw)
            return out.last_hidden_state[select], out.past_key_values
        out = self.model(**kw, logits_to_keep=select)
        logits = out.logits
        if logits.dim() == 3:  # a model that ignores logits_to_keep
            logits = logits[select] if logits.shape[1] == select.shape[1] else logits.flatten(0, 1)
        return logits, out.past_key_values

    def logits(self, states):
        """float32 logits of states (split mode) or the upcast logits themselves."""
        import torch

        if self.body is None:
            return states.float()
        return torch.nn.functional.linear(states.float(), self.weight, self.bias)

    def log_softmax(self, states):
        import torch

        return torch.log_softmax(self.logits(states), dim=-1)

    def target_lp(self, states, rows, targets) -> np.ndarray:
        """log p(targets[i] | state rows[i]) in float64, float32 arithmetic throughout.

        The normaliser is computed in chunks of rows (the full [rows, vocab] float32 logits
        are never held at once); the target logit is one dot product per read.
        """
        import torch

        if len(rows) == 0:
            return np.zeros(0)
        with torch.inference_mode():
            return self._target_lp(states, rows, targets)

    def _target_lp(self, states, rows, targets) -> np.ndarray:
        import torch

        rows = torch.as_tensor(rows, dtype=torch.long, device=states.device)
        targets = torch.as_tensor(targets, dtype=torch.long, device=states.device)
        lse = torch.cat(
            [
                torch.logsumexp(self.logits(states[s : s + _LSE_ROWS]), dim=-1)
                for s in range(0, states.shape[0], _LSE_ROWS)
            ]
        )
        if self.body is None:
            tgt = states[rows, targets].float()
        else:
            tgt = (states[rows].float() * self.weight[targets]).sum(-1)
            if self.bias is not None:
                tgt = tgt + self.bias[targets]
        return (tgt - lse[rows]).double().cpu().numpy()


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


def _leading_special_tokens(tokenizer) -> list[int]:
    """Special tokens the tokenizer adds in front (e.g. Llama's BOS). Trailing ones (an EOS
    some tokenizers append) are dropped: a prefix must not end a sequence."""
    with_sp = list(tokenizer("a", add_special_tokens=True).input_ids)
    without = list(tokenizer("a", add_special_tokens=False).input_ids)
    for k in range(len(with_sp) - len(without) + 1):
        if with_sp[k : k + len(without)] == without:
            return with_sp[:k]
    return []


@dataclass(frozen=True)
class TokenPlan:
    """Tokens a set of queries costs (`Planner.plan_tokens`). naive: every candidate as its
    own full sequence (what the authors' per-example loop runs); engine: what `Scorer.score`
    runs (the prefix once, each query's context once, its options minus their last token;
    fallback candidates in full). scored: the scored-window tokens, the same for both."""

    naive: int
    engine: int
    scored: int
    candidates: int
    fallbacks: int

    def __add__(self, other: TokenPlan) -> TokenPlan:
        return TokenPlan(
            *(a + b for a, b in zip(_plan_fields(self), _plan_fields(other), strict=True))
        )


def _plan_fields(p: TokenPlan) -> tuple[int, ...]:
    return tuple(getattr(p, f.name) for f in fields(p))


class Planner:
    """Tokenisation and planning of `Scorer`, without a model: which tokens each candidate
    has, its scored window, and whether the prefix cache applies. `plan_tokens` counts what
    scoring will forward, so paper-scale costs can be planned on a machine with no GPU
    (benchmarks/paper_scale.py)."""

    def __init__(
        self,
        tokenizer,
        *,
        option_tokens: str = "span",
        max_length: int | None = None,
        add_special_tokens: bool = True,
    ):
        if option_tokens not in OPTION_TOKENS:
            raise ValueError(f"option_tokens must be one of {OPTION_TOKENS}, not {option_tokens!r}")
        self.tok = tokenizer
        self.option_tokens = option_tokens
        self.max_length = max_length
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

    # --- planning -------------------------------------------------------------------------
    def _plan(self, queries: Sequence[Query], prefix_text: str, prefix_ids: list[int]):
        """Tokenise every candidate and decide its scored window and whether the cache applies."""
        n_prefix = len(prefix_ids)
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
        for (i, o), tokens in zip(owner, full, strict=True):
            context = ctx_full[i]
            n = len(tokens)
            end = min(n, self.max_length) if self.max_length else n
            if self.option_tokens == "span":
                start = min(common_prefix_len(context, tokens), end)
            else:
                start = max(end - self.n_choice_tokens(queries[i].options[o]), 0)
            start = max(start, 1)  # the first token of a sequence has no prediction
            prefix_kept = context[:n_prefix] == prefix_ids
            context_kept = tokens[: len(context)] == context and n > len(context)
            if n_prefix == 0:
                mode = "uncached"
            elif end < n:
                mode = "truncated"
            elif not (prefix_kept and context_kept):
                mode = "boundary"
            else:
                mode = "cached"
            plans.append(_Cand(i, o, tokens, start, max(start, end), len(context), mode))
        return plans

    def plan_tokens(self, queries: Sequence[Query], prefix_text: str = "") -> TokenPlan:
        """Tokens `Scorer.score(queries, prefix_text)` forwards against the naive loop."""
        prefix_ids = self.encode(prefix_text)
        plans = self._plan(queries, prefix_text, prefix_ids)
        groups: dict[int, list[_Cand]] = {}
        engine, fallbacks = len(prefix_ids), 0
        for c in plans:
            if c.mode in ("cached", "uncached"):
                groups.setdefault(c.i, []).append(c)
            else:  # boundary or truncated: scored as its own (truncated) full sequence
                engine += c.end
                fallbacks += 1
        engine += sum(_query_tokens(g, len(prefix_ids)) for g in groups.values())
        return TokenPlan(
            naive=sum(c.end for c in plans),
            engine=engine,
            scored=sum(c.end - c.start for c in plans),
            candidates=len(plans),
            fallbacks=fallbacks,
        )


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
        self.head = _Head(model)
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
            cache, states = self._run_prefix(ids, 0, _new_cache(self.model, []))
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
            cache = _new_cache(
                self.model, [(k[..., :c, :], v[..., :c, :]) for k, v in _kv(pre.cache)]
            )
            cache, states = self._run_prefix(ids, c, cache)
            out = self._make_prefix(new_text, ids, cache, states, pre, c)
        self.stats.seconds += time.perf_counter() - t0
        return out

    def _recompute_lp(self, pre: Prefix, c: int, token: int) -> float:
        """log p(token | pre.ids[:c]) for c < len(pre.ids), c >= 1 (one-token forward; only
        needed when the head is not split, else the kept hidden state gives it)."""
        import torch

        cache = _new_cache(
            self.model, [(k[..., : c - 1, :], v[..., : c - 1, :]) for k, v in _kv(pre.cache)]
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
    def _score_full(self, cands: list[_Cand], desc: str | None) -> None:
        from tqdm.auto import tqdm

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
        bar = tqdm(
            total=len(cands),
            desc=desc or "score (uncached)",
            disable=not self.progress,
            leave=False,
        )
        for batch in batches:
            self._full_batch([cands[k] for k in batch])
            bar.update(len(batch))
        bar.close()

    def _full_batch(self, rows: list[_Cand]) -> None:
        """One right-padded batch of full sequences; the head runs at the window positions."""
        import torch

        width = max(c.end for c in rows)
        ids = torch.full((len(rows), width), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        select = torch.zeros((len(rows), width), dtype=torch.bool)
        reads = _Reads()
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
    def _score_cached(self, prefix: Prefix, cands: list[_Cand], desc: str | None) -> None:
        from tqdm.auto import tqdm

        by_query: dict[int, list[_Cand]] = {}
        for c in cands:
            by_query.setdefault(c.i, []).append(c)
        packs = self._packs(list(by_query.values()), len(prefix))
        kv_prefix = _kv(prefix.cache) if prefix.cache is not None else []
        bar = tqdm(
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

    def _packs(self, groups: list[list[_Cand]], n_prefix: int) -> list[list[list[_Cand]]]:
        """Consecutive queries packed up to `_pack_limit` tokens (a query is never split: its
        options attend to its context in the same pass)."""
        limit = self._pack_limit(n_prefix)
        packs, cur, size = [], [], 0
        for g in groups:
            n = _query_tokens(g, n_prefix)
            if cur and size + n > limit:
                packs.append(cur)
                cur, size = [], 0
            cur.append(g)
            size += n
        if cur:
            packs.append(cur)
        return packs

    def _run_pack(self, prefix: Prefix, kv_prefix, groups: list[list[_Cand]]) -> None:
        """One forward pass of several queries packed into one row after the prefix cache.

        The row holds each query's context, then each of its options but the last token.
        The attention mask (`_PackLayout.mask`) lets every token see the whole prefix, its
        own segment up to itself, and (option tokens) its query's context: exactly the keys
        it has in its unsplit candidate string, at the same position ids. One row means the
        prefix cache is used as is (never expanded or copied per query).
        """
        import torch

        lay = _PackLayout.build(prefix, groups)
        dev = self.device
        select = torch.zeros((1, len(lay.ids)), dtype=torch.bool)
        select[0, sorted(set(lay.reads.index))] = True
        with torch.inference_mode():
            cache = _new_cache(self.model, kv_prefix)
            states, _ = self.head.run(
                torch.tensor([lay.ids], device=dev),
                lay.mask(len(prefix), self.head_dtype).to(dev),
                torch.tensor([lay.pos], device=dev),
                cache,
                select.to(dev),
            )
            lay.reads.apply(self.head, states, select.flatten())
        self.stats.forward_tokens += len(lay.ids)


def _query_tokens(group: list[_Cand], n_prefix: int) -> int:
    """Tokens a query puts in a packed pass: its context, and its options but their last."""
    ctx = group[0].ctx_end - n_prefix
    return ctx + sum(len(c.tokens) - c.ctx_end - 1 for c in group)


class _Reads:
    """Log-probabilities to read from one pass: (flat position, target token, candidate)."""

    def __init__(self):
        self.index: list[int] = []
        self.target: list[int] = []
        self.cand: list[_Cand] = []

    def add(self, flat_pos: int, target: int, cand: _Cand) -> None:
        self.index.append(flat_pos)
        self.target.append(target)
        self.cand.append(cand)

    def apply(self, head: _Head, states, select_flat) -> None:
        """Add each read's log-probability to its candidate's sum. `states` hold the
        selected positions in order; `select_flat` says which flat positions those are."""
        import torch

        if not self.index:
            return
        row_of = torch.cumsum(select_flat.long(), 0) - 1
        rows = row_of[torch.tensor(self.index)].to(states.device)
        lp = head.target_lp(states, rows, self.target)
        for c, v in zip(self.cand, lp.tolist(), strict=True):
            c.sum += v


@dataclass
class _PackLayout:
    """Token ids, positions and visibility of one packed row (see `Scorer._run_pack`).

    Token t sees packed columns [own[t], t] (its segment, causally) and
    [ctx_lo[t], ctx_hi[t]) (its query's context; empty for context tokens), plus the prefix.
    """

    ids: list[int] = field(default_factory=list)
    pos: list[int] = field(default_factory=list)
    own: list[int] = field(default_factory=list)
    ctx_lo: list[int] = field(default_factory=list)
    ctx_hi: list[int] = field(default_factory=list)
    reads: _Reads = field(default_factory=_Reads)

    def _segment(self, tokens: list[int], first_pos: int, ctx: tuple[int, int]) -> int:
        start = len(self.ids)
        n = len(tokens)
        self.ids += tokens
        self.pos += range(first_pos, first_pos + n)
        self.own += [start] * n
        self.ctx_lo += [ctx[0]] * n
        self.ctx_hi += [ctx[1]] * n
        return start

    @classmethod
    def build(cls, prefix: Prefix, groups: list[list[_Cand]]) -> _PackLayout:
        lay = cls()
        n_prefix = len(prefix)
        for group in groups:
            ctx_end = group[0].ctx_end
            ctx_start = lay._segment(group[0].tokens[n_prefix:ctx_end], n_prefix, (0, 0))
            ctx = (ctx_start, ctx_start + ctx_end - n_prefix)
            for c in group:
                opt_start = lay._segment(c.tokens[ctx_end:-1], ctx_end, ctx)
                c.sum = 0.0
                for j in range(c.start, c.end):  # token j is predicted by the output at j - 1
                    if j < n_prefix:
                        c.sum += float(prefix.token_lp[j])
                    elif j == n_prefix:
                        c.sum += prefix.last_lp[c.tokens[j]].item()
                    elif j - 1 < ctx_end:
                        lay.reads.add(ctx_start + j - 1 - n_prefix, c.tokens[j], c)
                    else:
                        lay.reads.add(opt_start + j - 1 - ctx_end, c.tokens[j], c)
        return lay

    def mask(self, n_prefix: int, dtype):
        """Additive attention mask [1, 1, tokens, prefix + tokens] (0 = visible)."""
        import torch

        n = len(self.ids)
        t = torch.arange(n)[:, None]
        k = torch.arange(n)[None, :]
        own = torch.tensor(self.own)[:, None]
        lo = torch.tensor(self.ctx_lo)[:, None]
        hi = torch.tensor(self.ctx_hi)[:, None]
        seen = ((k >= own) & (k <= t)) | ((k >= lo) & (k < hi))
        seen = torch.cat([torch.ones(n, n_prefix, dtype=torch.bool), seen], dim=1)
        out = torch.zeros(seen.shape, dtype=dtype)
        out.masked_fill_(~seen, torch.finfo(dtype).min)
        return out[None, None]


@dataclass
class _Cand:
    i: int  # query index
    o: int  # option index
    tokens: list[int]  # tokens of the full candidate
    start: int  # scored window [start, end) in tokens
    end: int
    ctx_end: int  # len(tokens of prefix + context)
    mode: str  # cached | boundary | truncated | uncached
    sum: float = field(default=math.nan)
