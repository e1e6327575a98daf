"""Every Eval Ever (EEE) in and out.

In: files written by EEE's own converter (every-eval-ever 0.3.0, `every_eval_ever convert
lm_eval`) from this project's real lm-eval fixture (tests/fixtures/audit/eee/README.md),
counted here by hand from the JSONL and against the original lm-eval files read directly.
Out: `--format eee` validated against the JSON schemas EEE's wheel ships (jsonschema) and
EEE's datastore path rules, by EEE's own validator where its venv exists, and read back to the
same table.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import jsonschema
import pytest

from evalsci.audit import audit_inputs
from evalsci.audit.eee_write import model_id
from evalsci.audit.readers import eee, read_inputs
from evalsci.cli import main

AUDIT = Path(__file__).parent / "fixtures" / "audit"
FIX = AUDIT / "eee"
LM_EEE = FIX / "lm_eval"
LM_ORIG = AUDIT / "lm_eval" / "smollm2" / "full"
SCHEMAS = FIX / "schema"
UUID4 = r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"
LAYOUT = re.compile(rf"^data/[^/]+/[^/]+/[^/]+/{UUID4}(\.json|_samples\.jsonl)$")
EEE_VALIDATE = os.environ.get("EVALSCI_EEE_VALIDATE", "/work/wt/venvs/eee/bin/every_eval_ever")


def by_hand(samples: Path, result_id: str) -> list[dict]:
    """The lines of one aggregate result in an EEE samples file, read with json alone."""
    lines = [json.loads(x) for x in samples.read_text().splitlines() if x.strip()]
    return [x for x in lines if x["evaluation_result_id"] == result_id]


def test_converted_lm_eval_reads_as_the_original():
    got = read_inputs([LM_EEE])
    orig = {r.task: r for r in read_inputs([LM_ORIG]).results}
    by_task = {r.task: r for r in got.results}
    assert set(by_task) == {"logic_local", "rte_local", "sst2_local"}
    for task, r in by_task.items():
        (samples,) = (LM_EEE / "data" / task).rglob("*_samples.jsonl")
        rows = by_hand(samples, "acc")  # EEE's registered metric_id "accuracy" is lm-eval's acc
        assert (r.n, r.correct) == (len(rows), sum(x["evaluation"]["is_correct"] for x in rows))
        assert r.labels == dict(Counter(len(x["input"]["choices"]) for x in rows))
        # paired on sample_hash: every line has one
        assert r.items == tuple(x["sample_hash"] for x in rows)
        o = orig[task]  # the lm-eval files the converter read
        assert (r.n, r.correct, r.labels, r.metric) == (o.n, o.correct, o.labels, o.metric)
        ids = {x["sample_hash"]: x["sample_id"] for x in rows}
        assert {ids[i]: v for i, v in zip(r.items, r.outcomes, strict=True)} == dict(
            zip(o.items, o.outcomes, strict=True)
        )
    reasons = {s.task: s.reason for s in got.skipped if s.task}
    assert "not multiple choice" in reasons["yesno_gen_local"]  # generate_until: no choices
    assert "no samples file" in reasons["glue_local"]  # a group: EEE wrote no samples for it


def test_items_fall_back_to_sample_id(tmp_path):
    """A file where a sample lacks its hash pairs every item on sample_id."""
    shutil.copytree(LM_EEE / "data" / "rte_local", tmp_path / "data" / "rte_local")
    (samples,) = tmp_path.rglob("*_samples.jsonl")
    (agg,) = tmp_path.rglob("*-*.json")
    lines = [json.loads(x) for x in samples.read_text().splitlines()]
    lines[0]["sample_hash"] = None
    text = "".join(json.dumps(x) + "\n" for x in lines)
    samples.write_text(text)
    record = json.loads(agg.read_text())
    del record["detailed_evaluation_results"]["checksum"]  # the edit changed the bytes
    agg.write_text(json.dumps(record))
    (r,), _ = eee.read(agg)
    assert r.items == tuple(x["sample_id"] for x in lines if x["evaluation_result_id"] == "acc")


def test_checksum_mismatch_names_the_file(tmp_path):
    shutil.copytree(LM_EEE / "data" / "rte_local", tmp_path / "data" / "rte_local")
    (samples,) = tmp_path.rglob("*_samples.jsonl")
    samples.write_text(samples.read_text().replace('"is_correct": false', '"is_correct": true', 1))
    (agg,) = tmp_path.rglob("*-*.json")
    with pytest.raises(Exception, match=f"{samples.name}.*checksum"):
        eee.read(agg)


def _csv(tmp_path: Path) -> Path:
    """A tidy CSV (the audit's own input format) with a stated t and mixed options."""
    f = tmp_path / "scores.csv"
    f.write_text(
        'model,task,n,correct,labels,t\nm1,mix,40,25,"{""2"": 20, ""4"": 20}",7\n'
        'm2,mix,40,18,"{""2"": 20, ""4"": 20}",7\n'
    )
    return f


def _inputs(tmp_path: Path) -> list[Path]:
    return [
        AUDIT / "inspect_ai" / "eval",
        AUDIT / "helm" / "runs",
        LM_ORIG,
        _csv(tmp_path),
    ]


def _write(inputs, out: Path, capsys) -> None:
    rc = main(["audit", *map(str, inputs), "--format", "eee", "--out", str(out)])
    err = capsys.readouterr().err
    assert rc == 0, err


def test_round_trip_gives_the_same_table(tmp_path, capsys):
    inputs = _inputs(tmp_path)
    before, _ = audit_inputs(inputs)
    out = tmp_path / "out"
    _write(inputs, out, capsys)
    after, skipped = audit_inputs([out])
    assert [s.reason for s in skipped if s.task is None] == [
        "evalsci's --format eee sidecar (the scores are read from the data/ files)"
    ]
    key = ["model", "task"]
    cols = [c for c in before.columns if c != "source"]  # the source is now the EEE file
    a, b = (
        df.astype({k: str for k in key}).sort_values(key).reset_index(drop=True)[cols]
        for df in (before, after)
    )
    assert len(a) == 12  # inspect 4, HELM 3, lm-eval 3, CSV 2
    for c in cols:
        assert a[c].astype(str).tolist() == b[c].astype(str).tolist(), c
    # the lm-eval model string is no EEE model id: filed under a sanitized one, read back as is
    lm_model = "/tmp/lmeval_fix/smollm2"  # lm-eval's model_args pretrained=
    assert model_id(lm_model) != lm_model and lm_model in set(b["model"])


def test_same_input_same_bytes(tmp_path, capsys):
    inputs = _inputs(tmp_path)
    trees = []
    for name in ("a", "b"):
        _write(inputs, tmp_path / name, capsys)
        root = tmp_path / name
        trees.append({str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*.json*")})
    assert trees[0] == trees[1] and len(trees[0]) > 10


def test_output_matches_the_eee_schemas_and_layout(tmp_path, capsys):
    out = tmp_path / "out"
    inputs = _inputs(tmp_path)
    _write(inputs, out, capsys)
    judged, _ = audit_inputs(inputs)
    rows = {(str(r.model), str(r.task)): r for r in judged.itertuples()}
    schemas = {
        ".json": json.loads((SCHEMAS / "eval.schema.json").read_text()),
        ".jsonl": json.loads((SCHEMAS / "instance_level_eval.schema.json").read_text()),
    }
    files = sorted(p for p in (out / "data").rglob("*") if p.is_file())
    assert len(files) == 22  # 12 aggregates; 10 with per-item outcomes (not the CSV's 2)
    for p in files:
        rel = p.relative_to(out).as_posix()
        assert LAYOUT.match(rel), rel
        schema = schemas[p.suffix]
        checker = jsonschema.validators.validator_for(schema)(schema)
        records = (
            [json.loads(x) for x in p.read_text().splitlines()]
            if p.suffix == ".jsonl"
            else [json.loads(p.read_text())]
        )
        for rec in records:
            errors = [e.message for e in checker.iter_errors(rec)]
            assert not errors, (rel, errors[:3])
        if p.suffix == ".json":
            rec = records[0]
            details = rec["evaluation_results"][0]["score_details"]["details"]
            row = rows[(details["evalsci_model"], rec["evaluation_results"][0]["evaluation_name"])]
            for col in ("standard", "max_baseline", "p_standard", "p_max", "p_max_adjusted"):
                assert float(details[f"evalsci_{col}"]) == getattr(row, col), col  # exact
            assert details["evalsci_verdict"] == row.verdict
            assert int(details["evalsci_t"]) == row.t
            link = rec.get("detailed_evaluation_results")
            if link:  # the aggregate names its samples file, in the same folder, same UUID
                assert link["file_path"] == rel.replace(".json", "_samples.jsonl")
                assert (out / link["file_path"]).is_file()
    sidecar = json.loads((out / "evalsci_audit.json").read_text())
    assert len(sidecar["scores"]) == 12 and sidecar["skipped"]


@pytest.mark.skipif(
    not Path(EEE_VALIDATE).is_file(),
    reason="EEE's own validator needs Python >= 3.12 and every-eval-ever 0.3.0 in a venv of "
    "its own (EVALSCI_EEE_VALIDATE=<venv>/bin/every_eval_ever); the schema test covers CI",
)
def test_eee_validator_accepts_the_folder(tmp_path, capsys):
    out = tmp_path / "out"
    _write(_inputs(tmp_path), out, capsys)
    run = subprocess.run(
        [EEE_VALIDATE, "validate", "data/*/*/*/*.json", "data/*/*/*/*.jsonl", "--format", "json"],
        cwd=out,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    reports = json.loads(run.stdout)
    assert len(reports) == 22
    assert all(r["valid"] and not r["errors"] and not r["warnings"] for r in reports), reports


def test_format_eee_needs_out(capsys):
    assert main(["audit", str(LM_ORIG), "--format", "eee"]) == 2
    assert "--out" in capsys.readouterr().err


def test_converted_inspect_logs_pair_on_sample_hash():
    """EEE's inspect converter (tests/fixtures/audit/eee/README.md) from the mc_single and
    gen_match .eval logs of both mock models: the same counts as the logs read directly, and
    the two models' items are the same hashes, so --compare pairs them."""
    got = read_inputs([FIX / "inspect"])
    by_model = {r.model: r for r in got.results}
    assert set(by_model) == {"mockllm/alpha", "mockllm/beta"}
    logs = sorted((AUDIT / "inspect_ai" / "eval").glob("*_mc-single_*.eval"))
    direct = {r.model: r for p in logs for r in read_inputs([p]).results}
    for model, r in by_model.items():
        (samples,) = (FIX / "inspect" / "data" / "arith12" / model).glob("*_samples.jsonl")
        rows = by_hand(samples, "choice:accuracy")
        assert r.items == tuple(x["sample_hash"] for x in rows)
        ids = {x["sample_hash"]: x["sample_id"] for x in rows}
        d = direct[model]
        assert (r.n, r.correct, r.labels) == (d.n, d.correct, d.labels)
        assert {ids[i]: v for i, v in zip(r.items, r.outcomes, strict=True)} == dict(
            zip(d.items, d.outcomes, strict=True)
        )
    assert by_model["mockllm/alpha"].items == by_model["mockllm/beta"].items
    assert sorted(s.task for s in got.skipped if s.task) == ["gen_match", "gen_match"]


def test_converted_helm_runs():
    """EEE's HELM converter (tests/fixtures/audit/eee/README.md) on the two simple_mcqa runs
    (10 instances x 3 train trials). simple/model1 (always wrong) reads as the run itself; for
    fixture/parity, whose outcomes differ between trials, EEE 0.3.0's samples repeat one
    outcome per instance and disagree with its own aggregate: refused, naming both counts."""
    got = read_inputs([FIX / "helm"])
    runs = read_inputs([AUDIT / "helm" / "runs"]).results
    direct = {r.model: r for r in runs if r.task == "simple_mcqa"}
    (r,) = got.results
    d = direct["simple/model1"]
    assert (r.model, r.task) == ("simple/model1", "simple_mcqa")
    assert (r.n, r.correct, r.labels) == (d.n, d.correct, d.labels) == (30, 0, {2: 30})
    (parity,) = (FIX / "helm" / "data" / "simple_mcqa" / "fixture" / "parity").glob("*-*.json")
    (samples,) = parity.parent.glob("*_samples.jsonl")
    rows = by_hand(samples, "exact_match:test")
    assert len(rows) == 30 and sum(x["evaluation"]["is_correct"] for x in rows) == 9
    assert direct["fixture/parity"].correct == 15  # HELM's own per-instance stats
    why = {s.path: s.reason for s in got.skipped}
    assert "score 0.5 but" in why[str(parity)] and "has 9 of 30 correct" in why[str(parity)]


def test_round_trip_keeps_option_bounds(tmp_path, capsys):
    """Scores read without items and with options known only as a range (the published
    leaderboard run's MMLU-Pro and MuSR object_placements) come back with their bounds."""
    src = AUDIT / "lm_eval" / "published" / "leaderboard"
    out = tmp_path / "out"
    _write([src], out, capsys)
    key = ["model", "task"]
    before, after = (
        df.astype({k: str for k in key}).sort_values(key).reset_index(drop=True)
        for df in (audit_inputs([src])[0], audit_inputs([out])[0])
    )
    cols = [c for c in before.columns if c != "source"]
    assert len(before) == 31
    for c in cols:
        assert before[c].astype(str).tolist() == after[c].astype(str).tolist(), c
    assert before["note"].str.contains("exact bounds over 2 to 10 options").sum() == 1


def test_converted_inspect_epochs():
    """EEE's inspect converter on the 3-epoch logs (tests/fixtures/audit/eee/README.md,
    `inspect_epochs/`): every sample has 3 lines carrying its value reduced over the epochs.
    beta's `mean` run has values strictly between 0 and 1: its right answers are the sum of
    its lines' values, counted as inspect's own log is (items x epochs answers, each a random
    guess under the null): the same n, count and options as the .eval log read directly, and
    the same audit row. The other three runs (alpha's, always consistent, and beta's
    at_least_1) have one 0/1 value per sample, which cannot tell a mean of agreeing epochs
    from a best-of per item: skipped with that reason."""
    root = FIX / "inspect_epochs"
    got = read_inputs([root])
    (r,) = got.results
    assert (r.model, r.task, r.items, r.t) == ("mockllm/beta", "mc_epochs_mean", None, None)
    agg = Path(r.source)
    assert agg.parent == root / "data" / "arith12" / "mockllm" / "beta"
    samples = agg.with_name(agg.stem + "_samples.jsonl")
    rows = by_hand(samples, "choice:accuracy")
    per = {}
    for x in rows:  # the epochs of a sample, by hand
        per.setdefault(x["sample_id"], []).append(x["evaluation"]["score"])
    assert {len(v) for v in per.values()} == {3} and len(per) == 12
    assert any(0 < v[0] < 1 for v in per.values())
    right = sum(round(sum(v)) for v in per.values())
    assert (r.n, r.correct) == (len(rows), right) == (36, 4)
    (log,) = (AUDIT / "inspect_ai" / "eval").glob("*-56-00-00_mc-epochs-mean_*.eval")
    (d,) = read_inputs([log]).results
    assert d.model == "mockllm/beta"
    assert (r.n, r.correct, r.labels) == (d.n, d.correct, d.labels)
    # the same audit row as the log's, t given (one score here, one there)
    cols = ["n", "choices", "standard", "max_baseline", "p_standard", "p_max", "p_below"]
    a, b = (audit_inputs([p], t=3)[0] for p in (agg, log))
    assert a[cols].astype(str).values.tolist() == b[cols].astype(str).values.tolist()
    why = [s.reason for s in got.skipped]
    assert len(why) == 3
    assert all("each sample occurs 3 times (epochs) with one 0/1 value" in w for w in why)
    assert sorted(s.task for s in got.skipped) == ["mc_epochs_best", "mc_epochs_best",
                                                    "mc_epochs_mean"]  # fmt: skip


def test_helm_generation_is_skipped_as_generation():
    """EEE files converted from HELM's NarrativeQA (EEE's own test run, `helm_generation/`)
    list the reference answers as input.choices, all correct, and free-text outputs: no
    options to guess among, so generation, skipped with that reason (issue 45: audited as
    2-option multiple choice). MMLU from the same converter stays multiple choice."""
    root = FIX / "helm_generation" / "data"
    nqa = next((root / "narrativeqa").rglob("*-*-*-*-*[0-9a-f].json"))
    rows = [json.loads(x) for x in nqa.with_name(nqa.stem + "_samples.jsonl").open()]
    assert all(r["input"]["choices"] == r["input"]["reference"] for r in rows)
    assert {len(r["input"]["choices"]) for r in rows} == {2}  # what looked like 2 options
    results, skipped = eee.read(nqa)
    assert results == [] and {s.task for s in skipped} == {"narrativeqa"}
    assert all(s.no_baseline for s in skipped)
    assert "generation, not multiple choice" in skipped[0].reason
    assert "every listed input.choices is a correct answer" in skipped[0].reason
    mmlu = next((root / "mmlu").rglob("*-*-*-*-*[0-9a-f].json"))
    (r,), _ = eee.read(mmlu)
    assert (r.task, r.n, r.labels) == ("mmlu", 9, {4: 9})
    got = read_inputs([root])  # the directory: mmlu audited, narrativeqa listed with its reason
    assert [x.task for x in got.results] == ["mmlu"]
    assert any("generation" in s.reason for s in got.skipped if s.task == "narrativeqa")


LM_PUB = AUDIT / "lm_eval" / "published"


def test_format_eee_from_lm_eval_names_developer_model_and_run_time(tmp_path, capsys, monkeypatch):
    """`--format eee` from lm-eval files (issue 45: developer "pretrained=EleutherAI", timestamp
    "0"): the developer and model come from model_args' `pretrained`, the timestamps from the
    run's own `date`; EEE's schema (and its validator where available) accepts the files."""
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    pythia = LM_PUB / "pythia" / "160m_step93000.json"  # pretrained=EleutherAI/pythia-v1.1-160m
    board = LM_PUB / "leaderboard_details"  # pretrained=Qwen/Qwen3-8B, date 1752233869.55
    out = tmp_path / "out"
    _write([pythia, board], out, capsys)
    aggs = [json.loads(p.read_text()) for p in (out / "data").rglob("*-*-*-*-*[0-9a-f].json")]
    ids = {(a["model_info"]["developer"], a["model_info"]["id"]) for a in aggs}
    assert ids == {("EleutherAI", "EleutherAI/pythia-v1.1-160m"), ("Qwen", "Qwen/Qwen3-8B")}
    date = json.loads((board / "results_2025-07-11T11-37-49.552951.json").read_text())["date"]
    for a in aggs:
        assert "=" not in a["model_info"]["developer"] + a["model_info"]["id"]
        if a["model_info"]["developer"] == "Qwen":
            assert a["evaluation_timestamp"] == a["retrieved_timestamp"] == str(int(date))
        else:  # lm-eval 0.3 wrote no date: nothing made up
            assert "evaluation_timestamp" not in a and a["retrieved_timestamp"] == "0"
    schema = json.loads((SCHEMAS / "eval.schema.json").read_text())
    checker = jsonschema.validators.validator_for(schema)(schema)
    assert all(not list(checker.iter_errors(a)) for a in aggs)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1800000000")  # the reproducible-builds override
    _write([board], tmp_path / "again", capsys)
    again = [json.loads(p.read_text()) for p in (tmp_path / "again" / "data").rglob("*.json")]
    assert again and all(
        (a["retrieved_timestamp"], a["evaluation_timestamp"]) == ("1800000000", str(int(date)))
        for a in again
    )
    if Path(EEE_VALIDATE).is_file():
        run = subprocess.run(
            [EEE_VALIDATE, "validate", "data/*/*/*/*.json", "data/*/*/*/*.jsonl"],
            cwd=out,
            capture_output=True,
            text=True,
            check=False,
        )
        assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
