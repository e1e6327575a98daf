"""The baselines study's results as runs tables for study `audit` (evalsci.audit.sources).

Two sources of the audit come from this study's own data, read with its own loaders:
  - `mizrahi_paraphrases`: each model's best instruction paraphrase on each Mizrahi et al.
    task (the Section 5.3 experiments, `section53.experiments`), t = the number of paraphrases;
  - `baselines_prompts`: every prompt of Yauney & Mimno's 288 experiments (Table 1's released
    aggregated accuracies), t = the experiment's number of prompts.
They live here, not in evalsci.audit, so that nothing outside `studies/` imports a study; the
workflow hands the tables to the audit rules as files.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from evalsci.audit.sources import labels_json, runs_frame
from evalsci.data.bigbench_meta import num_choices
from evalsci.maxrandom import correct_count

from . import load, section53
from .settings import eval_size, num_prompts

SOURCES = ("mizrahi_paraphrases", "baselines_prompts")


def mizrahi_runs(bundle: str | Path) -> pd.DataFrame:
    exps = section53.experiments(load.load_multi_prompt(bundle))
    rows = [
        {
            "source": "mizrahi_paraphrases",
            "task": f"{e.suite}/{e.task}",
            "model": e.model,
            "shots": pd.NA,
            "run": e.model,
            "t_kind": "paraphrases",
            "t": int(e.t_paraphrases),
            "n": int(e.n),
            "labels": labels_json({int(e.k): int(e.n)}),
            "correct": correct_count(float(e.max_acc), int(e.n)),
            "accuracy": float(e.max_acc),
        }
        for e in exps.itertuples()
    ]
    return runs_frame(rows)


def prompt_runs(aggregated: str | Path) -> pd.DataFrame:
    rows = []
    for cell, accs in load.load_aggregated(aggregated).items():
        n, k = eval_size(cell.task, cell.shots), num_choices(cell.task)
        t = num_prompts(cell.task, cell.shots, len(accs))
        for i, (c, a) in enumerate(zip(correct_count(accs, n), accs, strict=True)):
            rows.append(
                {
                    "source": "baselines_prompts",
                    "task": cell.task,
                    "model": cell.model,
                    "shots": cell.shots,
                    "run": f"prompt {i}",
                    "t_kind": "prompts",
                    "t": t,
                    "n": n,
                    "labels": labels_json({k: n}),
                    "correct": int(c),
                    "accuracy": float(a),
                }
            )
    return runs_frame(rows)
