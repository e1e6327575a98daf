"""The fault suite, output paths and stdin (issue 47 items 3, 4, 6): an output path that is a
FIFO, a symbolic link, a folder or (as root) a device node is refused before any work, in one
line naming the option and the path, and is left as it was (a rename used to replace it:
`--out /dev/full` became a CSV); `audit -` reads at most MAX_STDIN_BYTES, streamed to a file."""

from __future__ import annotations

import os
import stat

import pytest

from evalsci.cli import MAX_STDIN_BYTES, main

from conftest import evalsci_peak_rss

ROWS = "model,task,n,correct,choices\nm1,t,100,62,2\nm2,t,100,50,2\n"
ITEMS = "model,task,item,correct\n" + "".join(
    f"{m},t,{i},{(i * k) % 3 == 0:d}\n" for m, k in (("a", 1), ("b", 2), ("c", 5)) for i in range(9)
)


def _fifo(path):
    os.mkfifo(path)


def _link(path):
    path.with_name("target").write_text("keep me\n")
    path.symlink_to(path.with_name("target"))


def _dangling(path):
    path.symlink_to(path.with_name("nowhere"))


def _folder(path):
    path.mkdir()


def _device(path):
    if os.geteuid() != 0:
        pytest.skip("making a device node needs root (CI runs as root)")
    os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # /dev/null's numbers


#: what stands at the output path, and the word the refusal uses
OUTPUT_PATHS = {
    "FIFO": (_fifo, "a FIFO"),
    "symlink to a file": (_link, "a symbolic link"),
    "dangling symlink": (_dangling, "a symbolic link"),
    "folder": (_folder, "a directory"),
    "device node": (_device, "a device"),
}


def _snapshot(path):
    st = path.lstat()
    target = path.with_name("target")
    return stat.S_IFMT(st.st_mode), st.st_ino, target.exists() and target.read_text()


def _refused(argv, capsys, option, path, word):
    before = _snapshot(path)
    rc = main(argv)
    out = capsys.readouterr()
    assert rc == 2 and out.out == "", out
    lines = out.err.strip().splitlines()
    assert len(lines) == 1 and f"{option}: {path} is {word}" in lines[0], out.err
    assert _snapshot(path) == before  # left as it was


@pytest.mark.parametrize("what", sorted(OUTPUT_PATHS))
def test_reference_select_out_is_only_a_file_or_a_new_path(tmp_path, capsys, what):
    make, word = OUTPUT_PATHS[what]
    src = tmp_path / "items.csv"
    src.write_text(ITEMS)
    out = tmp_path / "ref.csv"
    make(out)
    _refused(
        ["reference", "select", str(src), "--n", "2", "--selector", "random", "--out", str(out)],
        capsys,
        "--out",
        out,
        word,
    )


@pytest.mark.parametrize("what", sorted(OUTPUT_PATHS))
def test_audit_plot_is_only_a_file_or_a_new_path(tmp_path, capsys, what):
    make, word = OUTPUT_PATHS[what]
    src = tmp_path / "in.csv"
    src.write_text(ROWS)
    out = tmp_path / "plot.png"
    make(out)
    _refused(["audit", str(src), "--plot", str(out)], capsys, "--plot", out, word)


def test_eee_out_that_is_a_file_is_named(tmp_path, capsys):
    src = tmp_path / "in.csv"
    src.write_text(ROWS)
    out = tmp_path / "eee"
    out.write_text("")
    assert main(["audit", str(src), "--format", "eee", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"--out {out}: not a folder" in err and "Traceback" not in err


def test_audit_stdin_is_bounded_and_streamed():
    """`audit - < /dev/zero` grew to 7.5 GB, then a MemoryError traceback; now it stops at
    the cap in bounded memory with one line."""
    with open("/dev/zero", "rb") as zero:
        run, said, peak_kb = evalsci_peak_rss(["audit", "-"], stdin=zero)
    assert run.returncode == 2, run.stderr[-500:]
    assert said == [
        f"evalsci audit: error: <stdin>: more than {MAX_STDIN_BYTES:,} bytes; give a file that "
        "large by its name (files are read in blocks, stdin is copied first)"
    ]
    assert peak_kb < 500_000
