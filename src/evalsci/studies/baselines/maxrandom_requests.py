"""Every random baseline this study needs, as one requests table for the `maxrandom` rule.

Tables and figures look their numbers up by key (`keys.py`) in the rule's answer; this
module is the single place that decides which questions are asked.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from evalsci.data.bigbench_meta import num_choices
from evalsci.studies.baselines import claims, curves, heldout, keys, section53, table1
from evalsci.studies.baselines.settings import Cell, eval_size, num_prompts

# Figure 1: the paper's example experiment (OLMo-7B, emoji_movie, 4-shot).
FIGURE1_CELL = Cell("OLMo-7B", "emoji_movie", 4)


def figure1_cell(cells) -> Cell:
    cells = list(cells)
    return FIGURE1_CELL if FIGURE1_CELL in cells else sorted(cells)[0]


def figure1_keys(cell: Cell, prompts: int) -> set[str]:
    n, k = eval_size(cell.task, cell.shots), num_choices(cell.task)
    t = num_prompts(cell.task, cell.shots, prompts)
    return {keys.dist(n, k, t), keys.dist(n, k, 1), keys.emax(n, k, t)}


def build(
    aggregated: dict[Cell, np.ndarray],
    multi_prompt: pd.DataFrame | None = None,
    splits: pd.DataFrame | None = None,
    *,
    section53_t: int | None = None,
) -> pd.DataFrame:
    """Request rows (maxrandom schema) for Table 1, Figures 1-7 and 9-11, Section 5.3, the claims
    ledger and,
    when our own held-out splits are used, Tables 3-4 and Figures 5 and 8.

    `section53_t` (config baselines.section53.t) is required with `multi_prompt`."""
    cells = list(aggregated)
    wanted = table1.request_keys(aggregated)
    wanted |= curves.baseline_curve_keys({c.task for c in cells})
    wanted |= curves.tail_keys(aggregated)
    wanted |= curves.analytic_keys()
    wanted |= claims.request_keys()
    fig1 = figure1_cell(cells)
    wanted |= figure1_keys(fig1, len(aggregated[fig1]))
    if multi_prompt is not None:
        if section53_t is None:
            raise ValueError("Section 5.3 requests need section53_t (config baselines.section53.t)")
        wanted |= section53.request_keys(section53.experiments(multi_prompt, section53_t))
    if splits is not None:
        wanted |= heldout.split_request_keys(splits)
    return keys.to_requests(wanted)
