"""Few-shot BIG-bench prompts as the `baselines` authors built them (gyauney/stronger-random-baselines, few-shot-eval/all-datasets-sampled-few-shot-eval.py).

- a demonstration is `f"{inputs} {correct_choice}\\n"` (the example's formatted input, a
  space, its correct answer, a newline); the prefix of a prompt is its K demonstrations
  concatenated; each candidate is `prefix + inputs + " " + choice`;
- prompt plans: for tasks with N <= 200 examples, K demonstration positions
  `random.sample(range(N), K)` and every other example is evaluated; for larger tasks the
  fixed 200-example subsample is evaluated and the K demonstrations are drawn from the
  remaining positions;
- where the authors' per-example CSV of a setting is available, `released_plans` rebuilds
  exactly their prompts from its `Demonstration IDs in prompt` column.

Examples are duck-typed: anything with `position`, `idx`, `inputs`, `choices`, `scores`
and `correct_choice` (evalsci.data.bigbench.Example).
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from evalsci.lm.scoring import Query

SUBSAMPLE = 200


def demonstration(ex) -> str:
    """One demonstration: input, a space, the correct answer, a newline."""
    return f"{ex.inputs} {ex.correct_choice}\n"


def few_shot_prefix(demos: Sequence) -> str:
    return "".join(demonstration(ex) for ex in demos)


def query(ex) -> Query:
    """The example as a scoring query: context = its inputs, options = " " + each choice."""
    return Query(ex.inputs, tuple(" " + c for c in ex.choices))


@dataclass(frozen=True)
class PromptPlan:
    prompt_id: int
    demos: tuple[int, ...]  # positions in the task's 'default' split
    source: str  # "released" (rebuilt from the authors' CSV) or "random" (seeded draw)

    def eval_positions(self, n_examples: int, subsample: Sequence[int] | None) -> list[int]:
        """Positions evaluated with this prompt (the subsample, or all but the demos)."""
        if subsample is not None:
            return list(subsample)
        d = set(self.demos)
        return [p for p in range(n_examples) if p not in d]


def random_plans(
    n_examples: int, shots: int, num_prompts: int, subsample: Sequence[int] | None, seed: int
) -> list[PromptPlan]:
    """`num_prompts` prompts drawn as the authors did, from a seeded `random.Random`."""
    rng = random.Random(seed)
    if subsample is None:
        pool = list(range(n_examples))
    else:
        s = set(subsample)
        pool = [p for p in range(n_examples) if p not in s]
    if len(pool) < shots:
        raise ValueError(f"{len(pool)} candidate demonstrations for {shots} shots")
    return [PromptPlan(i, tuple(rng.sample(pool, shots)), "random") for i in range(num_prompts)]


def released_plans(per_example_csv: str | Path) -> list[PromptPlan]:
    """The authors' prompts of one setting, from their per-example CSV (sorted by Prompt ID)."""
    import pandas as pd

    cols = ["Prompt ID", "Demonstration IDs in prompt"]
    try:
        df = pd.read_csv(per_example_csv, usecols=cols)
    except ValueError as e:
        raise ValueError(f"{per_example_csv}: needs columns {cols}: {e}") from None
    df = df.drop_duplicates("Prompt ID").sort_values("Prompt ID")
    return [
        PromptPlan(int(p), tuple(int(x) for x in json.loads(d)), "released")
        for p, d in zip(df["Prompt ID"], df["Demonstration IDs in prompt"], strict=True)
    ]


def check_plan(
    plan: PromptPlan, n_examples: int, shots: int, subsample: Sequence[int] | None
) -> None:
    """A plan's demonstrations must be K distinct valid positions outside the evaluated set."""
    if len(plan.demos) != shots or len(set(plan.demos)) != shots:
        raise ValueError(f"prompt {plan.prompt_id}: {plan.demos} are not {shots} distinct demos")
    if any(not 0 <= d < n_examples for d in plan.demos):
        raise ValueError(f"prompt {plan.prompt_id}: demo position outside 0..{n_examples - 1}")
    if subsample is not None and set(plan.demos) & set(subsample):
        raise ValueError(f"prompt {plan.prompt_id}: a demonstration is in the evaluated subsample")
