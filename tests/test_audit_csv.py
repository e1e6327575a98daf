"""`evalsci audit` on a tidy CSV: values against scipy's binomial, and bad input."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.stats import binom

from evalsci.cli import main


def run(capsys, *argv):
    rc = main(["audit", *map(str, argv)])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_tidy_csv_values(tmp_path, capsys):
    f = tmp_path / "res.csv"
    f.write_text(
        "model,task,n,correct,choices\nm1,boolq,100,62,2\nm2,boolq,100,53,2\nm3,boolq,100,45,2\n"
    )
    rc, out, err = run(capsys, f, "--format", "json")
    assert rc == 0, err
    rows = json.loads(out)["scores"]
    k = np.arange(1, 101)
    emax3 = np.sum(1 - binom.cdf(k - 1, 100, 0.5) ** 3) / 100  # t = 3 rows of the task
    for r, c in zip(rows, (62, 53, 45), strict=True):
        assert (r["n"], r["choices"], r["t"]) == (100, 2, 3)
        assert r["accuracy"] == c / 100
        assert r["max_baseline"] == pytest.approx(emax3, rel=1e-9)
        assert r["p_standard"] == pytest.approx(binom.sf(c - 1, 100, 0.5), rel=1e-9)
        assert r["p_max"] == pytest.approx(1 - binom.cdf(c - 1, 100, 0.5) ** 3, rel=1e-9)
    assert [r["point_verdict"] for r in rows] == [
        "above_max",
        "above_standard_only",
        "not_above_standard",
    ]
    # as tests (Holm across the 3 rows): 62 of 100 beats one guesser (p 0.0105, 3 x p < 0.05)
    # but not the best of 3 (p_max 0.031, 3 x p_max > 0.05); 53 and 45 are chance
    assert [r["verdict"] for r in rows] == [
        "above_standard_only",
        "not_above_chance",
        "not_above_chance",
    ]
    assert rows[0]["p_max_adjusted"] == pytest.approx(3 * rows[0]["p_max"], rel=1e-12)


def test_tidy_csv_labels_and_t_column(tmp_path, capsys):
    f = tmp_path / "res.csv"
    f.write_text('model,task,n,accuracy,labels,t\nm,mix,4,0.5,"{""2"": 2, ""4"": 2}",10\n')
    rc, out, err = run(capsys, f, "--format", "csv")
    assert rc == 0, err
    line = out.splitlines()[1]
    assert '"{""2"": 2, ""4"": 2}",10,0.375' in line  # standard = (1/2 + 1/2 + 1/4 + 1/4) / 4


@pytest.mark.parametrize(
    "text, field",
    [
        ("model,task,n,accuracy\nm,x,10,0.5\n", "choices or labels"),
        ("model,task,n,accuracy,choices\nm,x,0,0.5,2\n", "'n'"),
        ("model,task,n,accuracy,choices\nm,x,10,1.5,2\n", "'accuracy'"),
        ("model,task,n,correct,choices\nm,x,10,11,2\n", "'correct'"),
        ('model,task,n,correct,labels\nm,x,10,5,"{""2"": 3}"\n', "'labels'"),
    ],
)
def test_bad_csv_one_line_exit_2(tmp_path, capsys, text, field):
    f = tmp_path / "bad.csv"
    f.write_text(text)
    rc, out, err = run(capsys, f)
    assert rc == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and str(f) in err and field in err


def test_missing_path_and_unknown_file(tmp_path, capsys):
    rc, _, err = run(capsys, tmp_path / "nope.csv")
    assert rc == 2 and "no such file" in err
    f = tmp_path / "x.json"
    f.write_text('{"a": 1}')
    rc, _, err = run(capsys, f)
    assert rc == 2 and "not a recognised results file" in err


def test_bom_spaces_blank_lines_and_line_numbers(tmp_path, capsys):
    f = tmp_path / "res.csv"
    f.write_bytes(
        b"\xef\xbb\xbfmodel , task, n , accuracy , choices\r\n"
        b"m1, boolq ,3, 0.333,2\r\n\r\nm2,boolq,3,0.667 ,2\r\n"
    )
    rc, out, err = run(capsys, f, "--format", "json")
    assert rc == 0, err
    rows = json.loads(out)["scores"]
    assert [(r["model"], r["task"], r["accuracy"]) for r in rows] == [
        ("m1", "boolq", 0.333),
        ("m2", "boolq", 0.667),
    ]
    # 0.333 of 3 items is 1 correct: P(X >= 1) = 7/8 for p = 1/2; line 3 is empty
    assert rows[0]["p_standard"] == pytest.approx(binom.sf(0, 3, 0.5), rel=1e-12)
    assert rows[1]["p_standard"] == pytest.approx(binom.sf(1, 3, 0.5), rel=1e-12)
    assert [r["source"] for r in rows] == [f"{f}:2", f"{f}:4"]
    assert all(r["derived"] and r["choices_source"] == "csv" for r in rows)


def test_blank_lines_and_spaced_names_with_newline_endings(tmp_path, capsys):
    """A file of plain newlines: the blank lines are looked for only when the rows read fall
    short of the lines, and then counted in every line named; fields are trimmed once per
    distinct text of a block, so ' m1 ' and 'm1' are one model (and a repeat is a duplicate)."""
    f = tmp_path / "res.csv"
    f.write_text("model,task,n,correct,choices\nm1,x,10,5,2\n\n m1 ,y,10,6,2\n\nm2, x ,10,7,2\n")
    rc, out, err = run(capsys, f, "--format", "json")
    rows = json.loads(out)["scores"]
    assert rc == 0, err
    assert [(r["model"], r["task"], r["source"]) for r in rows] == [
        ("m1", "x", f"{f}:2"),
        ("m1", "y", f"{f}:4"),
        ("m2", "x", f"{f}:6"),
    ]
    f.write_text("model,task,n,correct,choices\nm1,x,10,5,2\n\n m1 ,y,10,6,2\n\nm1, x ,10,7,2\n")
    rc, _, err = run(capsys, f)
    assert rc == 2 and f"{f}:6: duplicate of line 2 (model 'm1', task 'x')" in err
    f.write_text("model,task,n,correct,choices\nm1,x,10,5,2\n\nm2,x,10, zz ,2\n")
    rc, _, err = run(capsys, f)
    assert rc == 2 and f"{f}:4: field 'correct' is not a number: 'zz'" in err


def test_accuracy_must_be_a_count(tmp_path, capsys):
    f = tmp_path / "res.csv"
    f.write_text("model,task,n,accuracy,choices\nm,x,3,0.667,2\nm2,x,3,0.5,2\n")
    rc, out, err = run(capsys, f)
    assert rc == 2 and out == "" and f"{f}:3:" in err and "0.5 is no count of n = 3" in err
    # written with too few decimals to name one count: the nearest, with the range in `note`
    f.write_text("model,task,n,accuracy,choices\nm,x,1000,0.33,2\n")
    rc, out, err = run(capsys, f, "--format", "json")
    (row,) = json.loads(out)["scores"]
    assert rc == 0 and "325 to 335 correct of 1000" in row["note"]
    assert row["p_standard"] == pytest.approx(binom.sf(329, 1000, 0.5), rel=1e-12)


@pytest.mark.parametrize(
    "text, where",
    [
        # duplicates, conflicting or not, name both lines
        (
            "model,task,n,correct,choices\nm,x,10,5,2\nm,y,10,5,2\nm,x,10,9,2\n",
            ":4: duplicate of line 2",
        ),
        ("model,task,n,correct,choices\nm,x,10,5,2\nm,x,10,5,2\n", ":3: duplicate of line 2"),
        ("model,task,n,correct,choices,run\nm,x,10,5,2,a\nm,x,10,5,2,a\n", "run 'a'"),
        ("model,task,n,correct,choices\nm,x,10,5\n", ":2: 4 fields, the header has 5"),
        (
            'model,task,n,correct,labels\nm,x,3,1,"{""2"": 3}"\nm,y,3,1,"[3]"\n',
            ":3: field 'labels'",
        ),
        ("model,task,n,correct,choices,t\nm,x,3,1,2,\nm,y,3,1,2,0\n", ":3: field 't'"),
        ("model,task,n,correct,choices\nm,x,3,one,2\n", ":2: field 'correct' is not a number"),
        ("model,task,n,correct,choices\n,x,3,1,2\n", ":2: field 'model' is empty"),
        ("model,task,n,correct,choices,n\nm,x,3,1,2,3\n", ":1: column(s) ['n'] appear twice"),
        # issue 35 item 7: an item of one option is always right
        (
            "model,task,n,accuracy,choices\nm,x,4,1,2\nm,y,4,0.5,1\n",
            ":3: 4 of n = 4 items have one",
        ),
        (
            'model,task,n,correct,labels\nm,x,4,1,"{""1"": 2, ""2"": 2}"\n',
            ":2: 2 of n = 4 items have one option (always correct), but only 1",
        ),
    ],
)
def test_bad_csv_names_the_line(tmp_path, capsys, text, where):
    f = tmp_path / "bad.csv"
    f.write_text(text)
    rc, out, err = run(capsys, f)
    assert rc == 2 and out == "", err
    assert len(err.strip().splitlines()) == 1 and where in err and str(f) in err


def test_runs_told_apart_are_not_duplicates(tmp_path, capsys):
    f = tmp_path / "res.csv"
    f.write_text("model,task,n,correct,choices,run\nm,x,10,5,2,a\nm,x,10,9,2,b\n")
    rc, out, err = run(capsys, f, "--format", "json")
    assert rc == 0 and [r["t"] for r in json.loads(out)["scores"]] == [2, 2]


def test_non_utf8_names_the_line(tmp_path, capsys):
    f = tmp_path / "bad.csv"
    f.write_bytes(b"model,task,n,correct,choices\nm,x,3,1,2\nm,caf\xe9,3,1,2\n")
    rc, _, err = run(capsys, f)
    assert rc == 2 and f"{f}:3: not UTF-8" in err
    # beyond the first 4 kB the sniffer reads: the CSV reader names it
    body = b"".join(b"m%d,x,3,1,2\n" % i for i in range(2000))
    f.write_bytes(b"model,task,n,correct,choices\n" + body + b"m,caf\xe9,3,1,2\n")
    rc, _, err = run(capsys, f)
    assert rc == 2 and f"{f}:2002: not UTF-8" in err, err


def test_t_rules_and_the_single_score_note(tmp_path, capsys):
    f = tmp_path / "res.csv"
    f.write_text(
        "model,task,n,correct,choices,t\n"
        "m1,boolq,100,62,2,\nm2,boolq,100,55,2,\nm1,copa,100,70,2,\nm1,rte,100,60,2,200\n"
    )
    rc, out, err = run(capsys, f, "--format", "json")
    assert rc == 0
    rows = {r["task"] + r["model"]: r for r in json.loads(out)["scores"]}
    assert (rows["boolqm1"]["t"], rows["boolqm1"]["t_rule"]) == (2, "task_scores")
    assert (rows["copam1"]["t"], rows["copam1"]["t_rule"]) == (1, "task_scores")
    assert (rows["rtem1"]["t"], rows["rtem1"]["t_rule"]) == (200, "stated")
    assert "t = 1" in rows["copam1"]["note"] and "--t" in rows["copam1"]["note"]
    assert rows["copam1"]["max_baseline"] == pytest.approx(rows["copam1"]["standard"], abs=1e-12)
    assert "t rule task_scores (3 scores)" in err and "t rule stated (1 scores)" in err
    assert "t = 1 for 1 scores" in err
    rc, out, err = run(capsys, f, "--format", "json", "--t", "50")
    rows = json.loads(out)["scores"]
    assert {(r["t"], r["t_rule"], r["note"]) for r in rows} == {(50, "option", "")}


def test_vectorised_judge_equals_one_score_at_a_time(tmp_path):
    """Tails and baselines computed per distinct (n, options) (tables of every count, or
    vectorised calls) against evalsci.maxrandom called once per score."""
    from evalsci.audit import audit_paths
    from evalsci.maxrandom import max_random_baseline, max_random_tail, standard_baseline

    rng = np.random.default_rng(1)
    lines = ["model,task,n,correct,labels,t"]
    settings = [(20, {2: 20}), (300, {2: 100, 4: 200}), (5000, {4: 5000}), (70_000, {2: 70_000})]
    for i in range(400):
        n, lab = settings[i % 4]
        c = int(rng.integers(0, n + 1))
        t = [1, 3, 1000, 10**9][int(rng.integers(4))]
        lab_json = json.dumps({str(k): v for k, v in lab.items()}).replace('"', '""')
        lines.append(f'm{i},task{i % 4},{n},{c},"{lab_json}",{t}')
    f = tmp_path / "many.csv"
    f.write_text("\n".join(lines) + "\n")
    df = audit_paths([f])
    for r, line in zip(df.itertuples(), lines[1:], strict=True):
        n, lab = settings[int(r.task[-1])]
        c = int(line.split(",")[3])
        assert r.standard == standard_baseline(n, lab)
        assert r.max_baseline == max_random_baseline(n, lab, r.t)
        assert r.p_standard == max_random_tail(c, n, lab, 1)
        assert r.p_max == max_random_tail(c, n, lab, r.t)


def test_streamed_blocks_give_the_same_rows(tmp_path, monkeypatch):
    """The reader converts the CSV block by block: tiny blocks, the same frame and lines."""
    from evalsci.audit.readers import tidy_csv as tidy

    f = tmp_path / "res.csv"
    f.write_text(
        "model,task,n,accuracy,choices\n"
        + "".join(f"m{i},t{i % 7},50,{(i % 51) / 50},{2 + i % 3}\n" for i in range(3000))
    )
    whole = tidy.read_frame(f)
    monkeypatch.setattr(tidy, "BLOCK", 1 << 10)
    pieces = tidy.read_frame(f)
    pd_testing = pytest.importorskip("pandas.testing")
    pd_testing.assert_frame_equal(whole, pieces)
    assert pieces["line"].tolist() == list(range(2, 3002))


def test_directory_lists_what_it_passes_over(tmp_path, capsys):
    """A file in a directory that no reader takes is named on stderr with the reason, and the
    results beside it are still judged (nothing is skipped silently)."""
    (tmp_path / "res.csv").write_text("model,task,n,correct,choices\nm1,boolq,100,62,2\n")
    (tmp_path / "notes.json").write_text('{"comment": "not a results file"}')
    rc, out, err = run(capsys, tmp_path, "--format", "csv")
    assert rc == 0, err
    assert '"m1","boolq"' in out
    assert f"skipped {tmp_path / 'notes.json'}: not a recognised results file" in err


def test_plot_writes_png_and_pdf_the_same_bytes_twice(tmp_path, capsys):
    f = tmp_path / "res.csv"
    f.write_text(
        "model,task,n,correct,labels\n"
        'm1,boolq,100,62,"{""2"": 100}"\nm2,boolq,100,53,"{""2"": 100}"\n'
        'm1,mix,40,20,"{""2"": 20, ""4"": 20}"\n'
    )
    outs = []
    for name in ("a", "b"):
        rc, _, err = run(capsys, f, "--plot", tmp_path / f"{name}.png", "--format", "csv")
        assert rc == 0, err
        outs.append([(tmp_path / f"{name}{ext}").read_bytes() for ext in (".png", ".pdf")])
    assert outs[0] == outs[1] and all(len(b) > 1000 for b in outs[0])
    rc, _, err = run(capsys, f, "--plot", tmp_path / "x.svg")
    assert rc == 2 and "--plot: give a .png or .pdf file" in err


def test_a_path_that_is_no_file_is_named_for_what_it_is(tmp_path, capsys, monkeypatch):
    """Issue 35 item 7: a symlink loop, a FIFO and a broken link are not 'no such file'; a
    FIFO is never opened (the audit would block on it), named or found in a directory."""
    monkeypatch.setenv("COLUMNS", "400")  # long tmp paths (xdist) must not wrap
    import os

    loop, fifo, broken = tmp_path / "loop.csv", tmp_path / "fifo.csv", tmp_path / "broken.csv"
    loop.symlink_to(loop)
    os.mkfifo(fifo)
    broken.symlink_to(tmp_path / "gone.csv")
    for path, what in (
        (loop, "a symbolic link loop"),
        (fifo, "a named pipe (FIFO), not a regular file"),
        (broken, "a broken symbolic link"),
        (tmp_path / "gone.csv", "no such file or directory"),
    ):
        rc, out, err = run(capsys, path)
        assert rc == 2 and out == "" and f"{path}: {what}" in err
    (tmp_path / "res.csv").write_text("model,task,n,correct,choices\nm1,boolq,100,62,2\n")
    rc, out, err = run(capsys, tmp_path)
    assert rc == 0 and "m1" in out
    text = " ".join(out.split())  # the report wraps its lines at the terminal's width
    for path, what in ((loop, "symbolic link loop"), (fifo, "named pipe"), (broken, "broken")):
        assert f"skipped {path}: " in text and what in text  # the table lists it, once


def test_a_source_that_starts_like_a_formula_gets_the_quote(tmp_path, capsys, monkeypatch):
    """The `source` column (file:line, joined in Arrow for a million rows) passes the same
    spreadsheet guard as every text cell: a file named `=1+1.csv`, given by a relative path,
    is written `'=1+1.csv:2`, and a row from `+2.csv` beside it `'+2.csv:3`."""
    import csv
    import io

    monkeypatch.chdir(tmp_path)
    (tmp_path / "=1+1.csv").write_text("model,task,n,correct,choices\nm,t,10,9,2\n")
    (tmp_path / "+2.csv").write_text("model,task,n,correct,choices\nm,u,10,9,2\nm,v,10,9,2\n")
    assert main(["audit", "=1+1.csv", "+2.csv", "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [r["source"] for r in rows] == ["'=1+1.csv:2", "'+2.csv:2", "'+2.csv:3"]


def test_first_byte_screen_never_misses_a_formula_start():
    """The CSV writer screens a text column by each value's first byte before its regular
    expression (output._may_start_formula); wherever the expression finds a formula start,
    the screen says so too: slices, chunks, nulls, empty and multi-byte values, both Arrow
    string widths."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from evalsci.audit.output import _may_start_formula
    from evalsci.textsafe import FORMULA_PATTERN

    rng = np.random.default_rng(0)
    alphabet = ["a", "=", "+", "-", "@", "\t", "\r", "é", "", "1", ":"]
    for _ in range(300):
        values = [
            None if rng.random() < 0.1 else "".join(rng.choice(alphabet, rng.integers(0, 4)))
            for _ in range(rng.integers(0, 8))
        ]
        for kind in (pa.string(), pa.large_string()):
            arr = pa.array(values, type=kind)
            for part in (arr, arr.slice(1), arr.slice(2, 3), pa.chunked_array([arr[:2], arr[2:]])):
                found = pc.any(pc.match_substring_regex(part, FORMULA_PATTERN)).as_py()
                assert _may_start_formula(part) or not found, values
