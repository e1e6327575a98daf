"""The record of one workflow run: which commit, command, machine and time made a set of result
files. Doc blocks rendered from such a run (the tapt paper-scale blocks; evalsci.pipeline.doctables,
registry key `record`) print it above their table, so a reader sees which run they came from.

`scripts/tapt_paper_scale.sh DIR` runs the workflow in DIR and leaves there
- `started.txt`: `key=value` lines: start, commit, command, scale, cpu, nproc, then rc, end
  (bare lines are read too: an ISO time is the start, then the end; 40 hex digits the commit);
- `run.log`: the run's output, ending with GNU time's `-v` report (wall, user and system CPU of
  the whole process tree, peak RSS);
- `logs/**/*.benchmark.tsv`: Snakemake's measurements of each job with a `benchmark:` file.

- `package_state.yaml`: what the run imported (`python -m evalsci.runrecord --state FILE`, at the
  start, with the run's interpreter and PYTHONPATH): the path of the `evalsci` package as
  imported (an editable install of another clone shows as that clone's path), the sha256 of
  its whole file tree and one hash per file. Not a git commit: uncommitted edits, another
  clone's package and files outside git all show.

`record(DIR)` reads them into one mapping, written as YAML by `python -m evalsci.runrecord DIR
--out FILE`; `summary(record, rests_on)` is its one-paragraph Markdown, which says whether the
files of the package the block rests on (`rests_on`: paths inside the package, e.g.
`studies/tapt`) are the same now as when the run imported them.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import math
import re
import subprocess
from pathlib import Path

import yaml

__all__ = [
    "record",
    "summary",
    "write",
    "load",
    "cpu_model",
    "package_state",
    "code_state",
    "STATE_FILE",
]

#: what the run imported, written in the run's directory at its start (package_state)
STATE_FILE = "package_state.yaml"
#: the per-file hash kept in a record: 16 hex digits (64 bits) tell a changed file apart
FILE_HASH = 16

_ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
_SHA = re.compile(r"^[0-9a-f]{40}$")
#: GNU time -v lines -> record keys
_TIME_V = {
    "Command being timed": "command",
    "User time (seconds)": "user_s",
    "System time (seconds)": "system_s",
    "Elapsed (wall clock) time (h:mm:ss or m:ss)": "wall",
    "Maximum resident set size (kbytes)": "max_rss_kb",
    "Exit status": "exit_status",
}


def cpu_model() -> str:
    """`lscpu`'s model name of this machine ("" when lscpu is missing)."""
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return ""
    m = re.search(r"^Model name:\s*(.+)$", out, re.M)
    return m.group(1).strip() if m else ""


def _started(path: Path) -> dict:
    """started.txt: `key=value` (or `key: value`) lines; bare ISO times (the start, then the
    end) and a bare commit; several of them on one line, except the free-text `command`,
    `cpu` and `note`, each of which takes the rest of its line."""
    out: dict = {}
    for i, raw in enumerate(path.read_text().splitlines(), start=1):
        line = raw.strip()
        m = re.match(r"(command|resumed_command|cpu|note)\s*[=:]\s*(.*)$", line)
        if m:  # free text: the rest of the line
            out[m.group(1)] = m.group(2)
            continue
        m = re.match(r"resumed\s*[=:]\s*(\S+)$", line)
        if m:  # a resumed run: every resumption's time, in order
            out.setdefault("resumed", []).append(m.group(1))
            continue
        tokens = re.findall(r"([A-Za-z_]+\s*[=:]\s*\S+|\S+)", line)
        for token in tokens:
            kv = re.match(r"([A-Za-z_]+)\s*[=:]\s*(\S+)$", token)
            if _ISO.match(token):
                out["end" if "start" in out else "start"] = token
            elif _SHA.match(token):
                out["commit"] = token
            elif kv:
                out[kv.group(1)] = kv.group(2)
            else:
                raise ValueError(
                    f"{path}, line {i}: {token!r} is neither key=value, an ISO time nor a commit"
                )
    return out


def _seconds(hms: str) -> float:
    """GNU time's elapsed time, h:mm:ss or m:ss(.ss), in seconds."""
    return sum(float(p) * 60**i for i, p in enumerate(reversed(hms.split(":"))))


def _time_v(log: Path) -> list[dict]:
    """Every GNU time -v report in the run's log, in order (a resumed run has one per
    invocation; empty when there is none)."""
    text = log.read_text(errors="replace")
    out = []
    for part in text.split("\tCommand being timed:")[1:]:
        rep = {"command": part.splitlines()[0].strip().strip('"')}
        for line in part.splitlines()[1:]:
            key, sep, value = line.strip().rpartition(": ")
            if sep and key in _TIME_V:
                rep[_TIME_V[key]] = value.strip()
        out.append(rep)
    return out


def _job_group(path: Path, logs: Path, counts: dict[Path, int]) -> str:
    """A directory of several benchmark files is one group (tapt/fits); a lone file is its own."""
    rel = path.relative_to(logs)
    if counts[path.parent] > 1:
        return str(rel.parent)
    return str(rel).removesuffix(".benchmark.tsv")


def _jobs(logs: Path) -> dict:
    files = sorted(logs.rglob("*.benchmark.tsv")) if logs.is_dir() else []
    counts: dict[Path, int] = {}
    for f in files:
        counts[f.parent] = counts.get(f.parent, 0) + 1
    groups: dict[str, dict] = {}
    for f in files:
        with f.open() as fh:
            rows = list(csv.DictReader(fh, delimiter="\t"))
        if not rows:
            raise ValueError(f"{f}: no measurement row")
        g = groups.setdefault(
            _job_group(f, logs, counts), {"jobs": 0, "cpu_s": 0.0, "wall_s": 0.0, "max_wall_s": 0.0}
        )
        for r in rows:  # one row per job (more with Snakemake's `repeat`)
            wall = float(r["s"])
            cpu = r.get("cpu_time", "NA")
            if cpu in ("NA", "", None) or not math.isfinite(float(cpu)):
                raise ValueError(f"{f}: no cpu_time measured ({cpu!r})")
            g["jobs"] += 1
            g["cpu_s"] += float(cpu)
            g["wall_s"] += wall
            g["max_wall_s"] = max(g["max_wall_s"], wall)
    return {k: {n: round(v, 2) for n, v in g.items()} for k, g in sorted(groups.items())}


def _scale(command: str) -> str | None:
    """The scale a Snakemake command line asks for: `scale=X` or `'<study>={scale: X}'`."""
    m = re.search(r"(?:^|[\s{,])scale\s*[:=]\s*([A-Za-z0-9_]+)", command)
    return m.group(1) if m else None


def package_state(package: str | Path | None = None) -> dict:
    """The `evalsci` package as this interpreter imports it (or the package directory
    `package`): its directory, the sha256 of its file tree (every file but __pycache__, by
    path relative to the package and content) and each file's hash."""
    if package is None:
        import evalsci

        package = Path(evalsci.__file__).parent
    root = Path(package).resolve()
    files = {}
    for f in sorted(root.rglob("*")):
        rel = f.relative_to(root)
        if f.is_file() and "__pycache__" not in rel.parts and f.suffix != ".pyc":
            files[rel.as_posix()] = hashlib.sha256(f.read_bytes()).hexdigest()
    tree = hashlib.sha256("".join(f"{k}\0{v}\n" for k, v in files.items()).encode()).hexdigest()
    return {
        "path": str(root),
        "tree_sha256": tree,
        "files": {k: v[:FILE_HASH] for k, v in files.items()},
    }


def _within(rel: str, rests_on) -> bool:
    return not rests_on or any(rel == r or rel.startswith(r.rstrip("/") + "/") for r in rests_on)


def code_state(rec: dict, rests_on=(), now: dict | None = None) -> str:
    """One sentence: are the package files the block rests on (`rests_on`: paths inside the
    package; empty: all of it) the same now (`now`: this interpreter's package) as in the
    run? A record without the run's package hashes says the state is unknown."""
    where = ", ".join(f"`evalsci/{r}`" for r in rests_on) or "the `evalsci` package"
    then = rec.get("package")
    if not then:
        return (
            f"The code state of the run is unknown: its record predates package hashes, so "
            f"whether {where} changed since the run cannot be told (treat it as changed)."
        )
    now = now or package_state()
    old = {k: v for k, v in then["files"].items() if _within(k, rests_on)}
    new = {k: v[:FILE_HASH] for k, v in now["files"].items() if _within(k, rests_on)}
    changed = sorted(k for k in old.keys() | new.keys() if old.get(k) != new.get(k))
    if not changed:
        return (
            f"The code it rests on ({where}: {len(old)} files) is unchanged since the run "
            f"(sha256 of each file as the run imported it)."
        )
    shown = ", ".join(f"`{c}`" for c in changed[:5]) + (" ..." if len(changed) > 5 else "")
    return (
        f"Code changed since the run: {len(changed)} of the files of {where} differ from "
        f"those the run imported ({shown})."
    )


def record(
    run_dir: str | Path,
    *,
    note: str | None = None,
    cpu: str | None = None,
    nproc: int | None = None,
    command: str | None = None,
) -> dict:
    """The run in `run_dir` as one mapping (see the module's docstring). `cpu` (the `lscpu`
    model name) and `nproc` default to started.txt's; the CPU model else to this machine's
    (`cpu_source` says which)."""
    run_dir = Path(run_dir).resolve()
    started = _started(run_dir / "started.txt")
    reports = _time_v(run_dir / "run.log") if (run_dir / "run.log").is_file() else []
    timed = reports[-1] if reports else {}
    if "rc" not in started and "exit_status" not in timed:
        raise ValueError(f"{run_dir}: the run has not finished (no rc= in started.txt)")
    rc = int(started.get("rc", timed.get("exit_status", -1)))
    # GNU time prints the arguments unquoted: a run started by hand passes its command line
    command = command or started.get("command") or timed.get("command")
    missing = [
        k
        for k, v in (
            ("start", started.get("start")),
            ("commit", started.get("commit")),
            ("command", command),
            ("end", started.get("end")),
        )
        if not v
    ]
    if missing:
        raise ValueError(f"{run_dir}/started.txt: {missing} not recorded")
    out: dict = {
        "run_dir": str(run_dir),
        "commit": started["commit"],
        # tracked files edited after the commit (the script checks at the start)
        "dirty": started.get("dirty") == "true",
        "command": command,
        "scale": started.get("scale") or _scale(command),
        "start": started["start"],
        "end": started["end"],
        "rc": rc,
        "cpu": cpu or started.get("cpu") or cpu_model(),
        # where the model name comes from: the run's own started.txt, the caller, or lscpu of
        # the machine that makes the record (the same machine only if the caller says so)
        "cpu_source": "given" if cpu else "started.txt" if started.get("cpu") else "lscpu",
        "nproc": nproc or (int(started["nproc"]) if "nproc" in started else None),
    }
    if started.get("resumed"):
        out["resumed"] = started["resumed"]
        out["resumed_command"] = started.get("resumed_command")
    if reports:  # the sum over the run's invocations (one unless resumed)
        out["wall_s"] = round(sum(_seconds(r["wall"]) for r in reports), 2)
        out["cpu_s"] = round(sum(float(r["user_s"]) + float(r["system_s"]) for r in reports), 2)
        out["max_rss_mb"] = round(max(int(r["max_rss_kb"]) for r in reports) / 1024, 1)
        out["invocations"] = len(reports)
    state = run_dir / STATE_FILE
    if state.is_file():  # what the run imported, hashed at its start
        out["package"] = yaml.safe_load(state.read_text())
    jobs = _jobs(run_dir / "logs")
    out["benchmarked_jobs"] = jobs
    out["benchmarked_cpu_s"] = round(sum(g["cpu_s"] for g in jobs.values()), 2)
    if note:
        out["note"] = note
    return out


def write(rec: dict, out: str | Path) -> None:
    from evalsci.pipeline.jobs import atomic_path

    with atomic_path(out) as tmp:
        tmp.write_text(yaml.safe_dump(rec, sort_keys=False, allow_unicode=True))


def load(path: str | Path) -> dict:
    rec = yaml.safe_load(Path(path).read_text())
    if not isinstance(rec, dict) or "commit" not in rec:
        raise ValueError(f"{path}: not a run record (evalsci.runrecord)")
    return rec


def _hms(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.0f} s"
    m = round(seconds / 60)
    return f"{m // 60} h {m % 60:02d} min" if m >= 60 else f"{m} min"


def summary(rec: dict, where: str = "", rests_on=()) -> str:
    """One paragraph: which run (commit, command, date, machine), how long, whether the code
    the block rests on changed since (`code_state`), and any note."""
    start, end = rec["start"], rec["end"]
    day = start[:10]
    span = f"{start[11:16]}-{end[11:16]} UTC" if end[:10] == day else f"to {end}"
    cpu = rec.get("cpu") or "CPU not recorded"
    cores = f", {rec['nproc']} CPUs" if rec.get("nproc") else ""
    parts = [
        f"From the run{f' recorded in `{where}`' if where else ''}: commit "
        f"`{rec['commit'][:7]}`{' with local edits' if rec.get('dirty') else ''}, {day} {span}, `{rec['command']}` "
        f"(exit status {rec['rc']}){f', scale `{sc}`' if (sc := rec.get('scale')) else ''}, on "
        f"{cpu}{cores}."
    ]
    if rec.get("resumed"):
        when = ", ".join(f"{t[11:16]} UTC" for t in rec["resumed"])
        parts.append(f"Stopped and resumed at {when} with `{rec['resumed_command']}`.")
    if "wall_s" in rec:
        parts.append(
            f"Wall time {_hms(rec['wall_s'])} ({rec['wall_s']:,.0f} s), CPU time "
            f"{rec['cpu_s']:,.0f} s (user + system of the whole run, GNU time"
            f"{', summed over its ' + str(rec['invocations']) + ' invocations' if rec.get('invocations', 1) > 1 else ''}), peak RSS "
            f"{rec['max_rss_mb'] / 1024:.1f} GB"
            + (
                f"; the jobs with a `benchmark:` file, {rec['benchmarked_cpu_s']:,.0f} CPU-s."
                if rec.get("benchmarked_cpu_s")
                else "."
            )
        )
    package = (rec.get("package") or {}).get("path")
    if package and not Path(package).is_relative_to(rec.get("run_dir", "/nonexistent")):
        parts.append(f"The run imported evalsci from `{package}`, outside its own clone.")
    parts.append(code_state(rec, rests_on))
    if rec.get("note"):
        parts.append(rec["note"].rstrip(".") + ".")
    return " ".join(parts)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m evalsci.runrecord", description=__doc__.split("\n")[0]
    )
    p.add_argument("run_dir", nargs="?", help="the run's directory (started.txt, run.log, logs/)")
    p.add_argument("--out", help="the YAML record to write")
    p.add_argument(
        "--state",
        metavar="FILE",
        help=f"write only what this interpreter imports (the run's {STATE_FILE}, at its start)",
    )
    p.add_argument("--note", help="a sentence printed with the record (e.g. a shared machine)")
    p.add_argument("--cpu", help="the CPU's model name (default: started.txt's, else lscpu's)")
    p.add_argument("--nproc", type=int, help="the CPUs the run had (default: started.txt's)")
    p.add_argument(
        "--command", help="the command as typed (default: started.txt's, else GNU time's)"
    )
    a = p.parse_args(argv)
    if a.state:
        write(package_state(), a.state)
        return 0
    if not (a.run_dir and a.out):
        p.error("give RUN_DIR and --out (or --state FILE)")
    try:
        rec = record(a.run_dir, note=a.note, cpu=a.cpu, nproc=a.nproc, command=a.command)
    except (OSError, ValueError) as e:
        p.exit(2, f"{p.prog}: error: {e}\n")
    write(rec, a.out)
    print(summary(rec))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
