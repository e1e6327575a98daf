"""The number of correct guesses of ONE random classifier when examples differ in their
success probability (paper Appendix A): X ~ Poisson binomial, a sum of independent Bernoulli(p_i).

Examples with the same p form a binomial group, so X is a convolution of a few binomials
(the dict form {number of labels: number of examples} has one group per label count). Each
group's pmf comes from scipy (relative-accurate); the convolution is done directly
(`np.convolve`, sums of positive products), not by FFT, so the pmf keeps its RELATIVE accuracy
in the tails, and cdf/sf are cumulative sums of positive terms from either end.

Entries below `CUTOFF` times a group's mode are dropped to keep the convolution short, and the
pmf itself leaves the normal double range near 1e-308; so a cdf or sf value below `FAR_TAIL` is
computed again by exponential tilting (`_tilted_tail`): the distribution re-weighted by e^(theta x)
so that its mean sits at the tail's edge, where its pmf is again of order 1 and relative-exact,
and the tail is log M(theta) - theta k + log(a short sum of positive terms), all in log space.
That identity holds for any theta, so theta need not be exact; the result is relative-exact
(about 1e-13, tested against rational arithmetic) down to the smallest normal double, and only
values below that underflow (to a subnormal or 0).
"""

from __future__ import annotations

import heapq
import math
import numbers
from collections.abc import Mapping

import numpy as np

from ._bounds import bernstein_halfwidth
from ._checks import check_n, check_probability
from .binomial import BinomialCounts

#: relative level (to a group's mode) below which pmf entries are dropped before convolving
CUTOFF = 1e-200
#: cdf/sf values below this are recomputed in log space by tilting (`_tilted_tail`): well above
#: where CUTOFF truncation starts to matter (~1e-190), far below anything an expected maximum
#: needs (~1e-35 for t = 1e12), so only far-tail p-values pay for it
FAR_TAIL = 1e-150


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
        k = np.asarray(k, dtype=np.int64)
        i, below, above = self._index(k)
        cdf = np.where(below, 0.0, np.where(above, 1.0, self._cdf[i]))
        sf = np.where(below, 1.0, np.where(above, 0.0, self._sf[i]))
        # far tails (and the truncated support beyond lo .. lo + len(pmf)): in log space
        for out, upper in ((cdf, False), (sf, True)):
            out = np.atleast_1d(out)  # a view: writes reach cdf / sf
            kk = np.broadcast_to(k, out.shape)
            for j in np.flatnonzero(out < FAR_TAIL):
                out.flat[j] = _tilted_tail(self.groups, self.n, int(kk.flat[j]), upper)
        return cdf, sf

    def pmf(self, k: np.ndarray) -> np.ndarray:
        i, below, above = self._index(k)
        return np.where(below | above, 0.0, self._pmf[i])

    def __repr__(self) -> str:
        return f"PoissonBinomialCounts(n={self.n}, groups={self.groups})"


def _log_mgf(groups, theta: float) -> float:
    """log E[e^(theta X)] = sum of count * log(1 - q + q e^theta), without overflow."""
    if theta > 0:  # factor e^theta out: 1 - q + q e^theta = e^theta (q + (1 - q) e^-theta)
        return sum(c * (theta + math.log(q + (1 - q) * math.exp(-theta))) for q, c in groups)
    return sum(c * math.log1p(q * math.expm1(theta)) for q, c in groups)


def _tilted_mean(groups, theta: float) -> float:
    return sum(c * q / (q + (1 - q) * math.exp(-theta)) for q, c in groups)


def _tilted_tail(groups, n: int, k: int, upper: bool) -> float:
    """P(X > k) (upper) or P(X <= k), relative-exact in the far tail.

    With X_theta the tilt of X (pmf P(X = j) e^(theta j) / M(theta): independent binomial
    groups with q' = q e^theta / (1 - q + q e^theta)), for any theta
        P(X >= j0) = M(theta) e^(-theta j0) * sum_{j >= j0} P(X_theta = j) e^(-theta (j - j0)).
    theta is chosen so that X_theta's mean is j0: its pmf there is of order 1/sd and computed
    relative-exactly by the same convolution, and the sum's terms decay geometrically."""
    j0 = k + 1 if upper else k  # the tail's edge: X >= j0, or X <= j0
    if upper and j0 <= 0 or not upper and j0 >= n:
        return 1.0
    if upper and j0 > n or not upper and j0 < 0:
        return 0.0
    if upper and j0 == n or not upper and j0 == 0:  # one outcome: all right, or all wrong
        factors = [(q if upper else 1 - q, c) for q, c in groups]
        if min(f for f, _ in factors) <= 0.0:  # an item always right (q = 1) or always wrong
            return 0.0
        return math.exp(sum(c * math.log(f) for f, c in factors))
    theta = _solve_theta(groups, float(j0))
    tilted = [(_tilt(q, theta), c) for q, c in groups]
    pb = PoissonBinomialCounts(n, tilted)  # one group or several: the same convolution
    f, lo = pb._pmf, pb.lo
    j = np.arange(lo, lo + f.size)
    side = j >= j0 if upper else j <= j0
    w = f[side] * np.exp(-theta * (j[side] - j0))
    total = float(np.sum(w))
    if total <= 0.0:
        return 0.0
    return math.exp(_log_mgf(groups, theta) - theta * j0 + math.log(total))


def _tilt(q: float, theta: float) -> float:
    """q e^theta / (1 - q + q e^theta), without overflow."""
    return q / (q + (1 - q) * math.exp(-theta)) if q < 1 else 1.0


def _solve_theta(groups, target: float) -> float:
    """theta with tilted mean = target (0 < target < n), by bisection on log scale: the mean is
    increasing in theta. Precision is not needed (the tail identity holds for any theta)."""
    lo, hi = -1.0, 1.0
    while _tilted_mean(groups, lo) > target:
        lo *= 2
    while _tilted_mean(groups, hi) < target:
        hi *= 2
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if _tilted_mean(groups, mid) < target:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)
