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
    rows = json.loads(out)
    k = np.arange(1, 101)
    emax3 = np.sum(1 - binom.cdf(k - 1, 100, 0.5) ** 3) / 100  # t = 3 rows of the task
    for r, c in zip(rows, (62, 53, 45), strict=True):
        assert (r["n"], r["choices"], r["t"]) == (100, 2, 3)
        assert r["accuracy"] == c / 100
        assert r["max_baseline"] == pytest.approx(emax3, rel=1e-9)
        assert r["p_standard"] == pytest.approx(binom.sf(c - 1, 100, 0.5), rel=1e-9)
        assert r["p_max"] == pytest.approx(1 - binom.cdf(c - 1, 100, 0.5) ** 3, rel=1e-9)
    assert [r["verdict"] for r in rows] == [
        "above_max",
        "above_standard_only",
        "not_above_standard",
    ]


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


def test_directory_lists_what_it_passes_over(tmp_path, capsys):
    """A file in a directory that no reader takes is named on stderr with the reason, and the
    results beside it are still judged (nothing is skipped silently)."""
    (tmp_path / "res.csv").write_text("model,task,n,correct,choices\nm1,boolq,100,62,2\n")
    (tmp_path / "notes.json").write_text('{"comment": "not a results file"}')
    rc, out, err = run(capsys, tmp_path, "--format", "csv")
    assert rc == 0, err
    assert "m1,boolq" in out
    assert f"skipped {tmp_path / 'notes.json'}: not a recognised results file" in err
