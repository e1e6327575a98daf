"""assessors loaders on small fixtures of the real formats (tests/fixtures/assessors/).

- evals/: lines cut from the cfi_ground_truth OpenAI evals logs (3 LLMs, 6 samples of
  causal_judgment; text-davinci-003 lacks one sample, to exercise the coverage check);
- predictaboard/: rows and columns cut from PredictaBoard's result and prompt CSVs, stored
  gzipped like the released bundle;
- helm/: two run directories written by hand in HELM v1.0.0's format (no run directory is part
  of the offline data), plus a non-binary run;
- kinds_of_reasoning/: 3 lines of a KindsOfReasoning registry samples.jsonl.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from evalsci.data import evals_logs, helm, leaderboard

FIX = Path(__file__).parent / "fixtures" / "assessors"
LLMS = ["text-ada-001", "gpt-4-0613", "text-davinci-003"]


@pytest.mark.parametrize(
    "expected, sampled, ok",
    [
        ("Yes", "\n\nYes", True),  # evals' own match says False here (no strip)
        ("yes", "YES.", True),
        ("No", "Not really", False),  # "No" is a prefix of a word, not a word
        ("no", "I say no", True),
        (3, "The answer is 3", True),
        (3, "The answer is 33", False),
        ("entailment", "Entailment\u00a0", True),
        ("c", "(c)", True),
    ],
)
def test_answer_matches_word_boundary(expected, sampled, ok):
    assert evals_logs.answer_matches(expected, sampled) is ok


def test_answer_matches_rejects_other_types():
    with pytest.raises(ValueError, match="neither a string nor an integer"):
        evals_logs.answer_matches(["Yes"], "Yes")


def test_read_evals_log_recomputes_success_for_chat_and_completion_logs():
    ada = evals_logs.read_evals_log(FIX / "evals/causal_judgment/text-ada-001.jsonl")
    gpt4 = evals_logs.read_evals_log(FIX / "evals/causal_judgment/gpt-4-0613.jsonl")
    assert len(ada) == len(gpt4) == 6
    # text-ada-001 answers "\n\nYes": evals' exact match marks it wrong, the paper's match right.
    row = ada.set_index("sample_id").loc["causal_judgment.test.31"]
    assert row["sampled"].startswith("\n\n") and row["success"] == 1 and not row["correct_evals"]
    # The completion-style prompt string reduces to the same user message as the chat list.
    assert set(ada["prompt"]) == set(gpt4["prompt"])
    assert (ada["system_prompt"] == gpt4["system_prompt"].iloc[0]).all()
    assert gpt4["system_prompt"].iloc[0].startswith("How would a typical person answer")


def test_load_evals_collection_joins_by_prompt_drops_duplicates_and_reports_gaps():
    inst, succ, cov = evals_logs.load_evals_collection(FIX / "evals", ["causal_judgment"], LLMS)
    # 6 samples, 2 of which (test.91 and test.109) share a prompt -> 5 prompts; davinci-003
    # lacks test.94 -> 4 instances that every LLM covers.
    c = cov.set_index("llm")
    assert c.loc["text-ada-001", "n_duplicates"] == 1
    assert c.loc["text-davinci-003", "n_missing"] == 1
    assert c.loc["gpt-4-0613", "n_missing"] == 0
    assert len(inst) == len(succ) == 4
    assert list(succ.columns) == ["instance_id", *LLMS]
    assert set(succ[LLMS].stack().unique()) <= {0, 1}
    assert (inst["dataset"] == "causal_judgment").all()
    # The embedded text is "<system prompt> <prompt>", as the paper embeds it.
    assert inst["text"].iloc[0] == inst["system_prompt"].iloc[0] + " " + inst["prompt"].iloc[0]


def test_evals_log_errors_name_the_file(tmp_path):
    d = tmp_path / "t"
    d.mkdir()
    (d / "m.jsonl").write_text('{"spec": {}}\nnot json\n')
    with pytest.raises(ValueError, match=r"m\.jsonl:2"):
        evals_logs.read_evals_log(d / "m.jsonl")
    with pytest.raises(FileNotFoundError, match="other-llm"):
        evals_logs.load_evals_task(tmp_path, "t", ["other-llm"])


def test_registry_samples_and_kinds_of_reasoning_ood_splits():
    s = evals_logs.read_registry_samples(FIX / "kinds_of_reasoning/crass_ai_samples.jsonl")
    assert len(s) == 3 and s["system_prompt"].str.startswith("I will provide you a question").all()
    assert evals_logs.ood_test_datasets("OOD_1") == [
        f"arithmetic_{d}_digit_{op}"
        for d in range(1, 6)
        for op in ("addition", "subtraction", "multiplication", "division")
    ]
    # An eval goes to test if ANY of its tags is held out: copa is causal and world knowledge.
    assert "copa" in evals_logs.ood_test_datasets("OOD_2")
    assert "copa" in evals_logs.ood_test_datasets("OOD_4")
    assert "logical_args" in evals_logs.ood_test_datasets("OOD_4")
    assert len(evals_logs.kinds_of_reasoning_evals()) == 45


def test_leaderboard_pairs_files_keeps_last_run_and_complete_models():
    from evalsci.data.released import local_name

    root = FIX / "predictaboard"
    pairs = leaderboard.discover_pairs(root, lambda p: local_name("predictaboard", p))
    names = {(p["dataset"], p["subtask"]): p["results"].name for p in pairs}
    # math_algebra_hard prompts pair with the MATH-LvL-5__beginner_algebra_hard results.
    assert names[("MATH", "algebra_hard")] == "MATH-LvL-5__beginner_algebra_hard_results.csv.gz"
    inst, succ, cov = leaderboard.load_leaderboard(root, lambda p: local_name("predictaboard", p))
    assert len(inst) == 10 and inst["instance_id"].is_unique
    assert set(inst["dataset"]) == {"BBH", "MATH"}
    # DreadPoor__... has BBH results only: reported in coverage, left out of the success table.
    assert "DreadPoor__WIP_Damascus-8B-TIES" in set(cov["model"])
    assert "DreadPoor__WIP_Damascus-8B-TIES" not in succ.columns
    assert set(succ.columns) == {
        "instance_id",
        "migtissera__Tess-3-7B-SFT",
        "lmsys__vicuna-7b-v1.5",
        "Qwen__Qwen2.5-32B",
    }
    # One row per model although each model has two runs in the files.
    res = leaderboard.read_results(pairs[0]["results"])
    assert res.index.is_unique and len(res) == 4
    with pytest.raises(ValueError, match="lacking"):
        leaderboard.load_leaderboard(
            root,
            lambda p: local_name("predictaboard", p),
            models=["DreadPoor__WIP_Damascus-8B-TIES"],
        )


def test_helm_loader_cleans_chat_wrapper_keeps_test_split_and_rejects_non_binary():
    rl = helm.read_run_list(FIX / "helm/helm_lite.csv")
    kept = helm.select_runs(rl)
    assert list(kept["dataset"]) == ["mmlu/abstract_algebra"] * 2  # narrative_qa is dropped
    run = FIX / "helm/runs" / kept["Run"].iloc[1]
    df = helm.read_helm_run(run)
    assert (df["metric"] == "exact_match").all()
    assert not df["prompt"].str.contains("Here are some input-output examples").any()
    inst, succ, cov = helm.load_helm_lite(
        FIX / "helm/runs", rl, ["01-ai/yi-6b", "anthropic/claude-2.1"]
    )
    assert len(inst) == 3  # the train-split instance is dropped
    by_q = succ.set_index(inst["question"].to_numpy())
    order = [
        "Find the order of the group Z_4.",
        "Is Z_2 x Z_2 cyclic?",
        "How many elements has S_3?",
    ]
    assert by_q.loc[order, "01-ai/yi-6b"].tolist() == [1, 0, 1]
    assert by_q.loc[order, "anthropic/claude-2.1"].tolist() == [1, 1, 0]
    assert (cov["n_missing"] == 0).all()
    with pytest.raises(ValueError, match="not binary"):
        helm.read_helm_run(FIX / "helm/runs/narrative_qa:model=01-ai_yi-6b")


def test_helm_kept_scenarios_match_the_paper_run_list(mirror):
    rl = helm.read_run_list(
        mirror / "lorypack-referenceinstancespredictability/experiments/download_helm/helm_lite.csv"
    )
    kept = helm.select_runs(rl)
    # Appendix A.1: 16 (sub)scenarios, 30 LLMs each.
    assert kept["dataset"].nunique() == 16
    assert kept.groupby("dataset").size().eq(30).all()
    assert (
        not kept["Run"]
        .str.contains("corporate_lobbying|math:subject=algebra|geometry|narrative_qa|wmt")
        .any()
    )


def test_cfi_ground_truth_coverage_on_the_mirror(mirror):
    """The stand-in: every LLM covers the same prompts, 3,422 instances after de-duplication."""
    root = mirror / "kinds-of-intelligence-cfi-benchmark-ground-truth-predictability/raw_results"
    llms = ["text-babbage-001", "gpt-4-0613"]
    tasks = ["causal_judgment", "neubaroco"]
    inst, succ, cov = evals_logs.load_evals_collection(root, tasks, llms)
    assert (cov["n_missing"] == 0).all()
    assert inst.groupby("dataset").size().to_dict() == {"causal_judgment": 184, "neubaroco": 363}
    # README of the released data: text-babbage-001 scores 0 on every neubaroco item.
    nb = succ[inst["dataset"].eq("neubaroco").to_numpy()]
    assert nb["text-babbage-001"].sum() == 0 and nb["gpt-4-0613"].mean() > 0.5
    assert isinstance(inst, pd.DataFrame)
