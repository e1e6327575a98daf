"""The inspect-ai reader on real logs (inspect-ai 0.3.285, mockllm provider, offline; see
tests/fixtures/audit/inspect_ai/PROVENANCE.md). Expected counts come from the mock models'
rules in make_logs.py and from the JSON logs counted here by hand, not from the reader."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest
import scipy.stats

from evalsci.audit import judge_inputs
from evalsci.audit.compare import compare
from evalsci.audit.readers import inspect_ai, read_inputs
from evalsci.audit.records import AuditInputError, Inputs

FIX = Path(__file__).parent / "fixtures" / "audit" / "inspect_ai"
LETTERS = "ABCDE"


def logs(fmt: str, task: str) -> dict[str, Path]:
    """{model: log} of one task in one format."""
    out = {}
    for p in sorted((FIX / fmt).glob(f"*_{task.replace('_', '-')}_*.{fmt}")):
        model = "alpha" if len(out) == 0 else "beta"  # make_logs.py runs alpha first
        out[model] = p
    assert set(out) == {"alpha", "beta"}, out
    return out


def item(k: int) -> tuple[int, str]:
    """(number of options, right letter) of item k, as make_logs.py builds it."""
    n_opt = 2 + (k - 1) % 4
    return n_opt, LETTERS[(k * 7) % n_opt]


def expected_single(model: str) -> list[int]:
    """Outcomes of the first (and only) attempt, from the mock models' rules."""
    out = []
    for k in range(1, 13):
        n_opt, right = item(k)
        if model == "alpha":
            out.append(int(bool(k % 3) and k % 4 != 0))
        else:
            out.append(int(right == "A"))
    return out


def by_hand(path: Path, scorer: str = "choice") -> tuple[int, int, list[int]]:
    """(n, number of 'C', options per sample) of a JSON log, read with json alone."""
    log = json.loads(path.read_text())
    values = [s["scores"][scorer]["value"] for s in log["samples"]]
    return len(values), values.count("C"), [len(s["choices"]) for s in log["samples"]]


@pytest.mark.parametrize("fmt", ["eval", "json"])
def test_single_epoch_counts_match_the_mock_rules(fmt):
    for model, path in logs(fmt, "mc_single").items():
        results, skipped = inspect_ai.read(path)
        assert skipped == []
        (r,) = results
        assert r.model == f"mockllm/{model}" and r.task == "mc_single"
        want = expected_single(model)
        assert (r.n, r.correct) == (12, sum(want))
        assert r.labels == {2: 3, 3: 3, 4: 3, 5: 3}
        assert dict(zip(r.items, r.outcomes, strict=True)) == {
            f"q{k:02d}": v for k, v in zip(range(1, 13), want, strict=True)
        }
        assert r.t is None and not r.limited and r.choices_source == "log"
        assert r.accuracy == pytest.approx(sum(want) / 12)


def test_json_logs_counted_by_hand():
    for task in ("mc_single", "mc_epochs_mean"):
        for path in logs("json", task).values():
            n, c, opts = by_hand(path)
            (r,) = inspect_ai.read(path)[0]
            assert (r.n, r.correct) == (n, c)
            assert sum(r.labels.values()) == n and sum(k * v for k, v in r.labels.items()) == sum(
                opts
            )


def test_eval_and_json_logs_agree():
    for task in ("mc_single", "mc_epochs_mean"):
        for model in ("alpha", "beta"):
            (a,) = inspect_ai.read(logs("eval", task)[model])[0]
            (b,) = inspect_ai.read(logs("json", task)[model])[0]
            assert (a.n, a.correct, a.labels) == (b.n, b.correct, b.labels)
            assert sorted(zip(a.items, a.outcomes, strict=True)) == sorted(
                zip(b.items, b.outcomes, strict=True)
            )


def test_mean_epochs_count_every_sample_epoch_and_are_not_tries():
    for path in logs("json", "mc_epochs_mean").values():
        log = json.loads(path.read_text())
        assert log["eval"]["config"]["epochs"] == 3
        (r,) = inspect_ai.read(path)[0]
        assert r.n == 36 and r.t is None
        assert len(set(r.items)) == 36 and {i.split("#")[1] for i in r.items} == {"1", "2", "3"}
        assert r.accuracy == log["results"]["scores"][0]["metrics"]["accuracy"]["value"]
        assert any("not tries" in n for n in r.notes)


@pytest.mark.parametrize("fmt", ["eval", "json"])
def test_best_of_epochs_and_generative_scorers_are_skipped_with_reasons(fmt):
    for path in logs(fmt, "mc_epochs_best").values():
        results, skipped = inspect_ai.read(path)
        assert results == [] and len(skipped) == 1
        assert "at_least_1" in skipped[0].reason and "1 - (1 - 1/k)^3" in skipped[0].reason
    for path in logs(fmt, "gen_match").values():
        results, skipped = inspect_ai.read(path)
        assert results == [] and "'match' is not multiple choice" in skipped[0].reason


def test_failed_run_is_skipped_with_its_status():
    (path,) = (FIX / "error").glob("*.eval")
    results, skipped = inspect_ai.read(path)
    assert results == [] and skipped[0].task is None
    assert "status 'error'" in skipped[0].reason and "ConnectionError" in skipped[0].reason


def test_paired_outcomes_against_scipy():
    """The two models' per-item outcomes pair by sample id; the exact McNemar (sign) test on
    the discordant items, computed here with scipy, is what --compare reports."""
    (a,) = inspect_ai.read(logs("eval", "mc_single")["alpha"])[0]
    (b,) = inspect_ai.read(logs("eval", "mc_single")["beta"])[0]
    assert set(a.items) == set(b.items)
    ob = dict(zip(b.items, b.outcomes, strict=True))
    a_only = sum(1 for i, o in zip(a.items, a.outcomes, strict=True) if o and not ob[i])
    b_only = sum(1 for i, o in zip(a.items, a.outcomes, strict=True) if not o and ob[i])
    p = scipy.stats.binomtest(a_only, a_only + b_only, 0.5).pvalue
    frame, judged = judge_inputs(Inputs(results=[a, b]))
    tests = compare(frame, judged)[0]
    paired = tests[tests["test"] == "paired"]
    assert (paired["a_only"].iloc[0], paired["b_only"].iloc[0]) == (a_only, b_only)
    assert paired["p"].iloc[0] == pytest.approx(p, rel=1e-12)


def test_read_inputs_on_the_directory():
    inputs = read_inputs([FIX])
    got = sorted((r.model, r.task, r.n, r.correct) for r in inputs.results)
    # 2 models x 2 readable tasks x 2 formats, the --limit run, and 2 models of inspect 0.3.150
    assert len(got) == 11
    reasons = [s.reason for s in inputs.skipped]
    assert sum("status 'error'" in r for r in reasons) == 1
    assert sum("at_least_1" in r for r in reasons) == 4
    assert sum("'match'" in r for r in reasons) == 4


def _copy(tmp_path: Path, fmt: str = "eval") -> Path:
    src = logs(fmt, "mc_single")["alpha"]
    dst = tmp_path / src.name
    shutil.copy(src, dst)
    return dst


def test_truncated_eval_names_the_file(tmp_path):
    p = _copy(tmp_path)
    data = p.read_bytes()
    p.write_bytes(data[: len(data) // 2])
    with pytest.raises(AuditInputError, match=rf"{p.name}: not a readable \.eval log"):
        inspect_ai.read(p)
    with pytest.raises(AuditInputError, match=p.name):  # named: an error, exit 2
        read_inputs([p])
    inputs = read_inputs([tmp_path, logs("json", "mc_single")["beta"]])  # found: skipped
    assert any(s.path == str(p) and "not a readable" in s.reason for s in inputs.skipped)


def test_corrupt_member_names_the_member(tmp_path):
    import zipfile

    p = _copy(tmp_path)
    info = zipfile.ZipFile(p).getinfo("header.json")
    data = bytearray(p.read_bytes())
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    data[start + info.compress_size // 2] ^= 0xFF
    p.write_bytes(bytes(data))
    with pytest.raises(AuditInputError, match=r"member 'header.json' unreadable"):
        inspect_ai.read(p)


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda log: log.pop("eval"), r"key 'eval' missing"),
        (lambda log: log["eval"].update(task=7), r"eval: key 'task' must be str"),
        (lambda log: log["results"].update(scores={}), r"key 'scores' must be list"),
        (
            lambda log: log["samples"][3]["scores"]["choice"].update(value="X"),
            r"samples\[3\] \(id 'q04'\): scores.choice.value 'X'",
        ),
        (lambda log: log["samples"][0].pop("choices"), r"samples\[0\] \(id 'q01'\): key 'choices'"),
        (
            lambda log: log["samples"][2].update(scores=True),
            r"samples\[2\] \(id 'q03'\): key 'scores'",
        ),
        (
            lambda log: log["results"]["scores"][0]["metrics"]["accuracy"].update(value=0.9),
            r"accuracy 0.9 but the samples have 6 of 12 correct",
        ),
        (  # issue 35 item 7: NaN (valid JSON to Python) agrees with no count
            lambda log: log["results"]["scores"][0]["metrics"]["accuracy"].update(value=math.nan),
            r"accuracy nan but the samples have 6 of 12 correct",
        ),
    ],
)
def test_bad_json_log_names_file_and_key(tmp_path, edit, message):
    src = logs("json", "mc_single")["alpha"]
    log = json.loads(src.read_text())
    edit(log)
    p = tmp_path / src.name
    p.write_text(json.dumps(log))
    with pytest.raises(AuditInputError, match=message) as e:
        inspect_ai.read(p)
    assert str(p) in str(e.value)


def test_cut_json_log(tmp_path):
    src = logs("json", "mc_single")["alpha"]
    p = tmp_path / src.name
    p.write_text(src.read_text()[:5000])
    with pytest.raises(AuditInputError, match=rf"{p.name}:\d+:\d+: (truncated|not valid) JSON"):
        read_inputs([p])


def test_deflate_members_read_too(tmp_path):
    """The same log with its members recompressed with deflate (zipfile's default method)."""
    import zipfile

    src = logs("eval", "mc_single")["alpha"]
    with zipfile.ZipFile(src) as zin:
        members = {n: json.dumps(inspect_ai._member(src, zin, n)) for n in zin.namelist()}
    p = tmp_path / src.name
    with zipfile.ZipFile(p, "w", compression=zipfile.ZIP_DEFLATED) as zout:
        for n, text in members.items():
            zout.writestr(n, text)
    (a,) = inspect_ai.read(src)[0]
    (b,) = inspect_ai.read(p)[0]
    assert (a.n, a.correct, a.labels, a.items, a.outcomes) == (
        b.n,
        b.correct,
        b.labels,
        b.items,
        b.outcomes,
    )


def test_numeric_choice_values_count_the_same(tmp_path):
    """Scores converted to numbers (1 for C, 0 for I) give the same counts."""
    src = logs("json", "mc_single")["alpha"]
    log = json.loads(src.read_text())
    for s in log["samples"]:
        s["scores"]["choice"]["value"] = 1 if s["scores"]["choice"]["value"] == "C" else 0
    p = tmp_path / src.name
    p.write_text(json.dumps(log))
    (a,) = inspect_ai.read(src)[0]
    (b,) = inspect_ai.read(p)[0]
    assert (b.n, b.correct, b.outcomes) == (a.n, a.correct, a.outcomes)


def test_optional_metadata_of_the_wrong_type_is_ignored(tmp_path):
    """`eval.dataset`, `eval.config` and the accuracy are optional: a log without them (or
    with something else there) is still read from its samples."""
    src = logs("json", "mc_single")["alpha"]
    log = json.loads(src.read_text())
    log["eval"]["dataset"] = 7
    log["eval"]["config"] = 7
    log["results"]["scores"][0]["metrics"]["accuracy"] = "x"
    p = tmp_path / src.name
    p.write_text(json.dumps(log))
    (r,) = inspect_ai.read(p)[0]
    assert (r.n, r.correct, r.accuracy) == (12, 6, None)


def test_limit_run_is_flagged():
    (path,) = (FIX / "limited").glob("*.eval")
    (r,), _ = inspect_ai.read(path)
    want = expected_single("alpha")[:5]
    assert r.items == ("q01", "q02", "q03", "q04", "q05") and list(r.outcomes) == want
    assert r.limited and r.notes == ("5 of the dataset's 12 samples (--limit / --sample-id)",)


def test_old_logs_without_summary_choices_read_their_samples():
    """inspect 0.3.150 wrote summaries.json without `choices` (old/, see PROVENANCE.md): the
    reader takes each sample's options from samples/*.json, and the counts are those of the
    mock rules, the same as inspect 0.3.285's logs of the same task."""
    import zipfile

    old = sorted((FIX / "old").glob("*.eval"))
    assert len(old) == 2
    for path in old:
        with zipfile.ZipFile(path) as zf:  # the defect this covers: no choices in the summaries
            summaries = json.loads(zf.read("summaries.json"))
            assert summaries and all("choices" not in s for s in summaries)
        (r,), skipped = inspect_ai.read(path)
        assert skipped == []
        model = r.model.removeprefix("mockllm/")
        want = expected_single(model)
        assert (r.n, r.correct) == (12, sum(want))
        assert r.labels == {2: 3, 3: 3, 4: 3, 5: 3}
        assert dict(zip(r.items, r.outcomes, strict=True)) == {
            f"q{k:02d}": v for k, v in zip(range(1, 13), want, strict=True)
        }
