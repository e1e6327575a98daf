"""The fault suite (issue 35): one fault-injection test per class, each with real processes.

  interrupted write   `kill -9` of a run (snakemake and its job) inside an atomic write, at
                      each stage of the write; a plain rerun leaves no temporary file and
                      writes the same bytes as an uninterrupted run
  lock contention     a run on its outputs, a neighbour that ends, a third run that reads them
  corrupted mirror    test_faults_mirror.py
  hostile config      test_faults_config.py
  hostile audit input test_faults_audit.py

Each class's cases are a list here (or in its module); `fault_counts()` counts them, and
docs/reproducibility.md's block `fault_suite` is checked equal to what it renders
(test_fault_suite_counts_in_the_docs; `python tests/test_faults.py` rewrites it)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from evalsci.pipeline.runlocks import LOCKS, RUNS

from conftest import REPO

WAIT = 90  # seconds: the bound on every wait below

SNAKEFILE = f"""\
include: "{REPO / "workflow" / "rules" / "runs.smk"}"


rule all:
    input:
        "results/slow.txt",


rule slow:
    output:
        "results/slow.txt",
    params:
        stage=config.get("stage", "never"),
    run:
        import time
        from pathlib import Path

        from evalsci.pipeline.jobs import atomic_path

        def pause(stage):  # tell the test where the write is, wait for `go`
            if stage == params.stage:
                Path(f"at_{{stage}}").touch()
                for _ in range(1200):
                    if Path("go").exists():
                        break
                    time.sleep(0.1)

        with atomic_path(output[0]) as tmp:
            pause("empty")  # the temporary file exists, 0 bytes
            with open(tmp, "w") as fh:
                fh.write("first half\\n")
                fh.flush()
                pause("partial")
                fh.write("second half\\n")


rule quick:
    output:
        "quick.txt",
    shell:
        "echo done > {{output}}"


rule reader:
    input:
        "results/slow.txt",
    output:
        "results/read.txt",
    shell:
        "cp {{input}} {{output}}"
"""

WHOLE = "first half\nsecond half\n"  # what an uninterrupted `slow` writes

#: interrupted write: the stages of an atomic write at which the run is killed
KILL_STAGES = ("empty", "partial")


def _cmd(workdir: Path, *args: str) -> list[str]:
    return [
        sys.executable,
        *("-m", "snakemake", "-s", str(workdir / "Snakefile"), "-d", str(workdir)),
        *("--cores", "1", "--rerun-incomplete", *args),
    ]


def _run(workdir: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(_cmd(workdir, *args), capture_output=True, text=True, timeout=WAIT)


def _start(workdir: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        _cmd(workdir, *args),
        start_new_session=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def _wait_for(path: Path, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + WAIT
    while not path.exists():
        if proc.poll() is not None:
            pytest.fail(f"snakemake ended ({proc.returncode}) before {path.name}")
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {path.name}")
        time.sleep(0.05)


def _hidden(workdir: Path) -> list[Path]:
    return sorted(p for p in (workdir / "results").rglob(".*"))


@pytest.fixture
def workdir(tmp_path):
    (tmp_path / "Snakefile").write_text(SNAKEFILE)
    return tmp_path


@pytest.mark.workflow
@pytest.mark.parametrize("stage", KILL_STAGES)
def test_interrupted_write_leaves_nothing_and_a_rerun_writes_the_same_bytes(workdir, stage):
    """Issue 35 item 7: `kill -9` inside an atomic write left a hidden temporary file in
    results/ that no rerun removed."""
    run = _start(workdir, "all", "--config", f"stage={stage}")
    try:
        _wait_for(workdir / f"at_{stage}", run)
        [tmp] = _hidden(workdir)  # the write is under way: its temporary file, nothing else
        assert not (workdir / "results" / "slow.txt").exists()
    finally:
        os.killpg(run.pid, signal.SIGKILL)  # snakemake and its job, mid-write
        run.wait(timeout=WAIT)
    assert tmp.exists(), "the kill must leave the temporary file for the rerun to find"
    rerun = _run(workdir, "all")  # the documented recovery: the same command again
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert f"removed the temporary file {tmp.relative_to(workdir)} " in rerun.stderr
    assert _hidden(workdir) == [], "a temporary file survived the rerun"
    assert (workdir / "results" / "slow.txt").read_text() == WHOLE
    assert not list((workdir / RUNS).iterdir()) and not list((workdir / LOCKS).glob("*"))


@pytest.mark.workflow
def test_a_run_reading_a_live_runs_outputs_is_refused(workdir):
    """Lock contention: run A rewrites `results/slow.txt` (`-F all`: its input and output sets
    are both that file); run B, another target, ends beside it (Snakemake's exit removes every
    lock); run C reads A's output. C is refused naming A, and A's output lands whole."""
    (workdir / "go").touch()
    first = _run(workdir, "all")
    assert first.returncode == 0, first.stderr[-3000:]
    (workdir / "go").unlink()
    a = _start(workdir, "-F", "all", "--config", "stage=partial")
    try:
        _wait_for(workdir / "at_partial", a)
        b = _run(workdir, "quick.txt")
        assert b.returncode == 0, b.stderr[-3000:]
        kinds = sorted(p.name.split(".")[1] for p in (workdir / LOCKS).glob("*.lock"))
        assert kinds == ["input", "output"], f"B's exit left A with the locks {kinds}"
        c = _run(workdir, "results/read.txt")
        assert c.returncode != 0 and "LockException" in c.stderr
        assert f"run pid {a.pid} " in c.stderr and "is running in this directory" in c.stderr
        assert not (workdir / "results" / "read.txt").exists()
        (workdir / "go").touch()
        assert a.wait(timeout=WAIT) == 0, a.stdout.read()[-3000:]
    finally:
        if a.poll() is None:
            os.killpg(a.pid, signal.SIGKILL)
            a.wait()
    assert (workdir / "results" / "slow.txt").read_text() == WHOLE
    assert _hidden(workdir) == []
    c = _run(workdir, "results/read.txt")  # A has ended: C runs
    assert c.returncode == 0, c.stderr[-3000:]
    assert (workdir / "results" / "read.txt").read_text() == WHOLE


# --- the suite's counts, rendered into docs/reproducibility.md -------------------------------

DOC = REPO / "docs" / "reproducibility.md"
MARKERS = ("<!-- generated:fault_suite:start -->", "<!-- generated:fault_suite:end -->")


def fault_counts() -> dict[str, int]:
    """How many cases each class of the suite tries, counted from the tests' own lists."""
    from test_audit_many_files import test_a_bad_small_file_is_named_with_its_line as many
    from test_config_names import BOUNDS, HOSTILE, HOSTILE_LLM, NAME_KEYS
    from test_config_selections import ASSESSOR_TYPOS, TYPOS
    from test_faults_audit import INPUTS, OPTIONS
    from test_faults_config import NON_FINITE, STRUCTURE
    from test_faults_mirror import CORRUPTIONS
    from test_faults_names import HOSTILE_NAMES, READERS
    from test_faults_outputs import OUTPUT_PATHS
    from test_faults_sizes import SIZES

    return {
        "names": len(NAME_KEYS) * len(HOSTILE) + len(HOSTILE_LLM),
        "llm_names": len(HOSTILE_LLM),
        "name_keys": len(NAME_KEYS),
        "hostile_names": len(HOSTILE),
        "bounds": len(BOUNDS),
        "typos": len(TYPOS) + len(ASSESSOR_TYPOS),
        "non_finite": len(NON_FINITE),
        "structure": len(STRUCTURE),
        "kills": len(KILL_STAGES),
        "contention": 1,
        "stat_key": 1,  # test_released_integrity: a byte flipped, size and mtime restored
        "corruptions": len(CORRUPTIONS),
        "inputs": len(INPUTS),
        "options": len(OPTIONS),
        "sizes": len(SIZES),
        "output_paths": 2 * len(OUTPUT_PATHS) + 2,  # select --out, audit --plot; eee, stdin
        "printed_names": len(HOSTILE_NAMES) * len(READERS) * 2 + 2,  # x table/csv; ref.csv
        "printed_name_kinds": len(HOSTILE_NAMES),
        "many_files": len(many.pytestmark[0].args[1]) + 2,  # + same rows, duplicates
    }


def render() -> str:
    c = fault_counts()
    configs = c["names"] + c["bounds"] + c["typos"] + c["non_finite"] + c["structure"]
    faults = c["kills"] + c["contention"] + c["corruptions"] + c["stat_key"]
    rows = [
        ("interrupted write", "tests/test_faults.py", f"{c['kills']} kill -9 stages"),
        ("lock contention between runs", "tests/test_faults.py", f"{c['contention']} scenario"),
        ("corrupted mirror", "tests/test_faults_mirror.py", f"{c['corruptions']} damages"),
        (
            "a fetched file edited with size and mtime restored",
            "tests/test_released_integrity.py",
            f"{c['stat_key']} edit (the cache keys on ctime, inode and device too)",
        ),
        (
            "hostile config",
            "tests/test_config_names.py, tests/test_config_selections.py",
            f"{c['names']} names ({c['hostile_names']} hostile names x {c['name_keys']} keys, "
            f"{c['llm_names']} hostile LLM names), "
            f"{c['bounds']} bounds, {c['typos']} selection typos",
        ),
        (
            "hostile config structure",
            "tests/test_faults_config.py",
            f"{c['non_finite']} numbers not finite, {c['structure']} structures (a section "
            "not a mapping, a preset out of its folder, an alias bomb, sheets that are "
            "devices, FIFOs or folders)",
        ),
        (
            "hostile audit input",
            "tests/test_faults_audit.py",
            f"{c['inputs']} inputs, {c['options']} options",
        ),
        (
            "sizes that asked for huge memory",
            "tests/test_faults_sizes.py",
            f"{c['sizes']} sizes of baseline, tail and auc",
        ),
        (
            "output paths that are not files; stdin without end",
            "tests/test_faults_outputs.py",
            f"{c['output_paths']} cases (FIFO, symlinks, folder, device at `reference select "
            "--out` and `audit --plot`; a file as `--out` folder; /dev/zero on stdin)",
        ),
        (
            "names with escape codes; cells a spreadsheet evaluates",
            "tests/test_faults_names.py",
            f"{c['printed_names']} cases ({c['printed_name_kinds']} hostile names x lm-eval, "
            "inspect-ai x "
            "table, CSV; ref.csv names and formulas; a ref.csv without weights)",
        ),
        (
            "many small files",
            "tests/test_audit_many_files.py",
            f"{c['many_files']} cases (read together: the same rows and errors as one at a "
            "time; 100,000 files in under a minute, benchmarks/audit_many_files.py)",
        ),
    ]
    lines = [
        MARKERS[0],
        f"- Configs tried and named (key, file, line) before any job: **{configs}**.",
        f"- Faults survived with nothing lost or left behind: **{faults}**.",
        f"- Hostile audit inputs tried, each one line naming it: **{c['inputs'] + c['options']}**.",
        f"- Sizes refused in bounded memory before any allocation: **{c['sizes']}**.",
        f"- Output paths refused and left as they were: **{c['output_paths']}**.",
        f"- Hostile names printed escaped, formulas defused: **{c['printed_names']}**.",
        "",
        "| class | test | cases |",
        "| --- | --- | --- |",
        *(f"| {a} | {b} | {n} |" for a, b, n in rows),
        MARKERS[1],
    ]
    return "\n".join(lines)


def _current() -> str:
    text = DOC.read_text()
    start, end = text.index(MARKERS[0]), text.index(MARKERS[1]) + len(MARKERS[1])
    return text[start:end]


def test_fault_suite_counts_in_the_docs():
    """The counts in docs/reproducibility.md are the suite's (`python tests/test_faults.py`)."""
    assert _current() == render(), (
        "docs/reproducibility.md is stale: run python tests/test_faults.py"
    )


if __name__ == "__main__":  # rewrite the block from the suite's lists
    text = DOC.read_text()
    DOC.write_text(text.replace(_current(), render()))
    print(render())
