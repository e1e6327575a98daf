"""Multiplicity corrections shared by the studies' verdicts."""

from __future__ import annotations

import numpy as np

__all__ = ["holm"]


def holm(p) -> np.ndarray:
    """Holm's step-down adjusted p-values: max over j <= i of min(1, (m - j + 1) p_(j))."""
    p = np.asarray(p, dtype=float)
    m = p.size
    if m == 0:
        return p
    # the order of tied p-values does not matter, so no stable sort (4x slower on a million):
    # a tie block at sorted positions i.. has its largest step (m - i) p first, and the running
    # maximum gives every member max(before, that step); NaNs sort last either way
    order = np.argsort(p)
    stepped = np.minimum(1.0, (m - np.arange(m)) * p[order])
    out = np.empty(m)
    out[order] = np.maximum.accumulate(stepped)
    return out
