"""Issue 13 item 5: after `kill -9` of snakemake, a plain rerun recovers (no --unlock, no
--rerun-incomplete), and a killed bundle fetch leaves no staging directory behind."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from evalsci.data import released
from evalsci.pipeline.runlocks import LOCKS, RUNS, check_runs

from conftest import REPO

TARGET = "resources/released/srb_per_example"  # 288 files: a fetch that lasts seconds


def _cmd(workdir, *extra):
    return [
        sys.executable,
        "-m",
        "snakemake",
        "-s",
        str(REPO / "Snakefile"),
        "-d",
        str(workdir),
        "--cores",
        "1",
        *extra,
        TARGET,
    ]


@pytest.mark.workflow
def test_kill_9_then_plain_rerun_recovers(tmp_path, mirror):
    env = dict(os.environ, EVALSCI_MIRROR=str(mirror))
    proc = subprocess.Popen(
        _cmd(tmp_path),
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    staging_parent = tmp_path / "resources" / "released"
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline:  # kill while the fetch job is half-way
            if staging_parent.is_dir() and any(
                p.name.startswith(".srb_per_example.") for p in staging_parent.iterdir()
            ):
                break
            assert proc.poll() is None, "snakemake ended before it could be killed"
            time.sleep(0.05)
        else:
            pytest.fail("the fetch job never started")
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # snakemake and its job, as a lost session
        proc.wait()
    # the debris the issue describes
    assert list((tmp_path / ".snakemake" / "locks").glob("*.lock"))
    assert list((tmp_path / ".snakemake" / "incomplete").iterdir())
    assert [p for p in staging_parent.iterdir() if p.name.startswith(".srb_per_example.")]
    # a plain rerun: the workflow profile reruns the incomplete job, the dead run's locks go
    rerun = subprocess.run(_cmd(tmp_path), env=env, capture_output=True, text=True)
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert "removed the lock" in rerun.stderr
    assert sorted(p.name for p in staging_parent.iterdir()) == [".sha256-cache", "srb_per_example"]
    released.verify_bundle(staging_parent / "srb_per_example")
    assert not list((tmp_path / ".snakemake" / "locks").glob("*.lock"))
    assert not list((tmp_path / RUNS).iterdir())


def _locked(tmp_path, pid, host=None, started=None):
    """A lock file and the record of the run `pid` that holds it."""
    import psutil

    locks = tmp_path / LOCKS
    locks.mkdir(parents=True)
    (locks / "0.output.lock").write_text("x\n")
    if started is None:
        started = psutil.Process(pid).create_time() if psutil.pid_exists(pid) else 0.0
    record = tmp_path / RUNS / f"{pid}.json"
    record.parent.mkdir(parents=True)
    record.write_text(
        json.dumps(
            {"pid": pid, "started": started, "host": host or socket.gethostname(), "output": ["x"]}
        )
    )
    return locks


def test_locks_of_a_live_run_are_kept(tmp_path):
    locks = _locked(tmp_path, os.getpid())
    assert "is running in this directory" in check_runs(tmp_path, quiet=True)[0]
    assert list(locks.iterdir())


def test_locks_of_a_run_on_another_host_are_kept(tmp_path):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    locks = _locked(tmp_path, dead.pid, host="some-cluster-node")
    assert check_runs(tmp_path, quiet=True) == []
    assert list(locks.iterdir())


def test_locks_of_a_dead_run_are_removed(tmp_path):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    locks = _locked(tmp_path, dead.pid)
    assert check_runs(tmp_path, quiet=True) == [
        f"evalsci: removed the lock {locks / '0.output.lock'} of a killed run (pid {dead.pid})"
    ]
    assert not list(locks.iterdir()) and not list((tmp_path / RUNS).iterdir())


def test_a_reused_pid_is_a_dead_run(tmp_path):
    """The record's start time tells a recycled pid (here: this process) from the run."""
    locks = _locked(tmp_path, os.getpid(), started=1.0)
    assert "removed the lock" in check_runs(tmp_path, quiet=True)[0]
    assert not list(locks.iterdir())


def test_no_record_no_removal(tmp_path):
    locks = tmp_path / LOCKS
    locks.mkdir(parents=True)
    (locks / "0.output.lock").write_text("x\n")
    assert check_runs(tmp_path) == [] and list(locks.iterdir())


def test_stale_staging_dirs_are_removed_on_the_next_fetch(tmp_path, mirror):
    parent = tmp_path / "released"
    stale = parent / ".multi_prompt.ab12_x9z"
    (stale / "bundle" / "data").mkdir(parents=True)
    other = parent / ".multi_prompt_extra.ab12_x9z"  # another bundle's name: not ours
    other.mkdir()
    released.materialise("multi_prompt", parent / "multi_prompt", mirror=str(mirror))
    assert not stale.exists() and other.exists()
    assert not [p for p in parent.iterdir() if p.name.startswith(".multi_prompt.")]
