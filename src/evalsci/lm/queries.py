"""What the scorer takes and returns: queries, per-option scores, run statistics, and the
per-candidate record (`Candidate`) that planning fills and scoring sums into."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, fields

import numpy as np


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


@dataclass
class Candidate:
    i: int  # query index
    o: int  # option index
    tokens: list[int]  # tokens of the full candidate
    start: int  # scored window [start, end) in tokens
    end: int
    ctx_end: int  # len(tokens of prefix + context)
    mode: str  # cached | boundary | truncated | uncached
    sum: float = field(default=math.nan)
