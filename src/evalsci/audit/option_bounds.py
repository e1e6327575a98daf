"""Exact bounds on both baselines where only the least and most options per item are known.

A reader that knows a task's items have between a and b options, not which has how many
(`readers/option_counts.py`), reads the score at a options each: the upper bounds of the
standard and max random baselines, since both grow with each item's chance 1/k, so the tests
above chance are conservative. The test below chance is taken at b options each instead
(`below_at`, judge.audit_frame), its conservative end. Here, once t is known, the lower bounds
(every item at b options) are computed and both are written in the score's note, so the row
says how far the true baselines can lie below the ones it used.
"""

from __future__ import annotations

import pandas as pd

from evalsci.maxrandom import max_random_baseline, standard_baseline

from .records import Result


def bounds(n: int, least: int, most: int, t: float) -> tuple[float, float, float, float]:
    """(standard low, standard high, max low, max high) over every mix of `least` to `most`
    options per item: the extremes are all items at `most` (low) and at `least` (high)."""
    lo, hi = {int(most): int(n)}, {int(least): int(n)}
    return (
        standard_baseline(n, lo),
        standard_baseline(n, hi),
        float(max_random_baseline(n, lo, t)),
        float(max_random_baseline(n, hi, t)),
    )


def below_at(results: list[Result]) -> dict[int, int]:
    """{row: most options} for the results whose options per item are known only as a range
    (rows in the order of `results`, which come first in the judged frame)."""
    return {i: r.options_range[1] for i, r in enumerate(results) if r.options_range is not None}


def annotate(results: list[Result], judged: pd.DataFrame) -> pd.DataFrame:
    """`judged` (its first rows are `results`) with the bounds in the note of every score whose
    options per item are known only as a range."""
    marked = [(i, r) for i, r in enumerate(results) if r.options_range is not None]
    if not marked:
        return judged
    judged = judged.copy()
    notes = judged["note"].astype(object).to_numpy().copy()
    for i, r in marked:
        least, most = r.options_range
        s_lo, s_hi, m_lo, m_hi = bounds(r.n, least, most, float(judged["t"].iloc[i]))
        text = (
            f"exact bounds over {least} to {most} options per item: standard baseline "
            f"{s_lo:.4g} to {s_hi:.4g}, max baseline {m_lo:.4g} to {m_hi:.4g}; p_below at "
            f"{most} options each (its conservative end)"
        )
        notes[i] = f"{notes[i]}; {text}" if notes[i] else text
    judged["note"] = notes
    return judged
