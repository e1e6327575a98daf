"""Multiplicity corrections shared by the studies' verdicts."""

from __future__ import annotations

import numpy as np

__all__ = ["holm"]

#: families at least this large are adjusted over their distinct p-values (`_holm_distinct`)
_DISTINCT_FROM = 1 << 14


def holm(p) -> np.ndarray:
    """Holm's step-down adjusted p-values: max over j <= i of min(1, (m - j + 1) p_(j))."""
    p = np.asarray(p, dtype=float)
    m = p.size
    if m == 0:
        return p
    if m >= _DISTINCT_FROM:
        return _holm_distinct(p)
    # the order of tied p-values does not matter, so no stable sort (4x slower on a million):
    # a tie block at sorted positions i.. has its largest step (m - i) p first, and the running
    # maximum gives every member max(before, that step); NaNs sort last either way
    order = np.argsort(p)
    stepped = np.minimum(1.0, (m - np.arange(m)) * p[order])
    out = np.empty(m)
    out[order] = np.maximum.accumulate(stepped)
    return out


def _holm_distinct(p: np.ndarray) -> np.ndarray:
    """`holm` by a hash of the p-values instead of a sort of all of them: a large family
    (an audit's million scores) holds few distinct p-values (one per task and count), and by
    the tie argument above every member of a tie block starting at sorted position i gets
    max(before, (m - i) p). So the distinct values are sorted, each block's start is the count
    of the values below it, and the same products and running maximum give the same bits."""
    import pandas as pd

    codes, uniq = pd.factorize(p, use_na_sentinel=False)  # NaN one value, sorted last below
    counts = np.bincount(codes, minlength=len(uniq))
    order = np.argsort(uniq)
    start = np.cumsum(counts[order]) - counts[order]
    stepped = np.minimum(1.0, (p.size - start) * uniq[order])
    adjusted = np.empty(len(uniq))
    adjusted[order] = np.maximum.accumulate(stepped)
    return adjusted[codes]
