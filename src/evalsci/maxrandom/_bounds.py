"""Concentration bounds that decide which k-range must be computed explicitly."""

from __future__ import annotations

import math


def bernstein_halfwidth(var: float, log_inv_eps: float, n: int | None = None) -> float:
    """x such that P(|X - E X| >= x) <= exp(-log_inv_eps) on each side, for X a sum of
    independent Bernoulli variables with total variance `var` (Bernstein's inequality,
    |X_i - p_i| <= 1: P(X - mu >= x) <= exp(-x^2 / (2 (var + x/3)))). With `n` given, also
    Hoeffding's exp(-2 x^2 / n), whichever is tighter."""
    L = float(log_inv_eps)
    x = L / 3.0 + math.sqrt(L * L / 9.0 + 2.0 * L * var)
    if n is not None:
        x = min(x, math.sqrt(n * L / 2.0))
    return x
