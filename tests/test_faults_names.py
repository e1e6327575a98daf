"""The fault suite, hostile names (issue 47 items 2 and 8): a model or task name holding
terminal escape codes (`ESC]0;...BEL ESC[2J`: retitle and clear the terminal) or a bidi
override (U+202E) reaches no terminal, CSV or ref.csv raw: every reader's names go through
`evalsci.textsafe.printable`; and a CSV cell a spreadsheet would evaluate (`=`, `+`, `-`, `@`)
gets a leading `'` (`textsafe.csv_cell`), which `reference predict` undoes on its own ref.csv.
The inputs are copies of real client files (tests/fixtures/audit) with one name changed."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from evalsci.cli import main
from evalsci.textsafe import UNSAFE, csv_cell, csv_uncell, printable

FIX = Path(__file__).parent / "fixtures" / "audit"
SMOLLM2 = FIX / "lm_eval" / "smollm2" / "full"
INSPECT_JSON = FIX / "inspect_ai" / "json"

ESCAPES = "\x1b]0;pwned\x07\x1b[2J"
#: name -> the hostile text put into a model name
HOSTILE_NAMES = {
    "OSC title + clear screen": ESCAPES,
    "right-to-left override": "evil\u202etxt.exe",
    "C1 CSI": "m\x9b31m",
    "NUL": "a\x00b",
    "newline": "a\nb",
}


def _lm_eval_copy(tmp_path: Path, name: str) -> Path:
    out = tmp_path / "lm_eval"
    shutil.copytree(SMOLLM2, out)
    res = next(out.glob("results_*.json"))
    res.write_text(res.read_text().replace("/tmp/lmeval_fix/smollm2", json.dumps(name)[1:-1]))
    return out


def _inspect_copy(tmp_path: Path, name: str) -> Path:
    src = sorted(INSPECT_JSON.glob("*mc-single*.json"))[0]
    out = tmp_path / src.name
    text = src.read_text()
    model = pd.read_json(io.StringIO(text), typ="series")["eval"]["model"]
    out.write_text(text.replace(json.dumps(model), json.dumps(name)))
    return out


READERS = {"lm-eval": _lm_eval_copy, "inspect-ai": _inspect_copy}


@pytest.mark.parametrize("reader", sorted(READERS))
@pytest.mark.parametrize("what", sorted(HOSTILE_NAMES))
@pytest.mark.parametrize("fmt", ["table", "csv"])
def test_a_hostile_model_name_is_printed_escaped(tmp_path, capsys, monkeypatch, reader, what, fmt):
    monkeypatch.setenv("COLUMNS", "400")  # wide enough that the table shows the whole name
    name = HOSTILE_NAMES[what]
    path = READERS[reader](tmp_path, name)
    rc = main(["audit", str(path), "--format", fmt])
    out = capsys.readouterr()
    assert rc == 0, out.err
    for stream in (out.out, out.err):
        assert not UNSAFE.search(stream.replace("\n", "")), repr(stream[:300])
    assert printable(name) in out.out  # the name is there, escaped


def test_reference_select_writes_escaped_and_formula_safe_names(tmp_path, capsys):
    rows = [
        (m, task, i, int((i * k) % 3 == 0))
        for m, k in (("a", 1), ("b", 2), ("c", 5))
        for task in ("=HYPERLINK(1)", "t\u202e")
        for i in range(8)
    ]
    src = tmp_path / "items.csv"
    pd.DataFrame(rows, columns=["model", "task", "item", "correct"]).to_csv(src, index=False)
    ref = tmp_path / "ref.csv"
    assert main(["reference", "select", str(src), "--n", "4", "--selector", "random",
                 "--out", str(ref)]) == 0  # fmt: skip
    text = ref.read_text()
    assert not UNSAFE.search(text.replace("\n", "")) and "\u202e" not in text
    cells = pd.read_csv(ref, dtype=str)["task"]
    assert set(cells) == {"'=HYPERLINK(1)", "t\\u202e"}
    # predict reads its own ref.csv back: the leading ' is undone, the items match
    rc = main(["reference", "predict", str(src), "--reference", str(ref), "--new", str(src)])
    assert rc == 2  # the same models on both sides: refused by name, after ref.csv was read
    assert "among both the known and the new models" in capsys.readouterr().err


def test_a_ref_csv_without_weights_is_named(tmp_path, capsys):
    src = tmp_path / "items.csv"
    src.write_text("model,task,item,correct\na,t,1,1\nb,t,1,0\n")
    ref = tmp_path / "ref.csv"
    ref.write_text("task,item\nt,1\n")
    assert main(["reference", "predict", str(src), "--reference", str(ref), "--new", str(src)]) == 2
    out = capsys.readouterr()
    assert out.out == "" and f"{ref}: needs columns task, item, weight" in out.err
    assert "missing weight" in out.err


def test_the_two_rules():
    assert printable(ESCAPES) == "\\x1b]0;pwned\\x07\\x1b[2J"
    assert printable("a\u202eb") == "a\\u202eb" and printable("naïve 名前") == "naïve 名前"
    for cell in ("=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx"):
        assert csv_cell(cell) == "'" + cell and csv_uncell(csv_cell(cell)) == cell
    assert csv_cell("plain") == "plain" and csv_uncell("'quoted") == "'quoted"


def test_compare_prints_names_escaped_and_formula_safe(tmp_path, capsys):
    rows = ["model,task,n,correct", "a\x1b[2J,=t1,100,60", "b,=t1,100,50"]
    rows += ["a\x1b[2J,t2,100,55", "b,t2,100,50"]
    src = tmp_path / "counts.csv"
    src.write_text("\n".join(rows) + "\n")
    argv = ["compare", str(src), "--a", "b", "--b", printable("a\x1b[2J"), "--exact-only"]
    assert main([*argv, "--format", "csv"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "a\\x1b[2J" in out and ",'=t1," in out
    assert main(argv) == 0
    assert not UNSAFE.search(capsys.readouterr().out.replace("\n", ""))
