"""The number of correct guesses of ONE random classifier when examples differ in their
success probability (paper Appendix A): X ~ Poisson binomial, a sum of independent Bernoulli(p_i).

Examples with the same p form a binomial group, so X is a convolution of a few binomials
(the dict form {number of labels: number of examples} has one group per label count). Each
group's pmf comes from scipy (relative-accurate); the convolution is done directly
(`np.convolve`, sums of positive products), not by FFT, so the pmf keeps its RELATIVE accuracy
in the tails, and cdf/sf are cumulative sums of positive terms from either end.

Entries below `CUTOFF` times a group's mode are dropped to keep the convolution short; so tail
probabilities of the Poisson binomial are relative-exact only above about 1e-190 (far below
anything that changes an expected maximum, which needs tails down to ~1e-35 for t = 1e12).
"""

from __future__ import annotations

import heapq
import numbers
from collections.abc import Mapping

import numpy as np

from ._bounds import bernstein_halfwidth
from ._checks import check_n, check_probability
from .binomial import BinomialCounts

#: relative level (to a group's mode) below which pmf entries are dropped before convolving
CUTOFF = 1e-200


def success_groups(n: int, p) -> list[tuple[float, int]]:
    """Normalise the three forms of `p` into [(success probability, number of examples)].

    p: a float (every example), a sequence of n per-example probabilities, or a dict
    {number of labels: number of examples} (p = 1/labels; keys may be JSON strings like "4").
    """
    if isinstance(p, Mapping):
        return _label_groups(n, p)
    if isinstance(p, np.ndarray) and p.ndim == 0:
        p = p.item()
    if isinstance(p, numbers.Real) and not isinstance(p, bool):
        return [(check_probability(p), n)]
    return _per_example_groups(n, p)


def _label_groups(n: int, p: Mapping) -> list[tuple[float, int]]:
    """{number of labels: number of examples} -> [(1 / labels, examples)], counts summing to n."""
    groups: dict[float, int] = {}
    for labels, count in p.items():
        lab = _as_int(labels, allow_str=True)
        if lab is None or lab < 1:
            raise ValueError(f"number of labels must be an integer >= 1, got labels={labels!r}")
        cnt = _as_int(count)
        if cnt is None or cnt < 0:
            raise ValueError(
                f"number of examples with {lab} labels must be an integer >= 0, got {count!r}"
            )
        groups[1.0 / lab] = groups.get(1.0 / lab, 0) + cnt
    total = sum(groups.values())
    if total != n:
        raise ValueError(f"label counts {dict(p)!r} sum to {total} examples, but n={n}")
    return sorted((q, c) for q, c in groups.items() if c > 0)


def _per_example_groups(n: int, p) -> list[tuple[float, int]]:
    """A sequence of n probabilities in (0, 1] -> [(distinct probability, its count)]."""
    if isinstance(p, (str, bytes)):
        raise ValueError(f"p must be a float, a sequence of n floats or a dict, got p={p!r}")
    try:
        arr = np.asarray(p, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(
            f"p must be a float, a sequence of n floats or a dict, got p={p!r}"
        ) from None
    if arr.ndim != 1:
        raise ValueError(f"per-example p must be a 1-d sequence, got shape {arr.shape}")
    if arr.size != n:
        raise ValueError(f"per-example p has length {arr.size}, but n={n}")
    bad = ~((arr > 0) & (arr <= 1))
    if np.any(bad):
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"p must be probabilities in (0, 1], got p[{i}]={float(arr[i])!r}")
    values, counts = np.unique(arr, return_counts=True)
    return [(float(q), int(c)) for q, c in zip(values, counts, strict=True)]


def _as_int(x, allow_str: bool = False) -> int | None:
    """x as an int when it is integer-valued; None otherwise. Booleans are not counts (JSON
    `true` would count as 1); strings only where JSON forces them (object keys)."""
    if isinstance(x, bool) or (isinstance(x, (str, bytes)) and not allow_str):
        return None
    try:
        f = float(x)
    except (TypeError, ValueError):
        return None
    return int(f) if np.isfinite(f) and f.is_integer() else None


def count_distribution(n: int, p):
    """The distribution of one random classifier's number of correct answers: a
    `BinomialCounts` when all examples share p, else a `PoissonBinomialCounts`. Raises
    ValueError naming n or p when they are not a number of examples >= 1 and its p."""
    n = check_n(n)
    groups = success_groups(n, p)
    if len(groups) == 1:
        return BinomialCounts(n, groups[0][0])
    return PoissonBinomialCounts(n, groups)


def _group_pmf(q: float, m: int) -> tuple[int, np.ndarray, int]:
    """Binomial(m, q) pmf on the k-range where it exceeds CUTOFF * mode, scaled so its max is
    in [0.5, 1): returns (first k, values, binary exponent of the scale)."""
    if m == 1:  # a single example: no need for scipy (many distinct per-example p)
        f = np.array([1.0 - q, q])
    else:
        mu = m * q
        # pmf <= tail probability; beyond this half-width the tail is < CUTOFF / (m + 1),
        # which is below CUTOFF * mode (the mode is >= 1 / (m + 1))
        half = bernstein_halfwidth(m * q * (1 - q), -np.log(CUTOFF) + np.log(m + 1.0), m)
        lo, hi = max(0, int(np.floor(mu - half))), min(m, int(np.ceil(mu + half)))
        f = BinomialCounts(m, q).pmf(np.arange(lo, hi + 1, dtype=float))
        return _trim(lo, f, 0)
    return _trim(0, f, 0)


def _trim(lo: int, f: np.ndarray, exp: int) -> tuple[int, np.ndarray, int]:
    """Rescale f to max in [0.5, 1) by an exact power of two (tracked in `exp`) and drop the
    ends below CUTOFF * max."""
    _, e = np.frexp(f.max())
    f = np.ldexp(f, -int(e))
    keep = np.flatnonzero(f >= CUTOFF)
    return lo + int(keep[0]), f[keep[0] : keep[-1] + 1], exp + int(e)


def _bernoulli_blocks(qs: np.ndarray, block: int = 64) -> list[np.ndarray]:
    """pmfs of sums of `block` Bernoulli(q) at a time, all blocks in one vectorised DP
    (positive updates only, so relative accuracy is kept)."""
    if qs.size == 0:
        return []
    nb = -(-qs.size // block)
    q = np.zeros(nb * block)  # padding with q = 0 adds nothing
    q[: qs.size] = qs
    q = q.reshape(nb, block)
    P = np.zeros((nb, block + 1))
    P[:, 0] = 1.0
    for j in range(block):
        qj = q[:, j : j + 1]
        P[:, 1 : j + 2] = P[:, 1 : j + 2] * (1 - qj) + P[:, : j + 1] * qj
        P[:, 0:1] *= 1 - qj
    return list(P)


class PoissonBinomialCounts:
    """X = sum of independent binomial groups [(p, count)], pmf held on its non-negligible
    support [lo, lo + len(pmf)); cdf/sf at any integer k."""

    def __init__(self, n: int, groups: list[tuple[float, int]]):
        self.n = n
        self.groups = groups
        self.mean = float(sum(q * c for q, c in groups))
        self.var = float(sum(q * (1 - q) * c for q, c in groups))
        # Convolve the two shortest pmfs first (Huffman order): with thousands of distinct
        # per-example p this is a balanced tree, O(n * width) instead of O(n^2) one-by-one.
        singles = np.array([q for q, c in groups if c == 1])
        pieces = [_group_pmf(q, c) for q, c in groups if c > 1]
        pieces += [_trim(0, f, 0) for f in _bernoulli_blocks(singles)]
        heap = [(f.size, i, lo, f, e) for i, (lo, f, e) in enumerate(pieces)]
        heapq.heapify(heap)
        counter = len(heap)
        while len(heap) > 1:
            _, _, lo1, f1, e1 = heapq.heappop(heap)
            _, _, lo2, f2, e2 = heapq.heappop(heap)
            lo, f, e = _trim(lo1 + lo2, np.convolve(f1, f2), e1 + e2)
            heapq.heappush(heap, (f.size, counter, lo, f, e))
            counter += 1
        _, _, lo, pmf, exp = heap[0]
        pmf = np.ldexp(pmf, exp)
        self.lo = lo
        self._pmf = pmf
        # cdf and sf as cumulative sums of positive terms from each end (no 1 - x cancellation)
        self._cdf = np.cumsum(pmf)
        sf = np.cumsum(pmf[::-1])[::-1]
        self._sf = np.append(sf[1:], 0.0)  # P(X > k) = sum_{j > k}

    def _index(self, k: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        k = np.asarray(k, dtype=np.int64)
        i = k - self.lo
        below, above = i < 0, i >= self._pmf.size
        return np.clip(i, 0, self._pmf.size - 1), below, above

    def cdf_sf(self, k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        i, below, above = self._index(k)
        cdf = np.where(below, 0.0, np.where(above, 1.0, self._cdf[i]))
        sf = np.where(below, 1.0, np.where(above, 0.0, self._sf[i]))
        return cdf, sf

    def pmf(self, k: np.ndarray) -> np.ndarray:
        i, below, above = self._index(k)
        return np.where(below | above, 0.0, self._pmf[i])

    def __repr__(self) -> str:
        return f"PoissonBinomialCounts(n={self.n}, groups={self.groups})"
