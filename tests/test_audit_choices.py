"""Per-item choices of the leaderboard tasks, against lm-evaluation-harness's own leaderboard
task definitions (lm_eval/tasks/leaderboard/bbh_mc/*.yaml, the scored choice lists)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import yaml

from evalsci.audit.choices import BBH_ANSWER_SETS, bbh_options, item_choices, musr_options

PROMPTS = "kinds-of-intelligence-cfi-PredictaBoard/train_and_evaluate_assessors/data/open-llm-leaderboard-v2"


def test_option_parsers():
    assert bbh_options("Q?\nOptions:\n(A) x\n(B) y\n(C) z") == 3
    assert bbh_options("Find a movie: Options: (A) a (B) b (C) c (D) d") == 4  # inline
    assert bbh_options("Is it? Answer Yes or No.") == 0
    assert musr_options("story\n\nq?\n\n1 - piano\n2 - desk\n3 - booth\nAnswer:") == 3


def test_bbh_choices_agree_with_lm_eval_leaderboard_tasks(mirror):
    lm_eval = pytest.importorskip("lm_eval")
    task_dir = Path(lm_eval.__file__).parent / "tasks" / "leaderboard" / "bbh_mc"
    for f in sorted((mirror / PROMPTS).glob("bbh_*_prompts.csv")):
        task = f.name.removeprefix("bbh_").removesuffix("_prompts.csv")
        scored = yaml.safe_load((task_dir / f"{task}.yaml").read_text())["doc_to_choice"]
        prompts = pd.read_csv(f)
        k = item_choices("BBH", task, prompts.prompt.astype(str).tolist(), prompts.id.tolist())
        if task in BBH_ANSWER_SETS:
            assert list(BBH_ANSWER_SETS[task]) == scored, task
            assert set(prompts.target.astype(str)) <= set(scored), task
        else:
            # letters listed in a prompt are letters lm-eval scores (disambiguation_qa: 3 items
            # list a 4th option "(D)" that the leaderboard cannot pick)
            assert max(k) <= len(scored) or task == "disambiguation_qa", task
            assert all(t in scored for t in prompts.target.astype(str)), task
