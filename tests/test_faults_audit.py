"""The fault suite, hostile audit input: every input below makes `evalsci audit` stop with exit
status 2 and one line naming the file (or the option) and the reason: no traceback, nothing on
stdout (an error never follows half a table)."""

from __future__ import annotations

import gzip
import json
import os
import zipfile

import pytest

from evalsci.cli import main

HEADER = "model,task,n,accuracy,choices\n"


def _write(text: str | bytes, name: str = "in.csv"):
    def make(tmp_path):
        f = tmp_path / name
        f.write_bytes(text if isinstance(text, bytes) else text.encode())
        return f

    return make


def _special(kind: str):
    def make(tmp_path):
        f = tmp_path / f"{kind}.csv"
        if kind == "fifo":
            os.mkfifo(f)
        elif kind == "loop":
            f.symlink_to(f.name)
        else:
            f.symlink_to(tmp_path / "gone.csv")
        return f

    return make


def _nested(depth: int):
    return _write("[" * depth + "]" * depth, "deep.json")


def _bad_zip(tmp_path):
    f = tmp_path / "log.eval"
    with zipfile.ZipFile(f, "w") as z:
        z.writestr("header.json", "{")
    return f


def _zstd_bomb(declared: str):
    """An inspect `.eval` zip whose zstd header.json (method 93, as inspect 0.3.285 writes)
    inflates to 300 MB of JSON from ~10 KB; the zip declares its true size, or lies (1 KB)."""

    def make(tmp_path):
        import struct
        import zlib

        import zstandard

        size, chunk = 300 * 1024 * 1024, b" " * (1 << 20)
        comp, crc = zstandard.ZstdCompressor().compressobj(), 0
        parts = [comp.compress(b"{")]
        crc = zlib.crc32(b"{", crc)
        for _ in range(size // len(chunk)):
            parts.append(comp.compress(chunk))
            crc = zlib.crc32(chunk, crc)
        parts += [comp.compress(b"}"), comp.flush()]
        crc = zlib.crc32(b"}", crc)
        raw = bytearray()
        f = tmp_path / "bomb.eval"
        with zipfile.ZipFile(f, "w", zipfile.ZIP_STORED) as z:
            z.writestr("header.json", b"".join(parts))
        raw = bytearray(f.read_bytes())
        full = size + 2 if declared == "true" else 1024
        local = raw.index(b"PK\x03\x04")
        central = raw.index(b"PK\x01\x02")
        struct.pack_into("<H", raw, local + 8, 93)  # method: zstd
        struct.pack_into("<I", raw, local + 14, crc)
        struct.pack_into("<I", raw, local + 22, full)
        struct.pack_into("<H", raw, central + 10, 93)
        struct.pack_into("<I", raw, central + 16, crc)
        struct.pack_into("<I", raw, central + 24, full)
        f.write_bytes(bytes(raw))
        return f

    return make


def _gzip_not(tmp_path):
    f = tmp_path / "in.csv.gz"
    f.write_bytes(gzip.compress(b"x")[:10])
    return f


#: name -> (make the input in tmp_path, extra arguments, what the error says)
INPUTS = {
    "binary bytes as csv": (_write(bytes(range(256)) * 4), [], ""),
    "invalid UTF-8": (_write(HEADER.encode() + b"m,t\xff\xfe,10,0.5,2\n"), [], ""),
    "NUL byte": (_write(HEADER + "m,t\x00,10,0.5,2\n"), [], ""),
    "empty csv": (_write(""), [], ""),
    "header only": (_write(HEADER), [], ""),
    "empty json": (_write("", "r.json"), [], ""),
    "json null": (_write("null", "r.json"), [], ""),
    "json list": (_write("[1, 2]", "r.json"), [], ""),
    "json string": (_write('"results"', "r.json"), [], ""),
    "deeply nested json": (_nested(100_000), [], ""),
    "n = 0": (_write(HEADER + "m,t,0,0.5,2\n"), [], "'n'"),
    "n negative": (_write(HEADER + "m,t,-5,0.5,2\n"), [], "'n'"),
    "n huge": (_write(HEADER + "m,t,1e400,0.5,2\n"), [], "'n'"),
    "n fractional": (_write(HEADER + "m,t,10.5,0.5,2\n"), [], "'n'"),
    "n = 10^12 (took 171 s)": (_write(HEADER + "m,t,1000000000000,0.5,4\n"), [], "largest n"),
    "n of 5,000 digits": (_write(HEADER + "m,t,1" + "0" * 5000 + ",0.5,4\n"), [], "characters"),
    "choices >= 2^63": (_write(HEADER + f"m,t,100,0.5,{2**63}\n"), [], str(2**63)),
    "accuracy NaN": (_write(HEADER + "m,t,10,nan,2\n"), [], "'accuracy'"),
    "accuracy inf": (_write(HEADER + "m,t,10,inf,2\n"), [], "'accuracy'"),
    "accuracy above 1": (_write(HEADER + "m,t,10,1.5,2\n"), [], "'accuracy'"),
    "accuracy no count": (_write(HEADER + "m,t,3,0.5,2\n"), [], "no count"),
    "one option, half right": (_write(HEADER + "m,t,4,0.5,1\n"), [], "one option"),
    "choices 0": (_write(HEADER + "m,t,10,0.5,0\n"), [], "'choices'"),
    "correct above n": (_write("model,task,n,correct,choices\nm,t,10,11,2\n"), [], "'correct'"),
    "labels not summing to n": (
        _write('model,task,n,correct,labels\nm,t,10,5,"{""2"": 3}"\n'),
        [],
        "'labels'",
    ),
    "labels not JSON": (_write('model,task,n,correct,labels\nm,t,10,5,"{2: 3"\n'), [], "labels"),
    "t = 0 in the file": (_write("model,task,n,correct,choices,t\nm,t,10,5,2,0\n"), [], "'t'"),
    "duplicate row": (_write(HEADER + "m,t,10,0.5,2\nm,t,10,0.5,2\n"), [], "duplicate"),
    "duplicate column": (_write("model,task,n,n,accuracy,choices\nm,t,3,3,1,2\n"), [], "twice"),
    "missing column": (_write("model,task,n,accuracy\nm,t,10,0.5\n"), [], "choices"),
    "ragged row": (_write(HEADER + "m,t,10\n"), [], "fields"),
    "empty model": (_write(HEADER + ",t,10,0.5,2\n"), [], "'model'"),
    "truncated inspect log": (_bad_zip, [], ""),
    "not gzip": (_gzip_not, [], ""),
    "inspect zstd bomb, size declared": (_zstd_bomb("true"), [], "inflates to more than"),
    "inspect zstd bomb, size hidden": (_zstd_bomb("lie"), [], "inflates to more than"),
    "deep JSON inside an lm-eval file": (
        _write(
            '{"results": {"t": {"acc,none": 0.5}}, "x": ' + "[" * 100_000 + "]" * 100_000 + "}",
            "results_2024-01-01T00-00-00.json",
        ),
        [],
        "nested deeper",
    ),
    "FIFO": (_special("fifo"), [], "named pipe"),
    "symlink loop": (_special("loop"), [], "symbolic link loop"),
    "broken symlink": (_special("broken"), [], "broken symbolic link"),
    "missing file": (lambda tmp_path: tmp_path / "nope.csv", [], "no such file"),
    "empty directory": (lambda tmp_path: tmp_path, [], "no .json, .jsonl, .csv or .eval"),
}

#: hostile options, each with a good input
OPTIONS = {
    "--t 0": (["--t", "0"], "t must be"),
    "--t -1": (["--t", "-1"], "t must be"),
    "--t 2.5": (["--t", "2.5"], "t must be"),
    "--t nan": (["--t", "nan"], "t must be"),
    "--t inf": (["--t", "inf"], "t must be"),
    "--t 1e309": (["--t", "1e309"], "t must be"),
    "--t of 310 digits": (["--t", "1" + "0" * 309], "at most 1.798e+308"),
    "--plot wrong suffix": (["--plot", "out.txt"], "--plot"),
    "--alpha 2": (["--compare", "--alpha", "2"], "alpha"),
}


@pytest.mark.parametrize("what", sorted(INPUTS))
def test_a_hostile_input_is_one_line_naming_it(tmp_path, capsys, what):
    make, extra, needle = INPUTS[what]
    path = make(tmp_path)
    try:
        rc = main(["audit", str(path), *extra])
    except SystemExit as e:  # argparse
        rc = e.code
    out = capsys.readouterr()
    assert rc == 2 and out.out == "", f"{what}: rc {rc}, stdout {out.out[:200]!r}"
    lines = out.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("evalsci audit: error: "), f"{what}: {out.err}"
    assert str(path) in lines[0] and needle in lines[0], f"{what}: {lines[0]}"


@pytest.mark.parametrize("task", ["$x$ and $y$", "a $\\frac{1}{0}$ b", "cost $5 and $6"])
def test_a_task_name_with_dollars_plots_as_plain_text(tmp_path, capsys, task):
    """Issue 47 item 6: two `$` in a task name made --plot fail in matplotlib's mathtext
    parser, and the table was lost; names are drawn as plain text now."""
    f = tmp_path / "in.csv"
    f.write_text(f'model,task,n,correct,choices\nm1,"{task}",100,62,2\nm2,"{task}",100,50,2\n')
    rc = main(["audit", str(f), "--plot", str(tmp_path / "p.png")])
    out = capsys.readouterr()
    assert rc == 0, out.err
    assert (tmp_path / "p.png").stat().st_size > 0 and (tmp_path / "p.pdf").stat().st_size > 0
    assert "m1" in out.out


@pytest.mark.parametrize("what", sorted(OPTIONS))
def test_a_hostile_option_is_refused_before_reading(tmp_path, capsys, what):
    args, needle = OPTIONS[what]
    f = tmp_path / "ok.csv"
    f.write_text(HEADER + "m1,t,100,0.62,2\nm2,t,100,0.5,2\n")
    try:
        rc = main(["audit", str(f), *args])
    except SystemExit as e:  # argparse
        rc = e.code
    out = capsys.readouterr()
    assert rc == 2 and out.out == "", what
    assert needle in out.err and "Traceback" not in out.err, f"{what}: {out.err}"


def test_the_suite_tries_every_class_of_input():
    """Counted in docs/reproducibility.md (tests/test_faults.py renders the block)."""
    assert len(INPUTS) >= 30 and len(OPTIONS) >= 8
    assert json.dumps(sorted(INPUTS))  # names are plain text for the docs
