"""The one rule by which every "ours vs the paper" block says matches / within noise / differs.

For a number (ours x with standard error s, the paper's y printed to d decimals, with its own
standard error t where the paper gives one):

- **matches**: x rounds to the paper's printed value, |x - y| <= h, with h = 0.5 10^-d the
  half-unit of the paper's rounding (so a number the paper printed as 0.47 matches anything in
  [0.465, 0.475]);
- **within noise**: otherwise, |x - y| <= h + z sqrt(s^2 + t^2), with z the two-sided normal
  quantile at LEVEL (0.95): the rounding interval widened by the combined uncertainty;
- **differs**: otherwise.

A claim that a number lies beyond a bound (the paper's "all p-values > 0.5") is judged the
same way against the bound: ours on the claimed side by more than z s is "matches", on the
wrong side by more than z s is "differs", else "within noise".

Each comparison is a screen at LEVEL on its own: no multiplicity correction across a doc's
blocks, so about 1 in 20 true agreements with a stated s reads "differs" by chance. Numbers
without any uncertainty (counts and exact arithmetic on released data) have s = 0, and then
"within noise" cannot occur: they match the paper's print or differ.
"""

from __future__ import annotations

import math

from scipy.stats import norm

__all__ = ["LEVEL", "Z", "VERDICTS", "verdict", "verdict_bound", "half_unit"]

LEVEL = 0.95
Z = float(norm.ppf(0.5 + LEVEL / 2))
VERDICTS = ("matches", "within noise", "differs")


def half_unit(decimals: int | None) -> float:
    """Half a unit in the last printed place (0 when the paper's value is exact)."""
    return 0.0 if decimals is None else 0.5 * 10.0 ** (-int(decimals))


def verdict(
    ours: float,
    paper: float,
    *,
    se: float = 0.0,
    paper_se: float = 0.0,
    paper_decimals: int | None = None,
) -> str:
    """matches / within noise / differs for ours against the paper's printed number."""
    for name, v in (("ours", ours), ("paper", paper), ("se", se), ("paper_se", paper_se)):
        if v is None or not math.isfinite(v):
            raise ValueError(f"verdict: {name} must be a finite number, got {v!r}")
    if se < 0 or paper_se < 0:
        raise ValueError("verdict: standard errors must be >= 0")
    h = half_unit(paper_decimals)
    gap = abs(ours - paper)
    # a relative 1e-9 slack: 0.475 - 0.47 is 0.0050000000000000044 in floats
    tol = 1e-9 * max(1.0, abs(paper))
    if gap <= h + tol:
        return "matches"
    if gap <= h + Z * math.hypot(se, paper_se) + tol:
        return "within noise"
    return "differs"


def verdict_bound(ours: float, bound: float, side: str, *, se: float = 0.0) -> str:
    """The paper's claim "value `side` bound" (side '>' or '<') judged on ours +- z se."""
    if side not in (">", "<"):
        raise ValueError(f"verdict_bound: side must be '>' or '<', got {side!r}")
    margin = (ours - bound) if side == ">" else (bound - ours)
    if margin > Z * se:
        return "matches"
    if margin < -Z * se:
        return "differs"
    return "within noise"
