"""Tokenisation and planning without a model: each candidate's tokens, its scored window
(`option_tokens` "span" or "authors", see `evalsci.lm.scoring`), whether the prefix cache
applies, and the tokens a set of queries costs (`Planner.plan_tokens`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields

from evalsci.lm.queries import Candidate, Query, common_prefix_len

OPTION_TOKENS = ("span", "authors")


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
            plans.append(Candidate(i, o, tokens, start, max(start, end), len(context), mode))
        return plans

    def plan_tokens(self, queries: Sequence[Query], prefix_text: str = "") -> TokenPlan:
        """Tokens `Scorer.score(queries, prefix_text)` forwards against the naive loop."""
        prefix_ids = self.encode(prefix_text)
        plans = self._plan(queries, prefix_text, prefix_ids)
        groups: dict[int, list[Candidate]] = {}
        engine, fallbacks = len(prefix_ids), 0
        for c in plans:
            if c.mode in ("cached", "uncached"):
                groups.setdefault(c.i, []).append(c)
            else:  # boundary or truncated: scored as its own (truncated) full sequence
                engine += c.end
                fallbacks += 1
        engine += sum(query_tokens(g, len(prefix_ids)) for g in groups.values())
        return TokenPlan(
            naive=sum(c.end for c in plans),
            engine=engine,
            scored=sum(c.end - c.start for c in plans),
            candidates=len(plans),
            fallbacks=fallbacks,
        )


def query_tokens(group: list[Candidate], n_prefix: int) -> int:
    """Tokens a query puts in a packed pass: its context, and its options but their last."""
    ctx = group[0].ctx_end - n_prefix
    return ctx + sum(len(c.tokens) - c.ctx_end - 1 for c in group)
