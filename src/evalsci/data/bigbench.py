"""BIG-bench JSON tasks as the Hugging Face `bigbench` dataset's 'default' split gives them.

The `baselines` authors loaded tasks with `datasets.load_dataset("bigbench", task,
split="default")` (the HF script over BIG-bench's seqio bridge). This module rebuilds that
split from the task JSON files alone (bundle `bigbench`), as the authors' few-shot-eval/all-datasets-sampled-few-shot-eval.py
(gyauney/stronger-random-baselines) loads it:

- tasks with subtasks: subtasks in alphabetical order (the order of `subtask_names`), each
  subtask's examples in file order; `idx` restarts at 0 in every subtask, while the
  *position* in the split runs over the whole task;
- duplicate examples (identical JSON) are dropped, keeping the first;
- `inputs` = task_prefix + example_input_prefix (default "\\nQ: ") + input
  + (if append_choices_to_input, default true) choice_prefix (default "\\n  choice: ")
  joined over the sorted choices permuted by one `numpy.random.RandomState(42)` per
  (sub)task file, drawn in example order + example_output_prefix (default "\\nA: "),
  then `.strip()`;
- `multiple_choice_targets` = keys of `target_scores` in JSON order (stripped), scores = values;
  `targets` = [the first key with the maximal score] unless the example has `target`.

Assumption we cannot check offline: duplicates are dropped *before* the choice permutation
draws (so a dropped duplicate consumes no draw). This only matters for the two tasks with
duplicates (strategyqa and winowhy, neither appends choices), so no `inputs` depends on it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

# De-duplicated example counts of the 16 BIG-bench Lite tasks of the `baselines` study
# (the authors' dataset_constants.py, gyauney/stronger-random-baselines).
TASK_SIZES = {
    "bbq_lite_json": 16076,
    "code_line_description": 60,
    "conceptual_combinations": 103,
    "emoji_movie": 100,
    "formal_fallacies_syllogisms_negation": 14200,
    "hindu_knowledge": 175,
    "known_unknowns": 46,
    "language_identification": 10000,
    "logical_deduction": 1500,
    "novel_concepts": 32,
    "play_dialog_same_or_different": 3264,
    "strange_stories": 174,
    "strategyqa": 2289,
    "symbol_interpretation": 990,
    "vitaminc_fact_verification": 54668,
    "winowhy": 2862,
}
TASKS = tuple(sorted(TASK_SIZES))


class BigBenchError(ValueError):
    """A task JSON is missing or malformed."""


@dataclass(frozen=True)
class Example:
    position: int  # row in the 'default' split (the authors' demonstration IDs)
    idx: int  # HF `idx`: position within its subtask (the authors' Example ID)
    subtask: str | None
    inputs: str
    choices: tuple[str, ...]  # multiple_choice_targets
    scores: tuple[int, ...]  # multiple_choice_scores
    targets: tuple[str, ...]

    @property
    def correct_choice(self) -> str:
        """The answer a demonstration shows: the first choice with the top score."""
        return self.choices[int(np.argmax(self.scores))]


def _load_json(path: Path, what: str = "BIG-bench task file"):
    """A JSON file of a fetched bundle, checked against the bundle's SHA256SUMS first; any
    failure names the file."""
    from evalsci.data.released import ReleasedDataError, verify_file

    try:
        verify_file(path)
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except FileNotFoundError:
        raise BigBenchError(f"{what} missing: {path}") from None
    except json.JSONDecodeError as e:
        raise BigBenchError(f"{what} {path} is not valid JSON: {e}") from None
    except ReleasedDataError as e:
        raise BigBenchError(str(e)) from None
    except (OSError, UnicodeDecodeError) as e:
        raise BigBenchError(f"cannot read {path}: {type(e).__name__}: {e}") from e


def _dedup(examples: list[dict]) -> list[dict]:
    seen, out = set(), []
    for ex in examples:
        key = json.dumps(ex)
        if key not in seen:
            seen.add(key)
            out.append(ex)
    return out


def _format(data: dict, path: Path, subtask: str | None, start: int) -> list[Example]:
    if "examples" not in data:
        raise BigBenchError(f"{path}: no 'examples' key")
    task_prefix = str(data.get("task_prefix", ""))
    input_prefix = data.get("example_input_prefix", "\nQ: ")
    output_prefix = data.get("example_output_prefix", "\nA: ")
    choice_prefix = data.get("choice_prefix", "\n  choice: ")
    append = data.get("append_choices_to_input", True)
    rng = np.random.RandomState(42)
    out = []
    for idx, ex in enumerate(_dedup(data["examples"])):
        if "target_scores" not in ex:
            raise BigBenchError(f"{path}: example {idx} has no target_scores (not multiple choice)")
        ts = ex["target_scores"]
        text = ex["input"]
        if append:
            permuted = rng.permutation(sorted(ts))
            text = text + choice_prefix + choice_prefix.join(permuted)
        if "target" in ex:
            tgt = ex["target"] if isinstance(ex["target"], list) else [ex["target"]]
        else:
            top = max(ts.values())
            tgt = [next(k for k, v in ts.items() if v == top)]
        inputs = (task_prefix + input_prefix + text + output_prefix).strip()
        out.append(
            Example(
                position=start + idx,
                idx=idx,
                subtask=subtask,
                inputs=inputs,
                choices=tuple(k.strip() for k in ts),
                scores=tuple(int(v) for v in ts.values()),
                targets=tuple(str(t).strip() for t in tgt),
            )
        )
    return out


def subtask_names(task: str, root: str | Path) -> list[str]:
    """Alphabetical subtask directory names of a task (empty when it has none)."""
    d = Path(root) / "benchmark_tasks" / task
    if not (d / "task.json").exists():
        raise BigBenchError(f"unknown BIG-bench task {task!r}: no {d / 'task.json'}")
    return sorted(p.name for p in d.iterdir() if (p / "task.json").exists())


@lru_cache(maxsize=32)
def _load(task: str, root: str) -> tuple[Example, ...]:
    base = Path(root) / "benchmark_tasks" / task
    subs = subtask_names(task, root)
    if not subs:
        path = base / "task.json"
        return tuple(_format(_load_json(path), path, None, 0))
    out: list[Example] = []
    for sub in subs:
        path = base / sub / "task.json"
        out.extend(_format(_load_json(path), path, sub, len(out)))
    return tuple(out)


def load_task(task: str, root: str | Path, check_size: bool = True) -> list[Example]:
    """The 'default' split of `task` from `root` (a directory holding `benchmark_tasks/`).

    With `check_size`, the example count must equal TASK_SIZES (the authors' constants).
    """
    examples = list(_load(task, str(Path(root).resolve())))
    if check_size and task in TASK_SIZES and len(examples) != TASK_SIZES[task]:
        raise BigBenchError(
            f"{task}: {len(examples)} examples in {root}, expected "
            f"{TASK_SIZES[task]} (BIG-bench dataset_constants)"
        )
    return examples


def subsample_positions(task: str, idxs_dir: str | Path) -> list[int] | None:
    """The authors' fixed 200-example subsample (positions in the split) for tasks with
    more than 200 examples, from `few-shot-eval/subsampled-idxs/<task>_200-examples_idxs.json`;
    None for smaller tasks (all examples but the demonstrations are evaluated)."""
    path = Path(idxs_dir) / f"{task}_200-examples_idxs.json"
    if TASK_SIZES.get(task, 201) <= 200:
        return None
    idxs = _load_json(path, f"subsample file for {task}")
    if not (isinstance(idxs, list) and len(idxs) == 200 and len(set(idxs)) == 200):
        raise BigBenchError(f"{path}: expected a list of 200 distinct positions")
    return [int(i) for i in idxs]
