"""The HELM reader on real `helm-run` output (crfm-helm 0.5.16, offline, simple_mcqa and
simple_classification; see tests/fixtures/audit/helm/PROVENANCE.md). Expected counts come
from the fixture client's rule applied to the prompts, and from the JSON read by hand."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from evalsci.audit.readers import helm, read_inputs
from evalsci.audit.records import AuditInputError

RUNS = Path(__file__).parent / "fixtures" / "audit" / "helm" / "runs"
PARITY = RUNS / "simple_mcqa:model=fixture_parity"
SIMPLE = RUNS / "simple_mcqa:model=simple_model1"
SEPARATE = RUNS / "simple_mcqa_separate:model=fixture_parity"
SEPARATE_TIES = RUNS / "simple_mcqa_separate:model=simple_model1"


def rule_outcomes(run: Path) -> dict[str, int]:
    """{instance#trial: 0/1} from the fixture client's rule (make/fixture_client.py): wrong
    when the sum of the prompt's numbers is a multiple of 3."""
    state = json.loads((run / "scenario_state.json").read_text())
    out = {}
    for rs in state["request_states"]:
        numbers = [int(x) for x in re.findall(r"Is (\d+) even or odd\?", rs["request"]["prompt"])]
        out[f"{rs['instance']['id']}#{rs['train_trial_index']}"] = int(sum(numbers) % 3 != 0)
    return out


def test_parity_run_counts_every_instance_and_trial():
    (r,), skipped = helm.read(PARITY / "run_spec.json")
    assert skipped == []
    want = rule_outcomes(PARITY)
    assert len(want) == 30  # 10 instances x 3 train trials
    assert dict(zip(r.items, r.outcomes, strict=True)) == want
    assert (r.n, r.correct) == (30, sum(want.values()))
    assert r.labels == {2: 30}  # Even / Odd
    assert r.task == "simple_mcqa" and r.model == "fixture/parity"
    stats = json.loads((PARITY / "stats.json").read_text())
    em = next(
        s for s in stats if s["name"]["name"] == "exact_match" and "perturbation" not in s["name"]
    )
    assert em["count"] == 3 and r.accuracy == em["mean"]  # HELM's mean over 3 trials
    assert r.t is None and any("best trial (0.9)" in n for n in r.notes)
    assert r.limited  # --max-eval-instances 10


def test_simple_client_is_always_wrong_and_pairs_with_the_other_model():
    (r,), _ = helm.read(SIMPLE)
    per_instance = json.loads((SIMPLE / "per_instance_stats.json").read_text())
    by_hand = [
        s["mean"]
        for e in per_instance
        for s in e["stats"]
        if s["name"]["name"] == "exact_match" and "perturbation" not in s["name"]
    ]
    assert (r.n, r.correct) == (len(by_hand), int(sum(by_hand))) == (30, 0)
    (p,), _ = helm.read(PARITY)
    assert r.task == p.task and set(r.items) == set(p.items)


def test_generation_run_is_skipped():
    results, skipped = helm.read(RUNS / "simple_classification:model=fixture_parity")
    assert results == [] and "'generation' is not multiple choice" in skipped[0].reason


def test_separate_method_run_follows_the_client_rule():
    """multiple_choice_separate_original: one scored request per option; the fixture client
    prefers the right option unless the number is a multiple of 3 (no train trials)."""
    (r,), skipped = helm.read(SEPARATE)
    assert skipped == []
    state = json.loads((SEPARATE / "scenario_state.json").read_text())
    numbers = {
        rs["instance"]["id"]: int(re.search(r"Is (\d+) ", rs["instance"]["input"]["text"]).group(1))
        for rs in state["request_states"]
    }
    want = {iid: int(k % 3 != 0) for iid, k in numbers.items()}
    assert len(want) == 10 and dict(zip(r.items, r.outcomes, strict=True)) == want
    assert (r.n, r.correct, r.labels) == (10, sum(want.values()), {2: 10})
    assert r.task == "simple_mcqa_separate"


def test_separate_method_ties_are_skipped():
    """HELM's SimpleClient gives every option log-probability 0: all tie, and HELM scores each
    instance 0.5 (the share of correct options among the tied)."""
    per_instance = json.loads((SEPARATE_TIES / "per_instance_stats.json").read_text())
    assert {
        s["mean"] for e in per_instance for s in e["stats"] if s["name"]["name"] == "exact_match"
    } == {0.5}
    results, skipped = helm.read(SEPARATE_TIES)
    assert results == [] and "tied" in skipped[0].reason


def test_read_inputs_reads_each_run_once():
    inputs = read_inputs([RUNS.parent])
    assert sorted((r.model, r.task, r.n, r.correct) for r in inputs.results) == [
        ("fixture/parity", "simple_mcqa", 30, sum(rule_outcomes(PARITY).values())),
        ("fixture/parity", "simple_mcqa_separate", 10, 3),
        ("simple/model1", "simple_mcqa", 30, 0),
    ]
    assert sorted(s.task for s in inputs.skipped) == [
        "simple_classification",
        "simple_mcqa_separate",
    ]
    # naming one of a run's files reads the run
    named = read_inputs([PARITY / "per_instance_stats.json", PARITY / "run_spec.json"])
    assert len(named.results) == 1


def test_options_from_num_references_without_scenario_state(tmp_path):
    run = tmp_path / PARITY.name
    shutil.copytree(PARITY, run)
    (run / "scenario_state.json").unlink()
    (r,), _ = helm.read(run)
    assert r.labels == {2: 30} and r.choices_source == "per_instance_stats"


@pytest.mark.parametrize(
    "file, edit, message",
    [
        ("run_spec.json", lambda o: o["adapter_spec"].pop("method"), r"key 'method' missing"),
        (
            "per_instance_stats.json",
            lambda o: o[4]["stats"].__setitem__(
                next(i for i, s in enumerate(o[4]["stats"]) if s["name"]["name"] == "exact_match"),
                {"name": {"name": "exact_match", "split": "test"}, "mean": "yes", "count": 1},
            ),
            r"per_instance_stats.json\[4\]\.stats\[\d+\]: key 'mean' must be a number",
        ),
        (
            "stats.json",
            lambda o: next(
                s
                for s in o
                if s["name"]["name"] == "exact_match" and "perturbation" not in s["name"]
            ).update(mean=0.75),
            r"stats.json: exact_match \(test\) mean 0.75",
        ),
        ("scenario_state.json", lambda o: o.pop("request_states"), r"key 'request_states' missing"),
        (
            "scenario_state.json",
            lambda o: o["request_states"][2].update(train_trial_index={}),
            r"request_states\[2\]: key 'train_trial_index' must be an integer",
        ),
    ],
)
def test_bad_run_names_file_and_key(tmp_path, file, edit, message):
    run = tmp_path / PARITY.name
    shutil.copytree(PARITY, run)
    obj = json.loads((run / file).read_text())
    edit(obj)
    (run / file).write_text(json.dumps(obj))
    with pytest.raises(AuditInputError, match=message):
        helm.read(run)


def test_cut_per_instance_stats(tmp_path):
    run = tmp_path / PARITY.name
    shutil.copytree(PARITY, run)
    p = run / "per_instance_stats.json"
    p.write_text(p.read_text()[:1000])
    with pytest.raises(AuditInputError, match=r"per_instance_stats.json:\d+:\d+: truncated JSON"):
        read_inputs([run / "run_spec.json"])


def test_limited_is_run_wide_and_a_tiny_split_is_marked(tmp_path):
    """HELM samples max_eval_instances from all evaluation splits together. No run here spans
    two splits (simple_mcqa has only `test`), so the parity run's first instance is moved to a
    `valid` split, as HELM labels an instance of that split (its stats' name.split); stats.json
    (per-split aggregates of the unmoved run) is left out. The 10 instances still meet the cap
    of 10, so both splits are `limited` (compared per split, 9 and 1 would not be); the
    1-instance split (3 trials, 2 options) has chance (1/2)^3 of all correct: marked."""
    from fractions import Fraction

    run = tmp_path / PARITY.name
    shutil.copytree(PARITY, run)
    (run / "stats.json").unlink()
    per_instance = json.loads((run / "per_instance_stats.json").read_text())
    first = per_instance[0]["instance_id"]
    for e in per_instance:
        if e["instance_id"] == first:
            for s in e["stats"]:
                s["name"]["split"] = "valid"
    (run / "per_instance_stats.json").write_text(json.dumps(per_instance))
    spec = json.loads((run / "run_spec.json").read_text())
    assert spec["adapter_spec"]["max_eval_instances"] == 10
    results, _ = helm.read(run)
    by_task = {r.task: r for r in results}
    assert set(by_task) == {"simple_mcqa (test)", "simple_mcqa (valid)"}
    valid, test = by_task["simple_mcqa (valid)"], by_task["simple_mcqa (test)"]
    assert (valid.n, test.n) == (3, 27)
    assert valid.limited and test.limited
    chance = Fraction(1, 2) ** 3
    assert chance > Fraction(1, 20)
    assert any("too small to test" in n and f"{float(chance):.3g}" in n for n in valid.notes)
    assert not any("too small" in n for n in test.notes)
    # the same run with a cap above its 10 instances is not limited
    spec["adapter_spec"]["max_eval_instances"] = 11
    (run / "run_spec.json").write_text(json.dumps(spec))
    assert not any(r.limited for r in helm.read(run)[0])
