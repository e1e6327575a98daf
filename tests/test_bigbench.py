"""The BIG-bench loader reproduces the HF `bigbench` 'default' split the authors used, and
rebuilt prompts follow the authors' format (gyauney/stronger-random-baselines,
few-shot-eval/all-datasets-sampled-few-shot-eval.py)."""

from __future__ import annotations

import collections
import json

import numpy as np
import pytest

from evalsci.data.bigbench import TASK_SIZES, TASKS, load_task, subsample_positions
from evalsci.lm.prompts import demonstration, few_shot_prefix, released_plans


@pytest.fixture(scope="module")
def root(mirror):
    return mirror / "bigbench"


@pytest.fixture(scope="module")
def srb(mirror):
    return mirror / "gyauney-stronger-random-baselines"


def test_counts_match_the_authors_constants(root):
    for task in TASKS:
        assert len(load_task(task, root, check_size=False)) == TASK_SIZES[task], task


def test_subtask_sizes_and_idx(root):
    want = {
        "bbq_lite_json": [
            672,
            672,
            578,
            578,
            1672,
            1672,
            940,
            940,
            588,
            588,
            2000,
            2000,
            340,
            340,
            992,
            992,
            256,
            256,
        ],
        "conceptual_combinations": [16, 40, 12, 9, 14, 12],
        "logical_deduction": [500, 700, 300],  # five, seven, three objects (alphabetical)
        "strange_stories": [53, 121],
        "symbol_interpretation": [198] * 5,
    }
    for task, sizes in want.items():
        ex = load_task(task, root)
        counts = collections.Counter(e.subtask for e in ex)
        assert [counts[s] for s in dict.fromkeys(e.subtask for e in ex)] == sizes, task
        assert [e.position for e in ex] == list(range(len(ex)))
        # idx restarts in every subtask
        for sub in counts:
            assert [e.idx for e in ex if e.subtask == sub] == list(range(counts[sub]))


def test_subsample_merges_example_ids_as_the_authors_files_show(root, srb):
    """Example ID = idx within the subtask, so the fixed subsample has fewer distinct IDs."""
    idxs = srb / "few-shot-eval" / "subsampled-idxs"
    for task, distinct in {
        "bbq_lite_json": 183,
        "logical_deduction": 179,
        "symbol_interpretation": 136,
        "winowhy": 200,
    }.items():
        ex = load_task(task, root)
        sub = subsample_positions(task, idxs)
        assert len({ex[p].idx for p in sub}) == distinct, task
    assert subsample_positions("emoji_movie", idxs) is None


@pytest.mark.parametrize(
    "cell",
    [
        "OLMo-7B_bbq_lite_json_4-shot",
        "Llama-2-7b_emoji_movie_2-shot",
        "falcon-7b_strange_stories_1-shot",
    ],
)
def test_released_prompts_rebuild_onto_our_split(root, srb, cell):
    """The authors' demonstration IDs are positions in our split: they never overlap the
    evaluated examples, and the Example IDs they evaluated are exactly our eval set's idx."""
    import pandas as pd

    task = cell.split("_", 1)[1].rsplit("_", 1)[0]
    shots = int(cell.rsplit("_", 1)[1][0])
    ex = load_task(task, root)
    sub = subsample_positions(task, srb / "few-shot-eval" / "subsampled-idxs")
    csv = srb / "results" / f"{cell}.csv.gz"
    plans = released_plans(csv)
    df = pd.read_csv(csv, usecols=["Prompt ID", "Example ID"])
    assert len(plans) == 200
    for plan in plans[:20]:
        assert len(plan.demos) == shots and max(plan.demos) < len(ex)
        evals = plan.eval_positions(len(ex), sub)
        assert not set(plan.demos) & set(evals)
        ours = {ex[p].idx for p in evals}
        theirs = set(df.loc[df["Prompt ID"] == plan.prompt_id, "Example ID"])
        assert ours == theirs


def test_inputs_format_and_choice_permutation(root):
    """inputs = task_prefix + "\\nQ: " + input + choices (sorted, permuted by one
    RandomState(42) in example order) + "\\nA: ", stripped."""
    raw = json.loads((root / "benchmark_tasks" / "emoji_movie" / "task.json").read_text())
    ex = load_task("emoji_movie", root)
    rng = np.random.RandomState(42)
    for e, r in zip(ex[:20], raw["examples"][:20], strict=True):
        order = rng.permutation(sorted(r["target_scores"]))
        want = "Q: " + r["input"] + "".join("\n  choice: " + c for c in order) + "\nA:"
        assert e.inputs == want
        assert e.choices == tuple(r["target_scores"])
        assert e.correct_choice == max(r["target_scores"], key=r["target_scores"].get)
    lang = load_task("language_identification", root)[0]
    assert lang.inputs.startswith(
        "Given a sentence, select the correct language among the choices\nSentence: "
    ) and lang.inputs.endswith("\nLanguage:")
    ff = load_task("formal_fallacies_syllogisms_negation", root)[0]  # choices not appended
    assert "choice:" not in ff.inputs and ff.inputs.endswith("A:")


def test_rebuilt_prompt_demonstration_format(root, srb):
    """A prompt is its demonstrations `f"{inputs} {correct answer}\\n"` concatenated, in
    the order of the authors' Demonstration IDs (OLMo-7B emoji_movie 4-shot, prompt 0)."""
    ex = load_task("emoji_movie", root)
    plan = released_plans(srb / "results" / "OLMo-7B_emoji_movie_4-shot.csv.gz")[0]
    assert plan.demos == (68, 11, 87, 45)
    prefix = few_shot_prefix([ex[p] for p in plan.demos])
    parts = prefix.split("\nQ: ")
    assert len(parts) == 4 and prefix.startswith("Q: What movie does this emoji describe?")
    answers = [ln for ln in prefix.splitlines(keepends=True) if ln.startswith("A: ")]
    assert answers == [f"A: {ex[p].correct_choice}\n" for p in plan.demos]
    assert demonstration(ex[68]) == ex[68].inputs + " " + ex[68].correct_choice + "\n"
    assert prefix.endswith(f"A: {ex[45].correct_choice}\n") and prefix.count("\nA: ") == 4
