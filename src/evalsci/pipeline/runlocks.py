"""Runs that share a working directory: one record per run, and locks that outlive a neighbour.

Snakemake's locks (`.snakemake/locks/N.{input,output}.lock`) list the files a run reads and
writes, but not the process that holds them, and a run that ends removes the whole `locks/`
directory: its neighbours' locks too. So after run B ends, a run C whose files overlap a
still-running run A used to start and redo A's jobs beside it; and after `kill -9` of
snakemake alone, its job runs on as an orphan while a rerun starts the same job again.

Here every run writes its own record, `.snakemake/evalsci/runs/<pid>.json` (pid, start time,
host, the files it locked), when it starts (`onstart`), and sets `EVALSCI_RUN` in its
environment, which every job it starts inherits. Each later run, while the workflow is parsed
(before Snakemake checks its locks), classifies every record on this host:

- live (the process with that pid and start time exists): its locks are written back if a
  neighbour removed them, so Snakemake's own check refuses an overlapping run;
- killed, but jobs carrying its `EVALSCI_RUN` still run (orphans): the same, the jobs named;
- killed, no job left: its locks and its record are removed, so no `--unlock` is needed.

A record of another host (a cluster node cannot see the process) is never touched.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import socket
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

RUNS = Path(".snakemake") / "evalsci" / "runs"
LOCKS = Path(".snakemake") / "locks"
ENV = "EVALSCI_RUN"  # inherited by every job of a run: finds its orphans after a kill -9


def _process():
    import psutil  # snakemake depends on it; imported here so the package stays light

    return psutil


def _run_id(pid: int, started: float) -> str:
    return f"{socket.gethostname()}:{pid}:{started:.2f}"


def record_run(workflow, workdir: str | os.PathLike = ".") -> Path:
    """`onstart`: write this run's record (its locks are held by then); tag its jobs."""
    psutil = _process()
    me = psutil.Process()
    pers = workflow.persistence
    record = {
        "pid": me.pid,
        "started": me.create_time(),
        "host": socket.gethostname(),
        "command": " ".join(me.cmdline()),
        "input": sorted({str(f) for f in pers.all_inputfiles()}),
        "output": sorted({str(f) for f in pers.all_outputfiles()}),
    }
    os.environ[ENV] = _run_id(me.pid, record["started"])
    path = Path(workdir) / RUNS / f"{me.pid}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(record, indent=1))
    tmp.replace(path)
    return path


def clear_run(workdir: str | os.PathLike = ".") -> None:
    """`onsuccess`/`onerror`: forget this run's record, only this one.

    Snakemake then removes the whole `locks/` directory, the neighbours' locks included;
    they are written back when this process exits, and again by every later run's parse."""
    (Path(workdir) / RUNS / f"{os.getpid()}.json").unlink(missing_ok=True)
    atexit.register(check_runs, Path(workdir).resolve(), quiet=True)  # snakemake chdirs back


@dataclass
class Run:
    """A record and what became of its process."""

    path: Path
    pid: int
    started: float
    host: str
    command: str = ""
    locked: dict[str, list[str]] = field(default_factory=dict)
    orphans: list = field(default_factory=list)  # psutil.Process of its jobs still running

    @classmethod
    def read(cls, path: Path) -> Run | None:
        try:
            rec = json.loads(path.read_text())
            return cls(
                path,
                int(rec["pid"]),
                float(rec["started"]),
                str(rec["host"]),
                str(rec.get("command", "")),
                {kind: list(rec.get(kind, [])) for kind in ("input", "output")},
            )
        except (OSError, ValueError, KeyError, TypeError):
            return None  # half-written or foreign: leave it alone

    def alive(self) -> bool:
        psutil = _process()
        try:
            return abs(psutil.Process(self.pid).create_time() - self.started) < 1.0
        except psutil.NoSuchProcess:
            return False
        except psutil.AccessDenied:  # exists, owned by someone else: not ours, but alive
            return True


def _orphans(run_ids: set[str]) -> dict[str, list]:
    """The live processes, by run id, whose environment carries one of `run_ids`."""
    psutil = _process()
    found: dict[str, list] = {}
    for proc in psutil.process_iter():
        with contextlib.suppress(psutil.Error, OSError):
            tag = proc.environ().get(ENV)
            if tag in run_ids:
                found.setdefault(tag, []).append(proc)
    return found


def _lock_files(workdir: Path) -> dict[Path, frozenset[str]]:
    files = {}
    for lock in sorted((workdir / LOCKS).glob("*.lock")):
        with contextlib.suppress(OSError):
            files[lock] = frozenset(lock.read_text().split("\n")) - {""}
    return files


def _kind(lock: Path) -> str:
    """`input` or `output`: Snakemake names its locks `N.<kind>.lock`."""
    return lock.name.removesuffix(".lock").rpartition(".")[2]


def _held(kind: str, files: frozenset[str], present: dict[Path, frozenset[str]]) -> bool:
    # by kind too: a run's input and output sets are often equal (a named target, `-F`), and
    # its input lock alone does not make Snakemake refuse a run that reads its outputs
    return any(_kind(lock) == kind and held == files for lock, held in present.items())


def _restore(workdir: Path, run: Run, present: dict[Path, frozenset[str]]) -> bool:
    """Write back the locks of `run` that a neighbour removed. True if any was missing."""
    restored = False
    for kind, files in run.locked.items():
        if not files or _held(kind, frozenset(files), present):
            continue
        (workdir / LOCKS).mkdir(parents=True, exist_ok=True)
        n = 0
        while True:  # Snakemake's own naming: the first free N.<kind>.lock
            lock = workdir / LOCKS / f"{n}.{kind}.lock"
            try:
                with open(lock, "x") as fh:
                    fh.write("\n".join(files) + "\n")
                break
            except FileExistsError:
                n += 1
        present[lock] = frozenset(files)
        restored = True
    return restored


def _remove(workdir: Path, run: Run, present: dict[Path, frozenset[str]]) -> list[Path]:
    """Remove a dead run's locks, record and the temporary files its killed jobs left."""
    from evalsci.pipeline.jobs import remove_stale_temps

    mine = {(kind, frozenset(files)) for kind, files in run.locked.items() if files}
    removed = [lock for lock, files in present.items() if (_kind(lock), files) in mine]
    for lock in removed:
        lock.unlink(missing_ok=True)
        del present[lock]
    for out in run.locked.get("output", []):  # no job of it runs: its temporaries are debris
        removed += remove_stale_temps(workdir / out)
    run.path.unlink(missing_ok=True)
    return removed


def _describe(proc) -> str:
    with contextlib.suppress(Exception):
        return f"{proc.pid} (`{' '.join(proc.cmdline())[:160]}`)"
    return str(proc.pid)


def check_runs(workdir: str | os.PathLike = ".", quiet: bool = False) -> list[str]:
    """Parse time: keep the locks of live runs and live orphans, drop those of dead runs.

    Returns (and unless `quiet` prints to stderr) one message per run found."""
    workdir = Path(workdir)
    runs = [r for r in map(Run.read, sorted((workdir / RUNS).glob("*.json"))) if r]
    runs = [r for r in runs if r.host == socket.gethostname()]
    if not runs:
        return []
    present = _lock_files(workdir)
    dead = [r for r in runs if not r.alive()]
    if dead:
        orphans = _orphans({_run_id(r.pid, r.started) for r in dead})
        for r in dead:
            r.orphans = orphans.get(_run_id(r.pid, r.started), [])
    messages = []
    for r in runs:
        since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(r.started))
        if r in dead and not r.orphans:
            for left in _remove(workdir, r, present):
                what = "lock" if left.parent == workdir / LOCKS else "temporary file"
                messages.append(f"evalsci: removed the {what} {left} of a killed run (pid {r.pid})")
            continue
        _restore(workdir, r, present)
        n = len(r.locked.get("output", []))
        if r in dead:
            jobs = ", ".join(_describe(p) for p in r.orphans)
            messages.append(
                f"evalsci: run pid {r.pid} (started {since}) was killed, but its job(s) pid "
                f"{jobs} still run and write its outputs. Its locks on {n} output files "
                f"stay until they end: a run that overlaps them stops with LockException. "
                f"Wait for them, or stop them (`kill {' '.join(str(p.pid) for p in r.orphans)}`)."
            )
        else:
            messages.append(
                f"evalsci: run pid {r.pid} (started {since}, `{r.command[:160]}`) is running in "
                f"this directory and holds locks on {n} output files: a run that overlaps them "
                f"stops with LockException. Wait for it, or stop it (`kill {r.pid}`); "
                f"do not `--unlock` while it runs."
            )
    if not quiet:
        for m in messages:
            print(m, file=sys.stderr)
    return messages
