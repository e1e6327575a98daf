"""Few-shot multiple-choice evaluation of one prompt, in the `baselines` authors' schema.

`evaluate_prompt` scores every evaluated example of a prompt (one shared-prefix cache per
prompt) and returns one row per (example, option): the per-option file. `authors_table`
turns those rows into the authors' per-example schema:

    Prompt ID, Demonstration IDs in prompt, Example ID, Loss of correct answer, Correct prediction

with their rules (gyauney/stronger-random-baselines: few-shot-eval/all-datasets-sampled-few-shot-eval.py, few-shot-eval/tally-results.py): loss = mean negative log-likelihood per
scored token; prediction = the candidate with the lowest loss, ties resolved towards an
incorrect candidate (their tuple sort); rows keyed by Example ID = the within-subtask `idx`,
so examples of different subtasks with the same idx form one group (their argmin runs over
all the group's candidates). "Loss of correct answer" of such a merged group is the loss of
the correct candidate of the group's last example in split order (the authors' released
files do not say which; it is a guess, and it changes no accuracy).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from evalsci.lm.prompts import PromptPlan, few_shot_prefix, query

OPTION_COLUMNS = (
    "Prompt ID",
    "Demonstration IDs in prompt",
    "Example ID",
    "Position",
    "Subtask",
    "Option index",
    "Option",
    "Score",
    "Log-likelihood",
    "Tokens",
    "Cached",
)
PER_EXAMPLE_COLUMNS = (
    "Prompt ID",
    "Demonstration IDs in prompt",
    "Example ID",
    "Loss of correct answer",
    "Correct prediction",
)


def demo_ids(plan: PromptPlan) -> str:
    """The authors' spelling of a demonstration list: "[68, 11, 87, 45]"."""
    return str(list(plan.demos))


def evaluate_prompt(
    scorer,
    examples: Sequence,
    plan: PromptPlan,
    subsample: Sequence[int] | None,
    desc: str | None = None,
) -> pd.DataFrame:
    """One row per (evaluated example, option) of `plan` (see OPTION_COLUMNS)."""
    prefix = few_shot_prefix([examples[p] for p in plan.demos])
    evals = [examples[p] for p in plan.eval_positions(len(examples), subsample)]
    scores = scorer.score([query(e) for e in evals], prefix, desc=desc)
    rows = []
    ids = demo_ids(plan)
    for ex, sc in zip(evals, scores, strict=True):
        for o, choice in enumerate(ex.choices):
            rows.append(
                (
                    plan.prompt_id,
                    ids,
                    ex.idx,
                    ex.position,
                    ex.subtask or "",
                    o,
                    choice,
                    ex.scores[o],
                    sc.sums[o],
                    int(sc.counts[o]),
                    bool(sc.cached[o]),
                )
            )
    return pd.DataFrame(rows, columns=list(OPTION_COLUMNS))


def _with_loss(options: pd.DataFrame) -> pd.DataFrame:
    missing = [c for c in OPTION_COLUMNS if c not in options.columns]
    if missing:
        raise ValueError(f"per-option table lacks columns {missing}")
    df = options.copy()
    with np.errstate(invalid="ignore", divide="ignore"):
        df["loss"] = np.where(
            df["Tokens"] > 0, -df["Log-likelihood"] / df["Tokens"].clip(lower=1), np.inf
        )
    return df


def _best(df: pd.DataFrame) -> pd.DataFrame:
    """The chosen option per (Prompt ID, Example ID): lowest mean loss; a tie goes to the
    lower Score first (the authors' tuple sort: ties count as incorrect)."""
    keys = ["Prompt ID", "Example ID"]
    return (
        df.sort_values(keys + ["loss", "Score"], kind="mergesort").groupby(keys, sort=True).first()
    )


def predictions(options: pd.DataFrame) -> pd.Series:
    """The predicted option index per (Prompt ID, Example ID), as `authors_table` picks it."""
    return _best(_with_loss(options))["Option index"]


def authors_table(options: pd.DataFrame) -> pd.DataFrame:
    """The authors' per-example rows from per-option rows (module docstring)."""
    df = _with_loss(options)
    keys = ["Prompt ID", "Example ID"]
    best = _best(df)
    correct_loss = (
        df[df["Score"] == 1]
        .sort_values(keys + ["Position"], kind="mergesort")
        .groupby(keys, sort=True)["loss"]
        .last()
    )
    out = pd.DataFrame(
        {
            "Demonstration IDs in prompt": best["Demonstration IDs in prompt"],
            "Loss of correct answer": correct_loss.reindex(best.index),
            "Correct prediction": (best["Score"] == 1).astype(int),
        }
    ).reset_index()
    return out[list(PER_EXAMPLE_COLUMNS)]


def prompt_accuracies(per_example: pd.DataFrame) -> list[float]:
    """Per-prompt accuracy (mean Correct prediction), in Prompt ID order."""
    acc = per_example.groupby("Prompt ID", sort=True)["Correct prediction"].mean()
    return [float(a) for a in acc]
