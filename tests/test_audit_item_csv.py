"""A per-item CSV (`model,task,item,correct`) given to `evalsci audit` (issue 45 item 6).

The rows are written from a real client file, lm-eval 0.4.13's samples of `logic_local`
(tests/fixtures/audit/lm_eval/smollm2/full: 18 items with 3, 5 and 7 options): with a `choices`
column the CSV must give the score the samples give (n, correct, options per item, p-values);
without one, `--choices K` gives every item K options; with neither, the error says how to give
them and names `evalsci compare` and `evalsci reference`, which read such a file as it is.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from evalsci.audit import judge_inputs
from evalsci.audit.readers import read_inputs
from evalsci.cli import main

FULL = Path(__file__).parent / "fixtures" / "audit" / "lm_eval" / "smollm2" / "full"
RESULTS = FULL / "results_2026-11-24T23-03-43.936576.json"
SAMPLES = FULL / "samples_logic_local_2026-11-24T23-03-43.936576.jsonl"


def _rows():
    out = []
    for line in SAMPLES.open():
        s = json.loads(line)
        out.append({"item": str(s["doc_id"]), "correct": int(s["acc"]), "k": len(s["arguments"])})
    return out


def _write(path: Path, with_choices: bool) -> Path:
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["model", "task", "item", "correct", *(["choices"] if with_choices else [])])
        for r in _rows():
            w.writerow(["smollm2", "logic_local", r["item"], r["correct"],
                        *([r["k"]] if with_choices else [])])  # fmt: skip
    return path


def test_item_csv_with_choices_gives_the_samples_score(tmp_path):
    items = read_inputs([_write(tmp_path / "items.csv", True)])
    (r,) = items.results
    (ref,) = [x for x in read_inputs([RESULTS]).results if x.task == "logic_local"]
    assert (r.n, r.correct, r.labels) == (ref.n, ref.correct, ref.labels)
    assert r.labels == {3: 6, 5: 6, 7: 6} and r.outcomes == ref.outcomes
    _, mine = judge_inputs(items)
    _, theirs = judge_inputs(read_inputs([RESULTS]))
    theirs = theirs[theirs["task"] == "logic_local"].iloc[0]
    for col in ("standard", "max_baseline", "p_standard", "p_max", "p_below"):
        assert mine.iloc[0][col] == pytest.approx(theirs[col], rel=1e-12)


def test_item_csv_without_options_points_to_choices_and_the_per_item_commands(tmp_path, capsys):
    path = _write(tmp_path / "items.csv", False)
    rc = main(["audit", str(path)])
    err = capsys.readouterr().err
    assert rc == 2 and str(path) in err
    for words in ("choices", "--choices K", "evalsci compare", "evalsci reference"):
        assert words in err
    rc = main(["audit", str(path), "--choices", "4", "--format", "json"])
    got = json.loads(capsys.readouterr().out)["scores"]
    assert rc == 0 and [(s["n"], s["choices"]) for s in got] == [(18, 4)]
    assert main(["audit", str(path), "--choices", "1"]) == 2  # an option error


def test_item_csv_repeated_item_names_both_lines(tmp_path):
    path = tmp_path / "dup.csv"
    path.write_text("model,task,item,correct,choices\nm,t,a,1,4\nm,t,b,0,4\nm,t,a,0,4\n")
    with pytest.raises(ValueError, match=r"dup.csv:4: item repeats line 2"):
        read_inputs([path])
