"""Task constants of the BIG-bench tasks that the `baselines` study uses.

Sizes are the de-duplicated example counts of each task (the HF `bigbench` split
`default`), the number of answer choices is the one the authors used for p = 1/k
(their `dataset_constants.py`, Yauney & Mimno, Appendix B). A task with varying choices
per example (e.g. logical_deduction {3, 5, 7}) still gets one k here, as in the paper.
"""

from __future__ import annotations

# The fixed evaluation subsample of large tasks (Appendix B: "for the tasks larger than
# n = 200 examples, we randomly sample 200 examples").
SUBSAMPLE = 200

# BIG-bench Lite: task -> (number of examples, number of choices).
BBL_TASKS: dict[str, tuple[int, int]] = {
    "hindu_knowledge": (175, 4),
    "bbq_lite_json": (16076, 3),
    "code_line_description": (60, 4),
    "conceptual_combinations": (103, 4),
    "emoji_movie": (100, 5),
    "formal_fallacies_syllogisms_negation": (14200, 2),
    "known_unknowns": (46, 2),
    "language_identification": (10000, 11),
    "logical_deduction": (1500, 5),
    "novel_concepts": (32, 5),
    "play_dialog_same_or_different": (3264, 2),
    "strange_stories": (174, 3),
    "strategyqa": (2289, 2),
    "symbol_interpretation": (990, 5),
    "vitaminc_fact_verification": (54668, 3),
    "winowhy": (2862, 5),
}

# BIG-bench Hard as the authors parametrised it for Section 5.3: task -> (n, choices).
# n is the size the authors used (for some tasks the size of the original BIG-bench task,
# e.g. hyperbaton 50,000, not the 250 examples of BBH).
BBH_TASKS: dict[str, tuple[int, int]] = {
    "causal_judgement": (190, 2),
    "disambiguation_qa": (258, 3),
    "formal_fallacies": (14200, 2),
    "geometric_shapes": (359, 10),
    "hyperbaton": (50000, 2),
    "logical_deduction_five_objects": (500, 5),
    "logical_deduction_seven_objects": (500, 7),
    "logical_deduction_three_objects": (500, 3),
    "movie_recommendation": (500, 4),
    "navigate": (1000, 2),
    "penguins_in_a_table": (149, 5),
    "ruin_names": (448, 4),
    "salient_translation_error_detection": (998, 6),
    "snarks": (181, 2),
    "sports_understanding": (986, 2),
}

# Mizrahi et al.'s BBL file names that differ from the BIG-bench task names.
MULTI_PROMPT_BBL_ALIASES = {
    "bbq_lite": "bbq_lite_json",
    "play_dialog": "play_dialog_same_or_different",
}


def task_size(task: str) -> int:
    try:
        return BBL_TASKS[task][0]
    except KeyError:
        raise KeyError(
            f"unknown BIG-bench Lite task {task!r}; known: {sorted(BBL_TASKS)}"
        ) from None


def num_choices(task: str) -> int:
    try:
        return BBL_TASKS[task][1]
    except KeyError:
        raise KeyError(
            f"unknown BIG-bench Lite task {task!r}; known: {sorted(BBL_TASKS)}"
        ) from None
