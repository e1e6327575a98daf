"""The one rule by which every claim of the four papers gets its verdict (the claims ledger,
evalsci.claims; docs/reproducibility.md, "Ours vs the paper").

`judge` (a number against the paper's print), `judge_bound` (a bound), `judge_test` (a
qualitative claim with its stated test, level and family) and `untestable` return a `Verdict`:
one of VERDICTS (matches, within_noise, differs with its tested cause, differs_unexplained,
untestable_here). For ours x with standard error s and the paper's y printed to d decimals
(its own standard error t where it gives one), h = 0.5 10^-d the half-unit of the paper's
rounding and K = 2:

- **matches**: ours is exact (s = t = 0) and |x - y| <= h;
- **within_noise**: |x - y| <= h + K sqrt(s^2 + t^2), or y inside ours' interval widened by h;
- **differs** (with a cause: the test that shows why) or **differs_unexplained**: otherwise.

Each comparison is a screen at about 95% (K = 2) on its own: no multiplicity correction across
rows, so about 1 in 20 true agreements with a stated s reads "differs" by chance. Numbers
without any uncertainty (counts and exact arithmetic on released data) have s = 0, and then
"within_noise" cannot occur: they match the paper's print or differ.

`verdict` and `verdict_bound` (three labels with a space, Z = 1.96) are deprecated wrappers
over `judge`/`judge_bound` for the doc blocks not yet rendered from a ledger.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist  # not scipy.stats: the ledger is imported by light jobs

__all__ = [
    "LEVEL",
    "Z",
    "K",
    "VERDICTS",
    "OUTCOMES",
    "Verdict",
    "judge",
    "judge_bound",
    "judge_test",
    "untestable",
    "verdict",
    "verdict_bound",
    "half_unit",
]

LEVEL = 0.95
Z = NormalDist().inv_cdf(0.5 + LEVEL / 2)
#: the claims ledger's verdicts (issue 42): the one rule's outcomes
VERDICTS = ("matches", "within_noise", "differs", "differs_unexplained", "untestable_here")
#: the ledger's noise band: |ours - paper| within K combined standard errors (about 95%)
K = 2.0
#: what a stated test of a qualitative claim found on ours
OUTCOMES = ("supports", "contradicts", "inconclusive")


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
    """Deprecated (the blocks that still call it move to their study's claims ledger): the
    older three labels with a space, on a band of Z = 1.96 combined SE. A wrapper over
    `judge` (its SE scaled by Z / K), kept so that the blocks' output does not change until
    they render the ledger; it says "matches" for a noisy number on the paper's print."""
    if se < 0 or paper_se < 0:
        raise ValueError("verdict: standard errors must be >= 0")
    scale = Z / K
    v = judge(ours, paper, se=se * scale, paper_se=paper_se * scale, paper_decimals=paper_decimals)
    if v.verdict in ("differs", "differs_unexplained"):
        return "differs"
    exact = judge(ours, paper, paper_decimals=paper_decimals).verdict == "matches"
    return "matches" if exact else "within noise"


def verdict_bound(ours: float, bound: float, side: str, *, se: float = 0.0) -> str:
    """Deprecated, as `verdict`: "value `side` bound" on ours +- Z se, a wrapper over
    `judge_bound`: beyond the bound by more than Z se "matches", on the wrong side by more
    than Z se "differs", else "within noise"."""
    if side not in (">", "<"):
        raise ValueError(f"verdict_bound: side must be '>' or '<', got {side!r}")
    v = judge_bound(ours, bound, side, se=se * Z / K)
    if v.verdict in ("differs", "differs_unexplained"):
        return "differs"
    margin = (ours - bound) if side == ">" else (bound - ours)
    return "matches" if margin > Z * se else "within noise"


@dataclass(frozen=True)
class Verdict:
    """One claim's verdict (one of VERDICTS), its cause (the test that shows why ours differs,
    or what would test an untestable claim) and the rule that decided it."""

    verdict: str
    cause: str = ""
    test: str = ""


def _differs(cause: str | None, test: str) -> Verdict:
    if cause:
        return Verdict("differs", cause, test)
    return Verdict("differs_unexplained", "", test)


def _finite(name: str, v) -> float:
    if v is None or isinstance(v, bool) or not math.isfinite(v):
        raise ValueError(f"judge: {name} must be a finite number, got {v!r}")
    return float(v)


def judge(
    ours: float,
    paper: float,
    *,
    se: float = 0.0,
    paper_se: float = 0.0,
    paper_decimals: int | None = None,
    interval: tuple[float, float] | None = None,
    cause: str | None = None,
) -> Verdict:
    """The one rule for a number: ours (standard error `se`, or an `interval`) against the
    paper's value printed to `paper_decimals` (its own standard error `paper_se`, if given).

    With h half a unit of the paper's last printed digit (0 for an exact count):
    - **matches**: ours is exact (no se, no paper_se, no interval) and |ours - paper| <= h;
    - **within_noise**: |ours - paper| <= h + K sqrt(se^2 + paper_se^2) (K = 2), or the
      paper's value lies in ours' interval widened by h;
    - **differs** with `cause` (the test that shows why), else **differs_unexplained**.
    """
    ours, paper = _finite("ours", ours), _finite("paper", paper)
    se, paper_se = _finite("se", se), _finite("paper_se", paper_se)
    if se < 0 or paper_se < 0:
        raise ValueError("judge: standard errors must be >= 0")
    h = half_unit(paper_decimals)
    gap = abs(ours - paper)
    tol = 1e-9 * max(1.0, abs(paper))  # float slack: 0.475 - 0.47 is 0.0050000000000000044
    if interval is not None:
        low, high = (_finite("interval", v) for v in interval)
        if low > high:
            raise ValueError(f"judge: interval {interval} has low > high")
        rule = "paper in ours' interval (widened by the paper's rounding)"
        if low - h - tol <= paper <= high + h + tol:
            return Verdict("within_noise", "", rule)
        return _differs(cause, rule)
    if se == 0 and paper_se == 0:
        rule = "ours rounds to the paper's print" if h else "ours equals the paper's"
        return Verdict("matches", "", rule) if gap <= h + tol else _differs(cause, rule)
    rule = f"|ours - paper| <= h + {K:g} combined SE"
    if gap <= h + K * math.hypot(se, paper_se) + tol:
        return Verdict("within_noise", "", rule)
    return _differs(cause, rule)


def judge_bound(
    ours: float, bound: float, side: str, *, se: float = 0.0, cause: str | None = None
) -> Verdict:
    """The paper's claim "value `side` bound" (side '>' or '<') on ours +- K se: on the claimed
    side by more than K se (or exactly, with no se): matches if exact else within_noise; on the
    wrong side by more than K se: differs; else within_noise."""
    if side not in (">", "<"):
        raise ValueError(f"judge_bound: side must be '>' or '<', got {side!r}")
    ours, bound, se = _finite("ours", ours), _finite("bound", bound), _finite("se", se)
    margin = (ours - bound) if side == ">" else (bound - ours)
    rule = f"ours {side} {bound:g}" + (f" by more than {K:g} SE" if se else " (exact)")
    if margin > K * se:
        return Verdict("matches" if se == 0 else "within_noise", "", rule)
    if margin < -K * se or se == 0:
        return _differs(cause, rule)
    return Verdict("within_noise", "", rule)


def judge_test(outcome: str, *, exact: bool, test: str, cause: str | None = None) -> Verdict:
    """A qualitative claim (a direction, a tally, "plateaus by 8") decided by a stated test on
    ours. `test` states it: the test, its level and its multiplicity family.

    - `supports` (the test reaches the paper's conclusion): matches when ours is exact (the
      paper's own data, deterministic), else within_noise;
    - `contradicts` (the opposite is shown at the level, or, for exact data, the claim is
      false on them): differs / differs_unexplained;
    - `inconclusive` (noisy ours, neither shown): within_noise, since ours does not reject
      the paper's claim; the row's `ours` says it is inconclusive.
    """
    if outcome not in OUTCOMES:
        raise ValueError(f"judge_test: outcome must be one of {OUTCOMES}, got {outcome!r}")
    if not test.strip():
        raise ValueError("judge_test: state the test, its level and its family")
    if outcome == "supports":
        return Verdict("matches" if exact else "within_noise", "", test)
    if outcome == "contradicts" or exact:
        return _differs(cause, test)
    return Verdict("within_noise", "", test)


def untestable(what_would_test_it: str) -> Verdict:
    """A claim this machine cannot test, with what would (scale, data or hardware, and an
    estimate of its cost)."""
    if not what_would_test_it.strip():
        raise ValueError("untestable: say what would test the claim")
    return Verdict("untestable_here", what_would_test_it, "")
