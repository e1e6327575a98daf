"""Per-item number of choices of the Open LLM Leaderboard v2 multiple-choice tasks.

The leaderboard scores every task below by log-likelihood over a list of choices
(lm-evaluation-harness 0.4, `lm_eval/tasks/leaderboard/`: `output_type: multiple_choice`).
A random guesser picks one of the item's options, so p = 1 / (number of options):
  - BBH with "Options:" in the prompt: the options listed there, "(A) ..." on separate lines or
    inline. lm-eval scores a fixed letter list per task (e.g. 18 letters for
    reasoning_about_colored_objects), but an item that lists 2 options has 2 sensible guesses;
    the prompt's count is the stronger (higher) baseline.
  - BBH without options: the task's answer set, which lm-eval's task YAML fixes (`doc_to_choice`):
    Yes/No, True/False, valid/invalid, and "0".."18" for object_counting.
  - MuSR: the numbered choices "1 - ..." before "Answer:" (lm-eval's `doc_to_text`).
  - MMLU-Pro: lm-eval offers one letter per option of the item; the bundle has no MMLU-Pro
    prompts, so every item gets the benchmark's 10 options (items with fewer options have a
    higher true baseline: MMLU-Pro counts are an upper bound on runs above the baselines).
Tasks scored by exact match on generated text have no random guesser: OUT_OF_SCOPE.
"""

from __future__ import annotations

import re
from collections import Counter

from .records import labels_of

# BBH tasks whose prompts list no options: lm-eval 0.4.13 leaderboard/bbh_mc/<task>.yaml doc_to_choice
BBH_ANSWER_SETS = {
    "boolean_expressions": ("False", "True"),
    "causal_judgement": ("Yes", "No"),
    "formal_fallacies": ("valid", "invalid"),
    "navigate": ("Yes", "No"),
    "object_counting": tuple(str(i) for i in range(19)),
    "sports_understanding": ("yes", "no"),
    "web_of_lies": ("Yes", "No"),
}
MMLU_PRO_OPTIONS = 10
OUT_OF_SCOPE = {
    "IFEval": "instruction following scored by rule checks on generated text: no answer options",
    "MATH-LvL-5": "exact match on a generated answer: no answer options to guess among",
}

_LETTER = re.compile(r"\(([A-R])\)")
_NUMBERED = re.compile(r"(?m)^(\d+) - ")


class ChoicesError(ValueError):
    """A prompt's options cannot be read (names the task and item)."""


def bbh_options(prompt: str) -> int:
    """Number of options "(A) ... (B) ..." after "Options:" (0 when the prompt lists none).

    Letters must run A, B, C, ... without gaps; the count is the longest such run."""
    if "Options:" not in prompt:
        return 0
    letters = _LETTER.findall(prompt.split("Options:")[-1])
    k = 0
    for letter in letters:
        if letter == chr(ord("A") + k):
            k += 1
    return k


def musr_options(prompt: str) -> int:
    """Number of numbered choices "1 - ...", "2 - ..." in the last block before "Answer:"."""
    block = prompt.rsplit("Answer:", 1)[0]
    nums = [int(x) for x in _NUMBERED.findall(block)]
    k = 0
    for x in nums:
        if x == k + 1:
            k += 1
        elif x == 1:  # a new numbered list restarts the count
            k = 1
    return k


def item_choices(benchmark: str, task: str, prompts: list[str], ids: list) -> list[int]:
    """The number of choices of each item of one task, in `prompts` order."""
    if benchmark == "BBH":
        raw = [bbh_options(p) for p in prompts]
        if task in BBH_ANSWER_SETS:
            raw = [k or len(BBH_ANSWER_SETS[task]) for k in raw]
        # A prompt cut short lists one option (snarks item 88 ends in "(A) The NB"): it gets
        # the task's usual count, as lm-eval scores the same letters for every item.
        usual = Counter(k for k in raw if k >= 2).most_common(1)
        raw = [usual[0][0] if k == 1 and usual else k for k in raw]
    elif benchmark == "MuSR":
        raw = [musr_options(p) for p in prompts]
    else:
        raise ChoicesError(f"no prompt-based choices for benchmark {benchmark!r}")
    for item, k in zip(ids, raw, strict=True):
        if k < 2:
            raise ChoicesError(
                f"{benchmark} {task} item {item}: found {k} options in the prompt "
                "and the task has no known answer set"
            )
    return raw


def task_labels(benchmark: str, task: str, prompts: list[str], ids: list) -> dict[int, int]:
    """{number of choices: number of items} of one task."""
    return labels_of(item_choices(benchmark, task, prompts, ids))
