"""Issue 25 item 2: runs that share a working directory, with real snakemake processes.

A tiny workflow includes the real `workflow/rules/runs.smk` (the hooks the Snakefile uses).
Its `slow` job notes its pid in `starts.txt`, then waits for the test to create `go`: every
step is ordered by the test, none by a sleep, and each wait is bounded."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from evalsci.pipeline.runlocks import LOCKS, RUNS, Run, _restore, check_runs

from conftest import REPO

WAIT = 90  # seconds: the bound on every wait below (a parse takes ~2 s on an idle machine)

SNAKEFILE = f"""\
include: "{REPO / "workflow" / "rules" / "runs.smk"}"


rule slow:
    output:
        "slow.txt",
    shell:
        "echo $$ >> starts.txt; "
        "for i in $(seq 1200); do [ -e go ] && break; sleep 0.1; done; "
        "echo done > {{output}}"


rule quick:
    output:
        "quick.txt",
    shell:
        "echo done > {{output}}"
"""


def _cmd(workdir: Path, target: str) -> list[str]:
    return [
        sys.executable,
        *("-m", "snakemake", "-s", str(workdir / "Snakefile"), "-d", str(workdir)),
        *("--cores", "1", "--rerun-incomplete", target),
    ]


def _run(workdir: Path, target: str) -> subprocess.CompletedProcess:
    return subprocess.run(_cmd(workdir, target), capture_output=True, text=True, timeout=WAIT)


def _starts(workdir: Path) -> list[int]:
    path = workdir / "starts.txt"
    return [int(x) for x in path.read_text().split()] if path.exists() else []


def _wait_for(condition, what: str, proc=None) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        if proc is not None and proc.poll() is not None:
            pytest.fail(f"snakemake ended ({proc.returncode}) before {what}")
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.05)


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


@pytest.fixture
def workdir(tmp_path):
    (tmp_path / "Snakefile").write_text(SNAKEFILE)
    return tmp_path


@pytest.fixture
def run_a(workdir):
    """Run A on `slow.txt`, stopped at the end of the test whatever happened."""
    proc = subprocess.Popen(
        _cmd(workdir, "slow.txt"),
        start_new_session=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    _wait_for(lambda: _starts(workdir), "run A's job started", proc)
    yield proc
    (workdir / "go").touch()
    for pid in _starts(workdir):
        _wait_for(lambda pid=pid: _gone(pid), f"job {pid} ended")
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def test_the_snakefile_uses_the_run_hooks():
    assert 'include: "workflow/rules/runs.smk"' in (REPO / "Snakefile").read_text()


@pytest.mark.workflow
def test_a_neighbour_ending_does_not_unlock_a_live_run(workdir, run_a):
    a_job = _starts(workdir)
    b = _run(workdir, "quick.txt")  # run B, another target, ends while A runs
    assert b.returncode == 0, b.stderr[-3000:]
    assert (workdir / RUNS / f"{run_a.pid}.json").is_file(), "B removed A's record"
    # Snakemake's exit removed every lock; B's exit wrote A's back
    locked = "".join(p.read_text() for p in (workdir / LOCKS).glob("*.output.lock"))
    assert "slow.txt" in locked.split()
    c = _run(workdir, "slow.txt")  # run C, A's target, while A lives
    assert c.returncode != 0
    assert "LockException" in c.stderr
    assert f"run pid {run_a.pid} " in c.stderr and "is running in this directory" in c.stderr
    assert _starts(workdir) == a_job, "C started A's job beside it"
    (workdir / "go").touch()
    assert run_a.wait(timeout=WAIT) == 0, run_a.stdout.read()[-3000:]
    assert not list((workdir / RUNS).iterdir()) and not list((workdir / LOCKS).glob("*.lock"))


@pytest.mark.workflow
def test_an_orphan_job_keeps_its_locks_until_it_ends(workdir, run_a):
    [job] = _starts(workdir)
    # Snakemake marks slow.txt incomplete around the job's start, from another thread: a kill
    # before the mark is written leaves nothing for the rerun to redo (seen once in CI, under
    # load). The recovery this test is about starts once the mark is there.
    marks = workdir / ".snakemake" / "incomplete"
    _wait_for(lambda: marks.is_dir() and any(marks.iterdir()), "run A's incomplete mark", run_a)
    run_a.send_signal(signal.SIGKILL)  # snakemake alone; its job runs on as an orphan
    run_a.wait(timeout=WAIT)
    assert not _gone(job)
    rerun = _run(workdir, "slow.txt")  # the documented recovery: run the same command again
    assert rerun.returncode != 0
    assert f"run pid {run_a.pid} " in rerun.stderr and f"job(s) pid {job} " in rerun.stderr
    assert "LockException" in rerun.stderr
    assert _starts(workdir) == [job], "the rerun started the orphan's job beside it"
    (workdir / "go").touch()
    _wait_for(lambda: _gone(job), "the orphan ended")
    rerun = _run(workdir, "slow.txt")  # now the rerun recovers: locks go, the job is redone
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert f"of a killed run (pid {run_a.pid})" in rerun.stderr
    assert len(_starts(workdir)) == 2
    assert (workdir / "slow.txt").read_text() == "done\n"
    assert not list((workdir / RUNS).iterdir()) and not list((workdir / LOCKS).glob("*.lock"))


def _live_run(workdir: Path, files: dict[str, list[str]]):
    """A record of this very process (alive), locking `files`, as `record_run` writes it."""
    me = psutil.Process()
    return Run(
        workdir / RUNS / f"{me.pid}.json",
        me.pid,
        me.create_time(),
        socket.gethostname(),
        "test",
        files,
    )


def test_restore_writes_both_locks_when_input_and_output_are_the_same_files(tmp_path):
    """Issue 35 item 1: a run whose input and output sets are equal (a named target, `-F`)
    used to get only its input lock back, so a run reading its outputs was no longer refused."""
    run = _live_run(tmp_path, {"input": ["results/a.csv"], "output": ["results/a.csv"]})
    assert _restore(tmp_path, run, {})
    locks = {p.name: p.read_text().split() for p in (tmp_path / LOCKS).glob("*.lock")}
    assert locks == {"0.input.lock": ["results/a.csv"], "0.output.lock": ["results/a.csv"]}


def test_check_runs_keeps_a_live_runs_output_lock_beside_an_equal_input_lock(tmp_path):
    """The same through the parse-time entry point: the input lock is still there, the output
    lock (equal files) was removed by a neighbour's exit; it comes back, nothing else does."""
    run = _live_run(tmp_path, {"input": ["results/a.csv"], "output": ["results/a.csv"]})
    run.path.parent.mkdir(parents=True)
    run.path.write_text(
        json.dumps(
            {
                "pid": run.pid,
                "started": run.started,
                "host": run.host,
                "input": ["results/a.csv"],
                "output": ["results/a.csv"],
            }
        )
    )
    (tmp_path / LOCKS).mkdir(parents=True)
    (tmp_path / LOCKS / "0.input.lock").write_text("results/a.csv\n")
    check_runs(tmp_path, quiet=True)
    kinds = sorted(p.name for p in (tmp_path / LOCKS).glob("*.lock"))
    assert kinds == ["0.input.lock", "0.output.lock"]
    assert (tmp_path / LOCKS / "0.output.lock").read_text().split() == ["results/a.csv"]
