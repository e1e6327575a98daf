"""Many small tidy CSVs (issue 47 item 9): 100,000 one-row files took 9 minutes, then a
MemoryError, because each file became a pyarrow reader and a frame of its own. Small files are
now read together (`tidy_csv.read_small_frames`): one frame per distinct header, the same rows
and the same errors (file and line) as one file at a time. The speed is measured by
benchmarks/audit_many_files.py (docs/benchmarks/audit_many_files.md)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from evalsci.audit.readers import read_inputs
from evalsci.audit.readers.tidy_csv import read_frame
from evalsci.cli import main

HEADER = "model,task,n,correct,choices\n"


def _files(folder, count, header=HEADER, row=lambda i: f"m{i % 5},t{i},100,{40 + i % 30},2\n"):
    folder.mkdir(exist_ok=True)
    for i in range(count):
        (folder / f"r{i:04d}.csv").write_text(header + row(i))
    return folder


def test_small_files_become_one_frame_per_header_with_each_files_rows(tmp_path):
    d = _files(tmp_path / "d", 300)
    _files(d, 0)
    (d / "other.csv").write_text(
        "model,task,n,accuracy,choices,run\nmx,tx,10,0.5,2,a\nmx,tx,10,0.6,2,b\n"
    )
    got = read_inputs([d])
    assert len(got.frames) == 2  # one per header, not 301
    frame = pd.concat(got.frames, ignore_index=True)
    want = pd.concat([read_frame(f) for f in sorted(d.glob("*.csv"))], ignore_index=True)
    key = ["source", "line"]
    cols = ["model", "task", "n", "correct", "choices", "line", "accuracy", "run", "derived"]
    a = frame.astype({"source": str}).sort_values(key).reset_index(drop=True)
    b = want.astype({"source": str}).sort_values(key).reset_index(drop=True)
    for c in cols:
        assert a[c].astype(str).tolist() == b[c].astype(str).tolist(), c


@pytest.mark.parametrize(
    ("row", "says"),
    [
        ("m,t,100,101,2\n", "field 'correct' = 101 exceeds n = 100"),
        ("m,t,100\n", "3 fields, the header has 5"),
        ("m,t,0,0,2\n", "field 'n' must be an integer >= 1"),
    ],
)
def test_a_bad_small_file_is_named_with_its_line(tmp_path, capsys, row, says):
    d = _files(tmp_path / "d", 50)
    bad = d / "r9999.csv"
    bad.write_text(HEADER + "\n" + row)  # a blank line first: the row is line 3
    assert main(["audit", str(bad)]) == 2
    assert f"{bad}:3: {says}" in capsys.readouterr().err
    assert main(["audit", str(d), "--format", "csv"]) == 0  # in a folder: skipped, named
    out = capsys.readouterr().out
    assert f"{bad}:3: {says}" in out and out.count('\n"m') >= 50  # the 50 good files read


def test_a_duplicate_within_a_small_file_is_an_error_but_not_across_files(tmp_path, capsys):
    d = _files(tmp_path / "d", 2, row=lambda i: "m,t,100,50,2\n")  # one row in two files
    assert main(["audit", str(d), "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["scores"]
    assert [r["t"] for r in rows] == [2, 2]  # two runs of one (model, task): best of 2 tries
    dup = tmp_path / "dup.csv"
    dup.write_text(HEADER + "m,t,100,50,2\nm,t,100,51,2\n")
    assert main(["audit", str(dup)]) == 2
    assert f"{dup}:3: duplicate of line 2" in capsys.readouterr().err
