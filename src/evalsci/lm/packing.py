"""One packed forward pass after the prefix cache: the row's tokens, positions and 4D
attention mask (`PackLayout`), and the log-probabilities to read from its output (`Reads`).
See `Scorer._run_pack` in `evalsci.lm.scoring`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from evalsci.lm.queries import Candidate

if TYPE_CHECKING:
    from evalsci.lm.head import Head


class PrefixScores(Protocol):
    """What a packed pass reads of the prefix it follows (`evalsci.lm.scoring.Prefix` has
    it): its length, log p of each of its tokens, and the next token's log-distribution.
    Stated here so that this module needs nothing from scoring, which imports it."""

    def __len__(self) -> int: ...

    @property
    def token_lp(self): ...

    last_lp: object | None


class Reads:
    """Log-probabilities to read from one pass: (flat position, target token, candidate)."""

    def __init__(self):
        self.index: list[int] = []
        self.target: list[int] = []
        self.cand: list[Candidate] = []

    def add(self, flat_pos: int, target: int, cand: Candidate) -> None:
        self.index.append(flat_pos)
        self.target.append(target)
        self.cand.append(cand)

    def apply(self, head: Head, states, select_flat) -> None:
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
class PackLayout:
    """Token ids, positions and visibility of one packed row (see `Scorer._run_pack`).

    Token t sees packed columns [own[t], t] (its segment, causally) and
    [ctx_lo[t], ctx_hi[t]) (its query's context; empty for context tokens), plus the prefix.
    """

    ids: list[int] = field(default_factory=list)
    pos: list[int] = field(default_factory=list)
    own: list[int] = field(default_factory=list)
    ctx_lo: list[int] = field(default_factory=list)
    ctx_hi: list[int] = field(default_factory=list)
    reads: Reads = field(default_factory=Reads)

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
    def build(cls, prefix: PrefixScores, groups: list[list[Candidate]]) -> PackLayout:
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
