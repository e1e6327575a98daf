"""The lm-eval family of readers on real files: lm-eval 0.4.13 run here on SmolLM2
(tests/fixtures/audit/lm_eval/smollm2, made by scripts/make_lm_eval_fixtures.py) and output
published in EleutherAI's own repositories (tests/fixtures/audit/lm_eval/published, sources in
its README). Expected values are counted here from the files themselves (samples lines,
n-samples, stderr), not taken from the reader.
"""

from __future__ import annotations

import hashlib
import json
import math
import shutil
from pathlib import Path

import pytest

from evalsci.audit.readers import lm_eval, lm_eval_v03, read_inputs
from evalsci.audit.readers.leaderboard import default_metric
from evalsci.audit.readers.lm_eval_tasks import lookup, options_of
from evalsci.audit.records import AuditInputError
from evalsci.cli import main

FIX = Path(__file__).parent / "fixtures" / "audit" / "lm_eval"
RUN = FIX / "smollm2"
PUB = FIX / "published"
MC = ("logic_local", "rte_local", "sst2_local")


def _results(run: str) -> Path:
    (p,) = (RUN / run).glob("results_*.json")
    return p


def _samples(run: str, task: str) -> list[dict]:
    (p,) = (RUN / run).glob(f"samples_{task}_*.jsonl")
    return [json.loads(line) for line in p.read_text().splitlines() if line.strip()]


def _by_task(results) -> dict:
    out = {r.task: r for r in results}
    assert len(out) == len(results)
    return out


def test_full_run_reads_each_mc_task_from_its_samples_and_skips_the_rest():
    got, skipped, used = lm_eval.read_results(_results("full"))
    res = _by_task(got)
    assert sorted(res) == list(MC)
    obj = json.loads(_results("full").read_text())
    for task in MC:
        recs = _samples("full", task)
        r = res[task]
        # counted by hand: one line per item, its 0/1 acc, one loglikelihood request per option
        assert r.n == len(recs) == obj["n-samples"][task]["effective"]
        assert r.correct == sum(int(x["acc"]) for x in recs)
        want = {}
        for x in recs:
            want[len(x["arguments"])] = want.get(len(x["arguments"]), 0) + 1
        assert r.labels == want
        assert r.accuracy == obj["results"][task]["acc,none"] == r.correct / r.n
        assert r.items == tuple(str(x["doc_id"]) for x in recs)
        assert r.outcomes == tuple(int(x["acc"]) for x in recs)
        assert (r.metric, r.derived, r.limited, r.choices_source) == (
            "acc",
            False,
            False,
            "samples",
        )
    # logical_deduction rows with three, five and seven objects: options vary by item
    assert res["logic_local"].labels == {3: 6, 5: 6, 7: 6}
    why = {s.task: s.reason for s in skipped}
    assert set(why) == {"glue_local", "yesno_gen_local"}
    assert "group" in why["glue_local"] and "sst2_local" in why["glue_local"]
    assert "generate_until" in why["yesno_gen_local"]
    # every samples file is accounted for, the generative task's with its task
    assert used == {p.resolve() for p in (RUN / "full").glob("samples_*.jsonl")}


def test_acc_norm_is_read_per_item_too():
    got, _, _ = lm_eval.read_results(_results("full"), metric="acc_norm")
    for r in got:
        recs = _samples("full", r.task)
        assert r.correct == sum(int(x["acc_norm"]) for x in recs) and r.metric == "acc_norm"


def test_run_without_samples_derives_counts_and_takes_options_from_the_config():
    got, skipped, used = lm_eval.read_results(_results("nosamples"))
    res = _by_task(got)
    assert sorted(res) == ["rte_local", "sst2_local"] and not used
    obj = json.loads(_results("nosamples").read_text())
    full = _by_task(lm_eval.read_results(_results("full"))[0])
    for task in ("rte_local", "sst2_local"):
        r = res[task]
        assert r.n == obj["n-samples"][task]["effective"] == 20
        assert r.correct == round(obj["results"][task]["acc,none"] * 20)
        # the same model on the same rows: the samples of the full run count the same
        assert r.correct == full[task].correct
        assert r.labels == {len(obj["configs"][task]["doc_to_choice"]): 20}
        assert r.derived and r.choices_source.startswith("doc_to_choice")
        assert r.items is None
    why = {s.task: s.reason for s in skipped}
    assert "--log_samples" in why["logic_local"]  # '{{choices}}': only samples say
    assert "generate_until" in why["yesno_gen_local"]


def test_limit_run_is_flagged():
    got, _, _ = lm_eval.read_results(_results("limit"))
    obj = json.loads(_results("limit").read_text())
    assert obj["config"]["limit"] == 5
    for r in got:
        assert r.limited and r.n == 5 == obj["n-samples"][r.task]["effective"]
        assert r.n < obj["n-samples"][r.task]["original"]
        assert r.correct == sum(int(x["acc"]) for x in _samples("limit", r.task))
        assert any("--limit" in note for note in r.notes)


def _lm_eval_stderr(k: int, n: int) -> float:
    # lm-eval's mean_stderr: sample standard deviation (n - 1) over sqrt(n), on 0/1 scores
    p = k / n
    return math.sqrt((k * (1 - p) ** 2 + (n - k) * p**2) / (n - 1)) / math.sqrt(n)


def test_pythia_v03_files():
    files = sorted((PUB / "pythia").glob("*.json"))
    per_file = {}
    for f in files:
        got, skipped = lm_eval_v03.read(f)
        obj = json.loads(f.read_text())
        assert len(got) + len(skipped) == len(obj["results"])  # every task read or skipped
        for r in got:
            e = obj["results"][r.task]
            assert r.correct / r.n == pytest.approx(e["acc"], abs=1e-12)
            assert _lm_eval_stderr(r.correct, r.n) == pytest.approx(e["acc_stderr"], rel=1e-9)
            assert r.derived and r.limited is False
        per_file[f.name] = {r.task: r for r in got}
        mmlu = [t for t in obj["results"] if t.startswith("hendrycksTest-")]
        assert set(mmlu) <= set(per_file[f.name])  # every MMLU subject read, 4 options each
        assert {per_file[f.name][t].labels[4] for t in mmlu} == {
            per_file[f.name][t].n for t in mmlu
        }
        reasons = {s.task: s.reason for s in skipped}
        assert "loglikelihood" in reasons["lambada_openai"]
        # ARC items have 3 to 5 options (no fixed count): read at 3, the bounds in the note
        assert "arc_easy" not in reasons
        assert per_file[f.name]["arc_easy"].options_range == (3, 5)
    zero, five = per_file["160m_step93000.json"], per_file["160m-5shot_step103000.json"]
    # zero- and five-shot score the same MMLU test split: the recovered n must agree
    common = set(zero) & set(five)
    assert len(common) >= 57
    assert all(zero[t].n == five[t].n for t in common)
    # MMLU test split sizes (Hendrycks et al.'s data): abstract_algebra 100, anatomy 135
    assert zero["hendrycksTest-abstract_algebra"].n == 100
    assert zero["hendrycksTest-anatomy"].n == 135
    # and the published split sizes of the other tasks (PIQA validation 1,838; SciQ test
    # 1,000; WinoGrande validation 1,267 (the issue's "10 of 1,267"); WSC 104)
    for f in (zero, five):
        assert {t: (f[t].n, f[t].labels) for t in ("piqa", "sciq", "winogrande", "wsc")} == {
            "piqa": (1838, {2: 1838}),
            "sciq": (1000, {4: 1000}),
            "winogrande": (1267, {2: 1267}),
            "wsc": (104, {2: 104}),
        }


def test_lm_eval_testdata():
    boolq = PUB / "lm_eval_testdata" / "boolq-v1-res.json"
    (r,), skipped = lm_eval_v03.read(boolq)
    assert not skipped
    # BoolQ validation has 3,270 questions (Clark et al., 2019); yes/no: 2 options
    assert (r.n, r.labels, r.correct) == (3270, {2: 3270}, round(0.5048929663608562 * 3270))
    got, skipped, _ = lm_eval.read_results(
        PUB / "lm_eval_testdata" / "cpu_regression_expected.json"
    )
    # ARC's options vary by item (3 to 5): a --limit 10 run is read at 3, its bounds noted
    (arc,) = got
    assert (arc.task, arc.n, arc.labels, arc.options_range) == ("arc_easy", 10, {3: 10}, (3, 5))
    assert arc.limited
    why = {s.task: s.reason for s in skipped}
    assert set(why) == {"lambada_openai", "wikitext"}
    assert "loglikelihood" in why["lambada_openai"] and "loglikelihood_rolling" in why["wikitext"]
    got, skipped, _ = lm_eval.read_results(
        PUB / "lm_eval_testdata" / "cpu_group_regression_expected.json"
    )
    assert sorted(r.task for r in got) == ["arc_challenge", "arc_easy"]
    assert {r.options_range for r in got} == {(3, 5)}
    assert {s.task for s in skipped} == {"regression_arc"}


def test_leaderboard_metric_is_the_one_its_task_yaml_lists():
    """default_metric against lm-eval's own leaderboard task definitions."""
    pytest.importorskip("lm_eval")
    import lm_eval as lm
    from lm_eval.tasks._index import Kind, TaskIndex

    root = Path(lm.__file__).parent / "tasks" / "leaderboard"
    checked = 0
    for name, e in TaskIndex.build([root]).items():
        if e.kind is not Kind.TASK:
            continue
        metrics = [m["metric"] for m in e.cfg.get("metric_list", [])]
        if e.cfg.get("output_type") == "multiple_choice":
            assert [default_metric(name)] == metrics, name
            checked += 1
        else:
            assert default_metric(name) is None, name
    assert checked >= 23 + 3 + 3 + 1  # BBH, GPQA, MuSR, MMLU-Pro


def test_per_task_metric_never_fails_the_file():
    got, skipped, _ = lm_eval.read_results(_results("full"), metric="exact_match")
    assert got == []
    assert {s.task for s in skipped} == {"glue_local", "yesno_gen_local", *MC}
    for s in skipped:
        if s.task in MC:
            assert "metric 'exact_match' not in the results" in s.reason


def test_known_task_table_rows():
    assert (lookup("mmlu_formal_logic").options, lookup("mmlu_formal_logic").basis) == (4, "list")
    assert lookup("hendrycksTest-formal_logic").task == "mmlu_formal_logic"
    assert lookup("gsm8k").output_type == "generate_until"
    assert lookup("arc_easy").options is None
    assert lookup("piqa").options == 2  # "{{[sol1, sol2]}}"
    assert options_of("{{[sol1, sol2]}}") == (2, "jinja_list")
    assert options_of("{{choices.text}}") == (None, "template")
    assert options_of("choices") == (None, "field")
    assert options_of(["A", "B", "C", "D"]) == (4, "list")


# --- bad input: a clear error naming the file, line or key; never a traceback ---------------


def _copy_run(tmp_path: Path, run: str = "full") -> Path:
    d = tmp_path / run
    shutil.copytree(RUN / run, d)
    return d


def _lfs_pointer(content: bytes) -> str:
    # the pointer git-lfs commits in place of a file (https://git-lfs.github.com/spec/v1)
    oid = hashlib.sha256(content).hexdigest()
    return f"version https://git-lfs.github.com/spec/v1\noid sha256:{oid}\nsize {len(content)}\n"


def test_lfs_pointer_samples_fall_back_to_the_results(tmp_path):
    d = _copy_run(tmp_path)
    (s,) = d.glob("samples_sst2_local_*.jsonl")
    s.write_text(_lfs_pointer(s.read_bytes()))
    found = read_inputs([d])
    res = _by_task(found.results)
    assert res["sst2_local"].derived and res["sst2_local"].n == 20
    assert any("Git LFS pointer" in note for note in res["sst2_local"].notes)
    assert res["rte_local"].choices_source == "samples"
    assert not [x for x in found.skipped if x.task is None]  # the pointer is not listed twice


def test_lfs_pointer_named_as_one(tmp_path, capsys):
    p = tmp_path / "results_2024-01-01T00-00-00.json"
    p.write_text(_lfs_pointer(_results("full").read_bytes()))
    assert main(["audit", str(p)]) == 2
    err = capsys.readouterr().err
    assert str(p) in err and "Git LFS pointer" in err and "Traceback" not in err


def test_non_utf8_names_its_line(tmp_path, capsys):
    p = tmp_path / "results_x.json"
    lines = _results("full").read_bytes().split(b"\n")
    lines[2] = lines[2] + b"\xff"
    p.write_bytes(b"\n".join(lines))
    assert main(["audit", str(p)]) == 2
    assert f"{p}:3: not UTF-8" in capsys.readouterr().err


def test_truncated_json_names_its_line(tmp_path):
    p = tmp_path / "results_2024-01-01T00-00-00.json"
    p.write_bytes(_results("full").read_bytes()[:700])
    with pytest.raises(AuditInputError, match=rf"{p}:\d+:\d+: truncated JSON"):
        lm_eval.read_results(p)


def test_samples_line_that_is_an_array(tmp_path, capsys):
    d = _copy_run(tmp_path)
    (s,) = d.glob("samples_rte_local_*.jsonl")
    lines = s.read_text().splitlines()
    lines[3] = json.dumps([1, 2, 3])
    s.write_text("\n".join(lines) + "\n")
    (r,) = d.glob("results_*.json")
    assert main(["audit", str(r)]) == 2
    err = capsys.readouterr().err
    assert f"{s}:4: expected a JSON object, got list" in err and "Traceback" not in err


def test_configs_entry_that_is_a_string(tmp_path, capsys):
    d = _copy_run(tmp_path, "nosamples")
    (r,) = d.glob("results_*.json")
    obj = json.loads(r.read_text())
    obj["configs"]["rte_local"] = "multiple_choice"
    r.write_text(json.dumps(obj))
    assert main(["audit", str(r)]) == 2
    assert "key 'configs.rte_local': expected a JSON object, got str" in capsys.readouterr().err


def test_bad_file_inside_a_directory_is_listed_not_fatal(tmp_path):
    d = _copy_run(tmp_path)
    (d / "broken.json").write_bytes(b'{"results": {')
    found = read_inputs([d])
    assert {r.task for r in found.results} == set(MC)
    (b,) = [s for s in found.skipped if s.path.endswith("broken.json")]
    assert "truncated JSON" in b.reason


def test_issue_scenario_which_inputs_give_results():
    """The issue's scenario, on the real inputs at hand: before, only a 0.4 run with
    --log_samples and only multiple-choice tasks gave a result. Now every input with a
    multiple-choice task whose n and options the file (or the task table) fixes does."""
    inputs = {
        "pythia 0.3 zero-shot": PUB / "pythia" / "160m_step93000.json",
        "pythia 0.3 five-shot": PUB / "pythia" / "160m-5shot_step103000.json",
        "lm-eval 0.3 boolq": PUB / "lm_eval_testdata" / "boolq-v1-res.json",
        "lm-eval 0.4 no configs, limit": PUB / "lm_eval_testdata" / "cpu_regression_expected.json",
        "lm-eval 0.4 group, limit": PUB / "lm_eval_testdata" / "cpu_group_regression_expected.json",
        "mixed MC + generative + group": RUN / "full",
        "no --log_samples": RUN / "nosamples",
        "--limit 5": RUN / "limit",
        "Open LLM Leaderboard v2": PUB / "leaderboard" / "Qwen3-8B_2025-07-11_113749_results.json",
    }
    gives = {}
    for name, p in inputs.items():
        try:
            gives[name] = len(read_inputs([p]).results)
        except AuditInputError:
            gives[name] = 0
    assert gives == {
        # the 57 MMLU subjects + piqa, sciq, winogrande, wsc + ARC's two (options per item
        # bounded, test_audit_option_bounds); not logiqa (options per item, no bounds here),
        # lambada (loglikelihood), crows_pairs (no acc)
        "pythia 0.3 zero-shot": 57 + 4 + 2,
        "pythia 0.3 five-shot": 57 + 4 + 2,
        "lm-eval 0.3 boolq": 1,
        "lm-eval 0.4 no configs, limit": 1,  # ARC-Easy, bounded; the others not MC
        "lm-eval 0.4 group, limit": 2,  # ARC-Easy and ARC-Challenge, bounded
        "mixed MC + generative + group": 3,
        "no --log_samples": 2,
        "--limit 5": 3,
        # BBH + GPQA; MuSR and MMLU-Pro from the option-count table (test_audit_option_bounds)
        "Open LLM Leaderboard v2": 24 + 3 + 3 + 1,
    }


def test_open_llm_leaderboard_file_each_task_its_own_metric():
    """A leaderboard run (lm-eval 0.4, `--tasks leaderboard --limit 1`) published in
    mattdepaolis/llm-evaluation: BBH, GPQA by acc_norm, generated-text tasks skipped, MuSR
    and MMLU-Pro (options per item, no samples here) read from the option-count table
    (tests/test_audit_option_bounds.py)."""
    f = PUB / "leaderboard" / "Qwen3-8B_2025-07-11_113749_results.json"
    obj = json.loads(f.read_text())
    got, skipped, _ = lm_eval.read_results(f)
    res = _by_task(got)
    bbh = [t for t in obj["configs"] if t.startswith("leaderboard_bbh_")]
    gpqa = [t for t in obj["configs"] if t.startswith("leaderboard_gpqa_")]
    musr = [t for t in obj["configs"] if t.startswith("leaderboard_musr_")]
    assert sorted(res) == sorted([*bbh, *gpqa, *musr, "leaderboard_mmlu_pro"])
    assert len(bbh) == 24 and len(gpqa) == 3 and len(musr) == 3
    for t in bbh + gpqa:
        r = res[t]
        n = obj["n-samples"][t]["effective"]
        assert r.metric == "acc_norm" and r.limited and r.derived
        assert r.n == n and r.correct == round(obj["results"][t]["acc_norm,none"] * n)
        assert r.labels == {len(obj["configs"][t]["doc_to_choice"]): n}
    why = {s.task: s.reason for s in skipped}
    assert "generate_until" in why["leaderboard_ifeval"]
    assert all(
        "generate_until" in why[t]
        for t in why
        if t.startswith("leaderboard_math_") and t != "leaderboard_math_hard"
    )
    assert res["leaderboard_mmlu_pro"].options_range == (2, 10)  # a function: letters per item
    assert len(got) + len(skipped) == len(obj["results"])  # nothing passed over silently
    # --metric overrides every task's: acc exists only for MMLU-Pro, and nothing fails the file
    got, skipped, _ = lm_eval.read_results(f, metric="acc")
    assert [r.task for r in got] == ["leaderboard_mmlu_pro"]
    assert "metric 'acc' not in the results" in {s.task: s.reason for s in skipped}[bbh[0]]


LB_DETAILS = PUB / "leaderboard_details"
LB_TS = "2025-07-11T11-37-49.552951"


def test_open_llm_leaderboard_details_read_from_their_samples():
    """The same leaderboard run with five tasks' samples beside it, as lm-eval's
    `--log_samples` lays them out (each line its real sample, holding every option's
    few-shot prompt: up to 34 KB, far beyond the first 4 KB a format is sniffed from). Each
    task is counted from its samples (options = the line's requests), and no samples file is
    passed over as an unrecognised file."""
    inputs = read_inputs([LB_DETAILS])
    res = _by_task(inputs.results)
    files = sorted(LB_DETAILS.glob("samples_*.jsonl"))
    assert len(files) == 5 and max(f.stat().st_size for f in files) > 30_000
    for f in files:
        task = f.name.removeprefix("samples_").removesuffix(f"_{LB_TS}.jsonl")
        (rec,) = [json.loads(line) for line in f.read_text("utf-8").splitlines()]
        metric = default_metric(task)
        r = res[task]
        assert r.choices_source == "samples" and not r.derived and r.metric == metric
        assert r.labels == {len(rec["arguments"]): 1} and r.correct == int(rec[metric])
    assert not [s for s in inputs.skipped if "samples_" in s.path]


def test_samples_file_is_sniffed_from_its_first_line_not_read_whole(tmp_path):
    """A details dump holds ~17 KB a line and 10^4 to 10^5 lines a task: telling a samples
    file from a results JSON must read one line (here the rest of the file is not JSON at
    all), and reading it must hold one line at a time (memory flat in the number of lines)."""
    import tracemalloc

    from evalsci.audit.readers.sniff import LM_EVAL_SAMPLES, sniff

    task = "leaderboard_bbh_reasoning_about_colored_objects"
    line = (LB_DETAILS / f"samples_{task}_{LB_TS}.jsonl").read_bytes()
    assert len(line) > 30_000 and line.count(b"\n") == 1
    bad = tmp_path / f"samples_{task}_x.jsonl"
    bad.write_bytes(line + b"not JSON\n")
    assert sniff(bad) == LM_EVAL_SAMPLES

    rec = json.loads(line)
    peaks = {}
    for n in (100, 1000):  # 3.4 MB and 34 MB of samples
        d = tmp_path / f"n{n}"
        d.mkdir()
        with open(d / f"samples_{task}_{LB_TS}.jsonl", "w", encoding="utf-8") as fh:
            for i in range(n):
                rec["doc_id"] = i
                fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
        obj = json.loads((LB_DETAILS / f"results_{LB_TS}.json").read_text("utf-8"))
        obj["results"] = {task: {"acc_norm,none": rec["acc_norm"]}}
        obj["n-samples"] = {task: {"original": n, "effective": n}}
        obj["configs"] = {task: obj["configs"][task]}
        obj.pop("group_subtasks")
        (d / f"results_{LB_TS}.json").write_text(json.dumps(obj))
        tracemalloc.start()
        (r,) = read_inputs([d]).results
        peaks[n] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert r.n == n and r.labels == {18: n}
    # ten times the lines: the peak grows by the per-item counts (bytes an item), not by
    # the 30 MB of text a whole-file read would hold
    assert peaks[1000] - peaks[100] < 3_000_000, peaks


def test_results_saved_from_the_python_api_carry_their_samples():
    """`simple_evaluate(..., log_samples=True)` returns the samples inside the results object;
    two such files (lm-eval 0.4.8) published in mattdepaolis/llm-evaluation."""
    d = PUB / "python_api"
    arc = d / "results_DialoGPT-medium_hf_arc_easy_20250530_152952.json"
    obj = json.loads(arc.read_text())
    (r,), skipped, used = lm_eval.read_results(arc)
    recs = obj["samples"]["arc_easy"]
    assert not skipped and not used
    assert r.n == len(recs) == obj["n-samples"]["arc_easy"]["effective"]
    assert r.correct == sum(int(x["acc"]) for x in recs)
    assert r.labels == {4: 3} == {len(recs[0]["arguments"]): len(recs)}
    assert r.choices_source == "samples" and not r.derived and r.limited
    gsm = d / "results_gemma-2b_hf_gsm8k_20250530_123303.json"
    got, skipped, _ = lm_eval.read_results(gsm)
    assert got == [] and "generate_until" in skipped[0].reason
    # a directory holding both keeps the multiple-choice run
    assert [x.task for x in read_inputs([d]).results] == ["arc_easy"]


# lm-eval 0.4.0 itself (PyPI, run offline by scripts/make_lm_eval_040_fixtures.py): results.json
# and, per task, <model_args with / and = as __>_<task>.jsonl holding ONE indented JSON array
V040 = FIX / "v0_4_0"
V040_ARGS = "pretrained=HuggingFaceTB/SmolLM2-135M-Instruct,dtype=float32"


def test_lm_eval_040_sample_arrays_are_read_with_their_results():
    """Issue 45: these files were "not a recognised results file", so their items and their
    options per item were lost (the task judged at a bound, or skipped)."""
    res = json.loads((V040 / "results.json").read_text())
    assert res["config"]["model_args"] == V040_ARGS and "date" not in res  # 0.4.0's layout
    arr = V040 / "pretrained__HuggingFaceTB__SmolLM2-135M-Instruct,dtype__float32_logic_local.jsonl"
    samples = json.loads(arr.read_text())  # one JSON array, not JSON Lines
    assert isinstance(samples, list) and arr.read_text().startswith("[\n  {\n")
    got, skipped, used = lm_eval.read_results(V040 / "results.json")
    (r,) = got
    assert r.task == "logic_local" and r.choices_source == "samples"
    assert (r.n, r.correct) == (len(samples), sum(int(s["acc"]) for s in samples))
    assert r.item_options == tuple(len(s["arguments"]) for s in samples)
    assert r.labels == {3: 6, 5: 6, 7: 6}  # only the samples say it (doc_to_choice a template)
    assert r.correct / r.n == pytest.approx(res["results"]["logic_local"]["acc,none"], abs=1e-12)
    (s,) = skipped
    assert s.task == "yesno_gen_local" and "generate_until" in s.reason and s.no_baseline
    assert arr.resolve() in used
    # the directory: both sample arrays are read or passed over with their tasks, not on their own
    found = read_inputs([V040])
    assert [x.task for x in found.results] == ["logic_local"]
    assert not [x for x in found.skipped if x.path.endswith(".jsonl")]


def test_lm_eval_040_sample_array_alone_names_its_results_file(tmp_path):
    arr = next(V040.glob("*_logic_local.jsonl"))
    with pytest.raises(AuditInputError, match=r"results JSON .*0\.4\.0-0\.4\.2.*model_args"):
        read_inputs([arr])
