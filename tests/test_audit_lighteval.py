"""The lighteval reader on real `lighteval custom` output (lighteval 0.13.0, offline, local
12-item task; see tests/fixtures/audit/lighteval/PROVENANCE.md). Expected counts come from the
custom model's rule applied to the task's data file, not from the reader."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from evalsci.audit.readers import lighteval, read_inputs
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
