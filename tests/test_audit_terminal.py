"""`evalsci audit`'s output for people (issue 32 item 3), on real published files.

The default table of a 63-task file fits 160 columns; models and tasks are shortened, numbers
rounded, each note printed once under the table with a summary and a legend; CSV and JSON keep
every column and list what was skipped with its reason; exit codes 0 / 2 / 3; `-` is stdin.
Expected values come from the files themselves and from the JSON output at full precision.
"""

from __future__ import annotations

import csv
import io
import json
import re
import sys
from pathlib import Path

import pytest

from evalsci.audit import OUTPUT_COLUMNS, VERDICTS, read_inputs
from evalsci.audit.judge import VERDICT_MEANING
from evalsci.audit.terminal import COLUMNS, DROP_ORDER, output_width, short_models
from evalsci.cli import main

REPO = Path(__file__).resolve().parents[1]
PUB = Path("tests/fixtures/audit/lm_eval/published")
PYTHIA = PUB / "pythia" / "160m_step93000.json"  # 63 multiple-choice tasks, 24 skipped
GSM8K = PUB / "python_api" / "results_gemma-2b_hf_gsm8k_20250530_123303.json"  # generative


@pytest.fixture(autouse=True)
def in_repo(monkeypatch):
    monkeypatch.chdir(REPO)  # the paths printed are relative to the working directory


def run(capsys, *argv):
    rc = main(["audit", *map(str, argv)])
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.mark.parametrize("columns", [80, 100, 160])
def test_default_table_of_a_63_task_file_follows_columns(capsys, monkeypatch, columns):
    """The table fits $COLUMNS (issue 45: 160 wide whatever the terminal); columns that do not
    fit are left out and named; every line of the report fits, and the summary is never cut
    between a verdict and its count."""
    monkeypatch.setenv("COLUMNS", str(columns))
    rc, out, err = run(capsys, PYTHIA)
    assert rc == 0 and err == ""
    lines = out.splitlines()
    assert max(map(len, lines)) <= columns
    rc, js, _ = run(capsys, PYTHIA, "--format", "json")
    scores = json.loads(js)["scores"]
    assert len(scores) == 63
    table = lines[2 : 2 + len(scores)]
    header = lines[0].split()
    raw = json.loads(PYTHIA.read_text())
    for row, score in zip(table, scores, strict=True):
        cells = row.split()
        # lm-eval's model_args string -> the model's own name (cut in the middle if narrow)
        assert raw["config"]["model_args"].startswith("pretrained=EleutherAI/pythia-v1.1-160m")
        name = "pythia-v1.1-160m"
        assert cells[0] == name or (cells[0][0] == name[0] and "~" in cells[0])
        assert cells[2] == f"{score['accuracy']:.4f}" and cells[3] == str(score["n"])
        assert score["verdict"] in cells
    if columns == 160:
        assert header == [h for h, _ in COLUMNS] and table[0].split()[0] == "pythia-v1.1-160m"
    else:  # the least needed columns left out, and said so
        gone = [h for h in DROP_ORDER if h not in header]
        assert gone and {"model", "task", "acc", "n", "k", "max", "p_max", "verdict"} <= set(header)
        assert f"left out to fit {columns} columns: {', '.join(gone)}" in " ".join(out.split())
    counts = {v: sum(s["verdict"] == v for s in scores) for v in VERDICTS}
    summary = ", ".join(f"{v} {counts[v]}" for v in reversed(VERDICTS))
    pairs = [f"{v} {counts[v]}" for v in reversed(VERDICTS)]
    (start,) = [i for i, line in enumerate(lines) if line.startswith("63 scores audited")]
    verdicts = next(i for i in range(start, len(lines)) if "Verdicts:" in lines[i])
    end = next(i for i in range(verdicts, len(lines)) if lines[i].endswith("."))
    for line in lines[start : end + 1]:  # no verdict apart from its count on a wrapped line
        assert not re.search(r"(^|, )\w+$|^\d+[,.]", line.strip()), line
    text = " ".join(out.split())  # the summary and notes wrap at the width
    assert all(p in " ".join(lines[start : end + 1]) for p in pairs)
    assert "63 scores audited (63 tasks, 1 file; 24 tasks skipped" in text
    assert f"Verdicts: {summary}." in text
    for v in VERDICTS:  # the legend
        assert f"{v}: {' '.join(VERDICT_MEANING[v].split())}" in text
    assert "family: the 63 scores of this output" in text
    # each note once: every distinct row note is printed once, and rows refer to it
    notes = {s["note"] for s in scores if s["note"]}
    for n in notes:
        assert text.count(" ".join(n.split())) == 1
    assert "pretrained=" not in out and str(REPO) not in out
    assert f"files (scores): {PYTHIA} (63)" in text


def test_width_is_100_without_a_terminal(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    assert output_width() == 100  # pytest's stdout is no terminal
    monkeypatch.setenv("COLUMNS", "80")
    assert output_width() == 80


def test_two_models_alike_in_name_keep_what_tells_them_apart(capsys):
    found = read_inputs([PUB / "pythia"])
    models = sorted({r.model for r in found.results})
    assert len(models) == 2 and all(m.startswith("pretrained=EleutherAI/pythia") for m in models)
    short = short_models(models)
    assert len(set(short.values())) == 2
    for m, s in short.items():  # the name, and the argument values the two do not share
        rev = dict(a.split("=", 1) for a in m.split(","))["revision"]
        assert s == f"pythia-v1.1-160m ({rev})"
    rc, out, _ = run(capsys, PUB / "pythia", PUB / "leaderboard")
    assert rc == 0 and max(map(len, out.splitlines())) <= 160


def test_csv_and_json_keep_every_column_and_list_the_skipped(capsys):
    skipped = read_inputs([PYTHIA]).skipped
    assert len(skipped) == 24
    rc, out, _ = run(capsys, PYTHIA, "--format", "csv")
    assert rc == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert list(rows[0]) == OUTPUT_COLUMNS
    scored = [r for r in rows if r["verdict"] != "skipped"]
    passed = [r for r in rows if r["verdict"] == "skipped"]
    assert len(scored) == 63
    assert [(r["source"], r["task"], r["note"]) for r in passed] == [
        (s.path, s.task, s.reason) for s in skipped
    ]
    assert all(r["accuracy"] == "" for r in passed)
    rc, out, _ = run(capsys, PYTHIA, "--format", "json")
    got = json.loads(out)
    assert set(got) == {"scores", "skipped", "summary"}
    assert list(got["scores"][0]) == OUTPUT_COLUMNS
    assert got["skipped"] == [{"path": s.path, "task": s.task, "reason": s.reason} for s in skipped]


def test_exit_codes(capsys, tmp_path):
    assert run(capsys, PYTHIA)[0] == 0  # some score audited
    rc, out, err = run(capsys, GSM8K)  # valid, but generated text only: no random baseline
    assert rc == 3 and out == ""
    assert "nothing to audit: no task has a random baseline" in err and "gsm8k" in err
    rc, out, err = run(capsys, tmp_path / "missing.json")  # bad input
    assert rc == 2 and "no such file" in err
    # a folder with both: the multiple-choice file is audited
    assert run(capsys, GSM8K, PYTHIA)[0] == 0


def test_documented_skips_exit_3_not_2(capsys):
    """Skips docs/audit.md lists are valid input with nothing to judge (exit 3), never bad
    input (2, "error:"): Every Eval Ever epochs that the file cannot split (issue 45: exited 2)."""
    alpha = Path("tests/fixtures/audit/eee/inspect_epochs/data/arith12/mockllm/alpha")
    for f in sorted(alpha.glob("*.json")):
        rc, out, err = run(capsys, f)
        assert rc == 3 and out == "" and "error" not in err
        assert "each sample occurs 3 times (epochs)" in err


def _stdin(monkeypatch, data: bytes):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


def test_dash_reads_one_input_from_stdin(capsys, monkeypatch):
    _stdin(monkeypatch, PYTHIA.read_bytes())
    rc, out, _ = run(capsys, "-", "--format", "json")
    assert rc == 0
    from_stdin = json.loads(out)["scores"]
    rc, out, _ = run(capsys, PYTHIA, "--format", "json")
    from_file = json.loads(out)["scores"]
    assert {s["source"] for s in from_stdin} == {"<stdin>"}
    strip = lambda rows: [{k: v for k, v in r.items() if k != "source"} for r in rows]  # noqa: E731
    assert strip(from_stdin) == strip(from_file)
    _stdin(monkeypatch, b"model,task,n,correct,choices\nm1,boolq,100,62,2\n")
    rc, out, _ = run(capsys, "-", "--format", "csv")
    assert rc == 0 and '"m1","boolq",0.62,100' in out and '"<stdin>:2"' in out
    rc, _, err = run(capsys, "-", "-")
    assert rc == 2 and "'-' (stdin) may be given once" in err


def test_compare_tables_for_people_fit_and_say_each_result(capsys):
    runs = [
        "tests/fixtures/audit/lm_eval/smollm2/full",
        "tests/fixtures/audit/compare/lm_eval/2shot",
        "tests/fixtures/audit/lm_eval/smollm2/limit",
    ]
    rc, out, _ = run(capsys, *runs, "--compare")
    assert rc == 0 and max(map(len, out.splitlines())) <= 160
    rc, js, _ = run(capsys, *runs, "--compare", "--format", "json")
    tests = json.loads(js)["tests"]
    lines = out.split("tests (p: exact")[1].split("\n\ngroups")[0].splitlines()[3:]
    assert len(lines) == len(tests)
    for line, t in zip(lines, tests, strict=True):
        if t["status"] != "tested":
            want = t["status"]
        elif t["test"] == "paired":
            want = "not separated" if not t["separated"] else "separated"
        else:
            want = "not above max" if not t["separated"] else "above max"
        assert f"  {want}" in line and line.startswith(t["task"])
    # lm-eval's model paths collide on their last part: the shortest tail that differs
    assert "lmeval_fix/smollm2" in out and "/tmp/" not in out


def test_columns_option_keeps_the_full_values_of_the_columns_asked(capsys):
    """--columns short (or a list): fewer columns for CSV/JSON/Markdown, the same values."""
    from evalsci.audit.columns import SHORT_COLUMNS

    rc, full, _ = run(capsys, PYTHIA, "--format", "csv")
    rc2, short, _ = run(capsys, PYTHIA, "--format", "csv", "--columns", "short")
    assert rc == rc2 == 0
    a, b = list(csv.DictReader(io.StringIO(full))), list(csv.DictReader(io.StringIO(short)))
    assert list(b[0]) == SHORT_COLUMNS and len(a) == len(b)
    assert all({k: x[k] for k in SHORT_COLUMNS} == y for x, y in zip(a, b, strict=True))
    rc, js, _ = run(capsys, PYTHIA, "--format", "json", "--columns", "task,p_max")
    assert rc == 0 and list(json.loads(js)["scores"][0]) == ["task", "p_max"]
    rc, _, err = run(capsys, PYTHIA, "--format", "csv", "--columns", "task,bogus")
    assert rc == 2 and "bogus" in err
