"""The lighteval reader on real `lighteval custom` output (lighteval 0.13.0, offline, local
12-item task; see tests/fixtures/audit/lighteval/PROVENANCE.md). Expected counts come from the
custom model's rule applied to the task's data file, not from the reader."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from evalsci.audit import audit_inputs
from evalsci.audit.readers import lighteval, option_counts, read_inputs
from evalsci.audit.readers.lm_eval_tasks import lookup
from evalsci.audit.records import AuditInputError

FIX = Path(__file__).parent / "fixtures" / "audit" / "lighteval"
DATA = [
    json.loads(line) for line in (FIX / "make" / "data" / "test.jsonl").read_text().splitlines()
]


def results_file(out: str, model: str) -> Path:
    (p,) = (FIX / out / "results" / model).glob("results_*.json")
    return p


def rule(model: str) -> dict[str, int]:
    """{doc id (row index): 0/1} from make/model.py's rule on make/data/test.jsonl."""
    out = {}
    for i, row in enumerate(DATA):
        k = int(row["id"][1:])
        pick = (
            (row["gold"] if k % 3 else (row["gold"] + 1) % len(row["choices"]))
            if model == "rule-alpha"
            else 0
        )
        out[str(i)] = int(pick == row["gold"])
    return out


@pytest.mark.parametrize("model", ["rule-alpha", "rule-beta"])
def test_counts_match_the_model_rule(model):
    results, skipped = lighteval.read(results_file("out", model))
    (r,) = results
    want = rule(model)
    assert r.model == model and r.task == "arith12|0" and r.metric == "acc"
    assert dict(zip(r.items, r.outcomes, strict=True)) == want
    assert (r.n, r.correct) == (12, sum(want.values()))
    assert r.labels == {2: 3, 3: 3, 4: 3, 5: 3}
    assert r.choices_source == "details" and not r.limited and r.t is None
    reported = json.loads(results_file("out", model).read_text())["results"]["arith12|0"]["acc"]
    assert r.accuracy == reported
    assert [s.task for s in skipped] == ["arith12_gen|0"]
    assert "GENERATIVE" in skipped[0].reason


def test_max_samples_run_is_limited():
    (r,), _ = lighteval.read(results_file("out_limited", "rule-alpha"))
    assert r.n == 5 and r.limited and r.notes == ("--max-samples 5",)
    want = rule("rule-alpha")
    assert r.correct == sum(want[i] for i in r.items)


def test_without_details_the_task_is_skipped(tmp_path):
    src = results_file("out", "rule-alpha")
    p = tmp_path / src.name
    shutil.copy(src, p)
    results, skipped = lighteval.read(p)
    assert results == []
    (why,) = [s.reason for s in skipped if s.task == "arith12|0"]
    assert "--save-details" in why and "not in the known-task table" in why


def test_without_details_a_known_task_is_derived_from_the_stderr(tmp_path):
    """The real file's accuracy and stderr (8 of 12) under a task name lm-eval knows: n comes
    back from lighteval's stderr (sample sd / sqrt(n)), the options from the known-task table."""
    src = results_file("out", "rule-alpha")
    obj = json.loads(src.read_text())
    obj["results"]["leaderboard|hellaswag|10"] = obj["results"].pop("arith12|0")
    obj["config_tasks"]["leaderboard|hellaswag|10"] = obj["config_tasks"].pop("arith12|0")
    p = tmp_path / src.name
    p.write_text(json.dumps(obj))
    (r,), _ = lighteval.read(p)
    assert (r.n, r.correct, r.labels, r.derived) == (12, 8, {4: 12}, True)
    assert r.outcomes is None and "known-task table" in r.choices_source


def test_read_inputs_on_the_output_directory():
    inputs = read_inputs([FIX / "out"])
    assert sorted((r.model, r.correct) for r in inputs.results) == [
        ("rule-alpha", sum(rule("rule-alpha").values())),
        ("rule-beta", sum(rule("rule-beta").values())),
    ]


def _copy_out(tmp_path: Path) -> Path:
    shutil.copytree(FIX / "out", tmp_path / "out")
    (p,) = (tmp_path / "out" / "results" / "rule-alpha").glob("*.json")
    return p


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda o: o.pop("config_general"), r"key 'config_general' missing"),
        (lambda o: o.update(results=[]), r"key 'results' must be dict"),
        (lambda o: o["results"]["arith12|0"].update(acc="high"), r"results.arith12\|0: key 'acc'"),
        (lambda o: o["results"]["arith12|0"].update(acc=0.5), r"acc = 0.5 but details_arith12"),
    ],
)
def test_bad_results_name_file_and_key(tmp_path, edit, message):
    p = _copy_out(tmp_path)
    obj = json.loads(p.read_text())
    edit(obj)
    p.write_text(json.dumps(obj))
    with pytest.raises(AuditInputError, match=message) as e:
        lighteval.read(p)
    assert str(p) in str(e.value)


def test_truncated_details_names_the_parquet(tmp_path):
    p = _copy_out(tmp_path)
    (d,) = (tmp_path / "out" / "details" / "rule-alpha").glob("*/details_arith12|0_*.parquet")
    d.write_bytes(d.read_bytes()[:2000])
    with pytest.raises(AuditInputError, match=r"details_arith12\|0_.*not a readable parquet"):
        lighteval.read(p)


@pytest.mark.parametrize("model", ["rule-alpha", "rule-beta"])
def test_letter_extraction_task_is_read_as_multiple_choice(model):
    """arith12_letters (out_letters/): the same 12 items as letters, answered "Answer: X" by the
    custom model's rule and scored by lighteval's gpqa_instruct_metric (extractive_match,
    GENERATIVE, IndicesExtractionConfig): read from the details, each document's letters its
    options, outcomes those of the rule."""
    (r,), skipped = lighteval.read(results_file("out_letters", model))
    assert skipped == []
    want = rule(model)
    assert (r.task, r.metric) == ("arith12_letters|0", "extractive_match")
    assert (r.n, r.correct) == (12, sum(want.values()))
    assert dict(zip(r.items, r.outcomes, strict=True)) == want
    assert r.labels == {2: 3, 3: 3, 4: 3, 5: 3} and r.choices_source == "details"
    assert any("letter among each document's choices" in n for n in r.notes)


def test_letter_extraction_without_details_is_skipped_saying_why():
    results, (s,) = lighteval.read(results_file("out_letters_nodetails", "rule-alpha"))
    assert results == [] and s.task == "arith12_letters|0" and s.no_baseline
    assert "'extractive_match' extracts a letter" in s.reason and "--save-details" in s.reason


def test_other_generative_metric_with_choices_names_the_metric(tmp_path):
    """A generative metric lighteval does not mark as letter extraction (a custom one, as in
    the issue's legal MCQ run read by --metric trad_score): skipped, the reason naming the
    --metric that reads it; with that --metric it is read. The config's sample_level_fn is
    blanked here to stand for such a metric."""
    out = tmp_path / "out_letters"
    shutil.copytree(FIX / "out_letters", out)
    (p,) = (out / "results" / "rule-alpha").glob("results_*.json")
    obj = json.loads(p.read_text())
    for m in obj["config_tasks"]["arith12_letters|0"]["metrics"]:
        m["sample_level_fn"] = "custom"
    p.write_text(json.dumps(obj))
    results, (s,) = lighteval.read(p)
    assert results == [] and "--metric extractive_match reads it" in s.reason
    (r,), _ = lighteval.read(p, metric="extractive_match")
    assert (r.n, r.correct) == (12, sum(rule("rule-alpha").values()))


# lighteval's own built-in truthfulqa:mc, run on all 817 questions (make/run_truthfulqa.py;
# PROVENANCE.md): its documents list the mc1 then the mc2 answers, and truthfulqa_mc1 is scored
# over the first specific.len_mc1 of them only
TQA = FIX / "out_truthfulqa"


def _tqa_details() -> list[dict]:
    import pyarrow.parquet as pq

    (p,) = (TQA / "details" / "rule-alpha").glob("*/details_*.parquet")
    return pq.read_table(p, columns=["doc", "metric"]).to_pylist()


def test_truthfulqa_mc1_is_read_over_the_mc1_answers_only():
    rows = _tqa_details()
    mc1 = [r["doc"]["specific"]["len_mc1"] for r in rows]
    assert any(len(r["doc"]["choices"]) > k for r, k in zip(rows, mc1, strict=True))
    # make/model.py's rule for these documents: right unless the query's length is 0 mod 3
    right = [int(len(r["doc"]["query"]) % 3 != 0) for r in rows]
    assert right == [int(r["metric"]["truthfulqa_mc1"]) for r in rows]
    (r,), skipped = lighteval.read(results_file("out_truthfulqa", "rule-alpha"))
    assert (r.task, r.metric, r.n, r.correct) == (
        "truthfulqa:mc|0",
        "truthfulqa_mc1",
        817,
        sum(right),
    )
    assert r.labels == dict(sorted(Counter(mc1).items())) and skipped == []
    assert r.labels == option_counts.table()["truthfulqa_mc1"].histogram
    assert r.settings["shots"] == 0


def test_truthfulqa_mc_without_details_gets_the_exact_histogram(tmp_path):
    """The same results file alone: n = 817 back from the stderr, the options from the
    option-count table's whole-task histogram, so the baselines equal those read from the
    details (the same labels, n and t)."""
    src = results_file("out_truthfulqa", "rule-alpha")
    shutil.copy(src, tmp_path / src.name)
    (r,), skipped = lighteval.read(tmp_path / src.name)
    (d,), _ = lighteval.read(src)
    assert (r.n, r.correct, r.labels, r.options_range, r.derived) == (
        817,
        d.correct,
        d.labels,
        None,
        True,
    )
    assert "histogram of the whole task" in r.choices_source and skipped == []
    with_details, _ = audit_inputs([src], t=5)
    alone, _ = audit_inputs([tmp_path / src.name], t=5)
    for col in ("standard", "max_baseline", "p_standard", "p_max"):
        assert alone[col].iloc[0] == pytest.approx(with_details[col].iloc[0], rel=1e-12)


# lighteval 0.9.2's own truthfulqa:mc with its DummyModel, all 817 questions
# (make/run_truthfulqa_092.py; PROVENANCE.md): the layout lighteval wrote up to 0.9
OLD = FIX / "out_truthfulqa_092"


def _poisson_binomial_tails(options: list[int], k: int) -> tuple[float, float]:
    """(P(X >= k), P(X <= k)) for X the number right of one uniform guesser over items with
    these numbers of options: the pmf by convolving the items one by one (numpy floats)."""
    pmf = np.array([1.0])
    for m in options:
        pmf = np.convolve(pmf, [1 - 1 / m, 1 / m])
    return float(pmf[k:].sum()), float(pmf[: k + 1].sum())


@pytest.mark.parametrize("details", [True, False])
def test_old_lighteval_truthfulqa_mc1_is_read_by_default(tmp_path, details):
    """Issue 45: the results file of lighteval 0.9 (metrics under `metric`, category "8")
    with its flat details (`specifics.len_mc1`), audited with no --metric: truthfulqa_mc1 over
    817 questions, its count and options as the files give them (read here with plain json and
    pyarrow), its p-values those of the Poisson-binomial those options imply; without the
    details, n from lighteval's stderr and the options from the option-count table's histogram
    give the same row."""
    import pyarrow.parquet as pq

    (src,) = (OLD / "results" / "dummy").glob("results_*.json")
    obj = json.loads(src.read_text())
    assert obj["config_tasks"]["leaderboard|truthfulqa:mc"]["metric"][0]["category"] == "8"
    reported = obj["results"]["leaderboard|truthfulqa:mc|0"]["truthfulqa_mc1"]
    (parquet,) = (OLD / "details" / "dummy").glob("*/details_*.parquet")
    rows = pq.read_table(parquet, columns=["metrics", "specifics"]).to_pylist()
    right = sum(bool(r["metrics"]["truthfulqa_mc1"]) for r in rows)
    options = [r["specifics"]["len_mc1"] for r in rows]
    assert len(rows) == 817 and right / 817 == pytest.approx(reported, rel=1e-12)
    if not details:
        shutil.copy(src, tmp_path / src.name)
        src = tmp_path / src.name
    judged, skipped = audit_inputs([src], t=1)
    assert skipped == []
    (row,) = judged.to_dict("records")
    assert (row["task"], row["metric"], row["n"]) == (
        "leaderboard|truthfulqa:mc|0",
        "truthfulqa_mc1",
        817,
    )
    assert row["accuracy"] == pytest.approx(right / 817, rel=1e-12)
    assert json.loads(row["choices"]) == {str(k): v for k, v in sorted(Counter(options).items())}
    assert row["derived"] is (not details)
    upper, lower = _poisson_binomial_tails(options, right)
    assert row["p_standard"] == pytest.approx(upper, rel=1e-9)
    assert row["p_below"] == pytest.approx(lower, rel=1e-9)
    assert row["standard"] == pytest.approx(np.mean([1 / m for m in options]), rel=1e-12)


def test_an_old_custom_metric_is_skipped_naming_the_metric_that_reads_it(capsys):
    """A real lighteval 0.9.2 file whose task is scored by a custom metric (`choice_acc`,
    category "8"; make/run_custom_metric_092.py): not read by default, the reason naming
    `--metric choice_acc`, exit 3 (nothing to audit); with it, read from the details: each
    document's choices its options, its 0/1 scores the outcomes (read here with pyarrow)."""
    import pyarrow.parquet as pq

    from evalsci.cli import main

    out = FIX / "out_custom_metric_092"
    (src,) = (out / "results" / "dummy").glob("results_*.json")
    results, (s,) = lighteval.read(src)
    assert results == [] and s.task == "community|arith12_choice|0"
    assert "--metric choice_acc reads it" in s.reason and s.reason.count("--metric") == 1
    assert main(["audit", str(out)]) == 3
    assert "--metric choice_acc reads it" in capsys.readouterr().err
    (parquet,) = (out / "details" / "dummy").glob("*/details_*.parquet")
    rows = pq.read_table(parquet, columns=["choices", "metrics"]).to_pylist()
    (r,), _ = lighteval.read(src, metric="choice_acc")
    assert (r.n, r.correct) == (12, sum(int(x["metrics"]["choice_acc"]) for x in rows))
    assert r.labels == dict(sorted(Counter(len(x["choices"]) for x in rows).items()))
    assert r.labels == {2: 3, 3: 3, 4: 3, 5: 3}


@pytest.mark.parametrize("details", [True, False])
def test_truthfulqa_mc2_is_no_accuracy(tmp_path, details):
    src = results_file("out_truthfulqa", "rule-alpha")
    if not details:
        shutil.copy(src, tmp_path / src.name)
        src = tmp_path / src.name
    results, (s,) = lighteval.read(src, metric="truthfulqa_mc2")
    assert results == []
    assert ("other than 0/1" if details else "probability mass") in s.reason


# Task keys as lighteval wrote them: the details files committed in huggingface/lighteval's
# tests/reference_details/SmolLM2-1.7B-Instruct-transformers/ (file names only; the files are
# Git LFS pointers), at 31433cc9^ (2025-10-17 run, lighteval before "remove suites") and at
# 3fd15266 (2025-11-05 run), and this project's own fixtures.
@pytest.mark.parametrize(
    "key, metric, name",
    [
        ("lighteval|arc:challenge|25", "acc", "arc_challenge"),
        ("lighteval|hellaswag|10", "acc_norm", "hellaswag"),
        ("lighteval|mmlu:college_chemistry|5", "acc", "mmlu_college_chemistry"),
        ("lighteval|truthfulqa:mc|0", "truthfulqa_mc1", "truthfulqa_mc1"),
        ("arc:challenge|25", "acc", "arc_challenge"),
        ("hellaswag|10", "acc_norm", "hellaswag"),
        ("mmlu:us_foreign_policy|5", "acc", "mmlu_us_foreign_policy"),
        ("truthfulqa:mc|0", "truthfulqa_mc1", "truthfulqa_mc1"),
        ("truthfulqa:mc|0", "truthfulqa_mc2", None),
        ("arith12|0", "acc", "arith12"),
    ],
)
def test_lighteval_task_keys_map_to_lm_eval_names(key, metric, name):
    assert lighteval.lm_eval_name(key, metric) == name
    if name not in (None, "arith12"):
        known = lookup(name)
        assert known is not None and known.output_type == "multiple_choice"
        assert known.options is not None or name in option_counts.table()


def test_split_key_takes_suite_name_and_shots():
    assert lighteval.split_key("lighteval|arc:challenge|25|0") == ("lighteval", "arc:challenge", 25)
    assert lighteval.split_key("lighteval|arc:challenge|25") == ("lighteval", "arc:challenge", 25)
    assert lighteval.split_key("arc:challenge|25") == (None, "arc:challenge", 25)
    assert lighteval.split_key("arith12") == (None, "arith12", None)


def test_old_truthfulqa_mc_metrics_pick_mc1():
    """Files without metric categories (the Open LLM Leaderboard v1's
    `harness|truthfulqa:mc|0`: mc1, mc2 and their stderrs): mc1 is the accuracy read, and it
    names lm-eval's truthfulqa_mc1; mc2 is never picked by default."""
    entry = {"mc1": 0.29, "mc1_stderr": 0.016, "mc2": 0.43, "mc2_stderr": 0.014}
    assert lighteval._pick_metric(entry, [], None) == "mc1"
    assert lighteval.lm_eval_name("harness|truthfulqa:mc|0", "mc1") == "truthfulqa_mc1"
    assert lighteval.lm_eval_name("harness|truthfulqa:mc|0", "mc2") is None
    assert lighteval.lm_eval_name("harness|hendrycksTest-anatomy|5", "acc") == (
        "hendrycksTest-anatomy"
    )
    assert lookup("hendrycksTest-anatomy").task == "mmlu_anatomy"


def test_older_lighteval_metric_configs_read_truthfulqa_mc1_by_default():
    """lighteval 0.3 to 0.9 wrote each task's metrics under `metric` (not `metrics`), each a
    `Metric` dataclass whose `category` is the `MetricCategory(str, Enum)` value: `auto()`'s
    number as a string ("8": MULTICHOICE in 0.6-0.9) or, with the enum encoder, its name. Issue
    45: their truthfulqa:mc (`truthfulqa_mc1`) was skipped by default with no hint. The config
    below is that serialisation of lighteval's `Metrics.truthfulqa_mc_metrics` (v0.9.2
    metrics.py: metric_name [truthfulqa_mc1, truthfulqa_mc2], category MULTICHOICE)."""
    entry = {"truthfulqa_mc1": 0.2203, "truthfulqa_mc1_stderr": 0.0145,
             "truthfulqa_mc2": 0.3853, "truthfulqa_mc2_stderr": 0.0141}  # fmt: skip
    for category in ("8", "MULTICHOICE"):
        cfg = {"metric": [{"metric_name": ["truthfulqa_mc1", "truthfulqa_mc2"],
                           "higher_is_better": {"truthfulqa_mc1": True, "truthfulqa_mc2": True},
                           "category": category, "use_case": "1",
                           "sample_level_fn": "truthfulqa_mc_metrics"}]}  # fmt: skip
        names = lighteval._metric_names(cfg, "cfg")
        assert names == [("truthfulqa_mc1", category), ("truthfulqa_mc2", category)]
        assert lighteval._pick_metric(entry, names, None) == "truthfulqa_mc1"
    # the new form (0.10 and later) is unchanged, and mc2 is never the default
    new = [("truthfulqa_mc1", "LOGPROBS"), ("truthfulqa_mc2", "LOGPROBS")]
    assert lighteval._pick_metric(entry, new, None) == "truthfulqa_mc1"
    # a metric the audit does not know: skipped, naming the --metric that would read it
    custom = {"my_choice_acc": 0.41, "my_choice_acc_stderr": 0.02}
    why = lighteval._pick_metric(custom, [("my_choice_acc", "GENERATIVE")], None)
    assert why.startswith("skip:") and "--metric my_choice_acc reads it" in why
    why = lighteval._pick_metric(custom, [], None)
    assert why.startswith("skip:") and "--metric my_choice_acc reads it" in why


def test_a_group_average_is_skipped_as_an_aggregate(tmp_path):
    """lighteval writes a group's average over its subtasks under its own key
    (`<suite>|<group>:_average|<shots>`, as in published lighteval output: `helm|mmlu:_average|5`).
    It is no task: skipped with that reason, not as an unknown task, and the run's real tasks
    are read as before. (The key is added to a copy of the real 0.13.0 results file.)"""
    src = results_file("out", "rule-alpha")
    run = tmp_path / "out" / "results" / "rule-alpha"
    shutil.copytree(src.parent.parent.parent, tmp_path / "out")
    path = run / src.name
    obj = json.loads(path.read_text())
    obj["results"]["lighteval|arith:_average|0"] = dict(obj["results"]["arith12|0"])
    path.write_text(json.dumps(obj))
    results, skipped = lighteval.read(path)
    assert [r.task for r in results] == ["arith12|0"]
    why = {s.task: s.reason for s in skipped}
    assert why["lighteval|arith:_average|0"] == lighteval.AVERAGE_WHY
    assert "GENERATIVE" in why["arith12_gen|0"]
