"""Multiplicity control for the audit: one place for the corrections `evalsci audit` applies,
to its verdicts (`--adjust` across the rows of the output) and to `--compare`'s tests.

  none   the raw p-values (each verdict a test at level alpha on its own);
  holm   Holm's step-down adjusted p-values (family-wise error at most alpha);
  bh     Benjamini-Hochberg's step-up adjusted p-values (false discovery rate at most alpha),
         scipy.stats.false_discovery_control.

A test is significant when its adjusted p-value is below alpha (strictly: a p-value equal to
alpha is not evidence at level alpha).
"""

from __future__ import annotations

import numpy as np

from evalsci.stats.multiple import holm  # one Holm for the audit and the studies

ADJUST = ("none", "holm", "bh")


def check_adjust(method: str) -> str:
    if method not in ADJUST:
        raise ValueError(f"--adjust must be one of {', '.join(ADJUST)}, got {method!r}")
    return method


def check_alpha(alpha) -> float:
    if isinstance(alpha, bool) or not 0 < float(alpha) < 1:
        raise ValueError(f"--alpha must be in (0, 1), got {alpha!r}")
    return float(alpha)


def adjust(p: np.ndarray, method: str) -> np.ndarray:
    """Adjusted p-values of the family `p` (every entry one test) by `method` (ADJUST)."""
    check_adjust(method)
    p = np.asarray(p, dtype=float)
    if method == "none" or p.size == 0:
        return p.copy()
    if method == "holm":
        return holm(p)
    from scipy.stats import false_discovery_control

    return false_discovery_control(p, method="bh")


def significant(p_adjusted: np.ndarray, alpha: float) -> np.ndarray:
    """Whether each adjusted p-value is evidence at level alpha (p < alpha)."""
    return np.asarray(p_adjusted) < alpha
