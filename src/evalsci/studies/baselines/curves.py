"""Expected maximum validation accuracy against t, with the baselines' tail probabilities
(Figures 3, 4, 9-11), and the parameter grids of the analytic Figures 2, 6, 7 and 001's 9.

Appendix B: these figures draw the max random baseline for the dataset's full number of
examples n = min(200, N) (slightly weaker than each setting's exact baseline); 1-shot
curves of tasks with N < 200 stop at t = N, the number of distinct 1-shot prompts.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from evalsci.data.bigbench_meta import num_choices
from evalsci.maxrandom import correct_count
from evalsci.studies.baselines import keys
from evalsci.studies.baselines.dodge import expected_max
from evalsci.studies.baselines.settings import PROMPTS, Cell, display_size, num_prompts

# t values of the curves: every t for the accuracy and baseline lines; tail probabilities
# (one maxrandom request each) on a coarser grid that still draws smooth lines.
CURVE_TS = np.arange(1, PROMPTS + 1)
TAIL_TS = np.unique(np.concatenate([np.arange(1, 21), np.arange(25, PROMPTS + 1, 5)]))

# Figure 2 (p = 1/2) and Figure 6 (p = 1/2 .. 1/5, larger ranges): contours of the
# expected max accuracy over (t, n) on a log grid (quarter decades).
FIG2_NS = np.floor(10 ** (1 + np.arange(13) / 4)).astype(int)  # 10 .. 10,000
FIG2_TS = np.unique(np.concatenate([[1, 2, 3, 5], np.round(10 ** (1 + np.arange(13) / 4))])).astype(
    int
)
FIG6_NS = np.floor(10 ** (1 + np.arange(17) / 4)).astype(int)  # 10 .. 100,000
FIG6_TS = np.unique(np.concatenate([[1, 2, 3, 5], np.round(10 ** (1 + np.arange(17) / 4))])).astype(
    int
)
FIG6_CHOICES = (2, 3, 4, 5)
# Figure 7: tail probability P(max of t >= acc * n) over (n, accuracy).
FIG7_TS = (1, 10, 100, 200)
FIG7_CHOICES = (2, 3, 4, 5)
FIG7_NS = np.unique(np.floor(np.logspace(1, 4, 20)).astype(int))
FIG7_ACCS = np.linspace(0, 1, 51)


def curve_length(cell: Cell, prompts: int = PROMPTS) -> int:
    """Last t drawn for a cell: 200 (all prompts), or N for 1-shot on tasks with N < 200."""
    return num_prompts(cell.task, cell.shots, prompts)


def cell_curve(cell: Cell, accs) -> pd.DataFrame:
    """Per t: Dodge expected max accuracy (and variance) of one cell, the count of correct
    answers it corresponds to on n = min(200, N), and the maxrandom keys it needs."""
    n, k = display_size(cell.task), num_choices(cell.task)
    ts = CURVE_TS[CURVE_TS <= curve_length(cell, len(accs))]
    mean, var = expected_max(accs, ts)
    df = pd.DataFrame({"t": ts, "expected_max_acc": mean, "var": var})
    df["correct"] = correct_count(np.clip(mean, 0, 1), n)
    last = ts.max()
    df["has_tail"] = df["t"].isin(TAIL_TS) | (df["t"] == last)
    df["tail_key"] = [keys.tail(n, k, t, c) for t, c in zip(df["t"], df["correct"], strict=True)]
    return df


# 001's Figure 9: p-value (tail under the max random baseline) against BIG-bench's
# normalized score 100 (acc - p) / (1 - p) for each BBL and BBH task, at its (n, k) from
# the authors' task constants. The extracted paper text lost the values of t; t = 1 (one
# evaluation, the standard baseline), 10 (Section 5.3's t) and 200 (Table 1's prompts).
FIG9_001_TS = (1, 10, 200)
FIG9_001_SCORES = np.arange(0, 101)


def normalized_score_counts(n: int, k: int, scores=FIG9_001_SCORES) -> np.ndarray:
    """Correct counts of each normalized score on a task of n examples with k choices."""
    p = 1 / k
    return correct_count(np.clip(p + np.asarray(scores) / 100 * (1 - p), 0, 1), n)


def figure9_001_keys() -> set[str]:
    from evalsci.data.bigbench_meta import BBH_TASKS, BBL_TASKS

    return {
        keys.tail(n, k, t, int(c))
        for n, k in (*BBL_TASKS.values(), *BBH_TASKS.values())
        for t in FIG9_001_TS
        for c in np.unique(normalized_score_counts(n, k))
    }


def tail_keys(aggregated: dict[Cell, np.ndarray]) -> set[str]:
    out: set[str] = set()
    for cell, accs in aggregated.items():
        df = cell_curve(cell, accs)
        out.update(df.loc[df["has_tail"], "tail_key"])
    return out


def baseline_curve_keys(tasks) -> set[str]:
    return {keys.emax(display_size(task), num_choices(task), t) for task in tasks for t in CURVE_TS}


def analytic_keys() -> set[str]:
    """Figures 2, 6 (expected max grids) and 7 (tail grid)."""
    out = {keys.emax(n, 2, t) for n in FIG2_NS for t in FIG2_TS}
    out |= {keys.emax(n, k, t) for k in FIG6_CHOICES for n in FIG6_NS for t in FIG6_TS}
    for n in FIG7_NS:
        counts = np.unique(correct_count(FIG7_ACCS, n))
        out |= {keys.tail(n, k, t, c) for k in FIG7_CHOICES for t in FIG7_TS for c in counts}
    return out | figure9_001_keys()
