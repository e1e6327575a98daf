"""Read evaluation results into `Result`s, one module per format, each detected by content.

A path may be a file or a directory (searched recursively). `read_inputs` dispatches every
file to its reader (`sniff`) and returns the results with everything it passed over, each with
its reason (`Inputs.skipped`): nothing is skipped silently. A file the user named that no
reader takes is an error; one found in a directory is listed as skipped.

Readers: `lm_eval` (lm-evaluation-harness 0.4 results and their samples, Open LLM Leaderboard
v2 files through `leaderboard`), `lm_eval_v03` (0.3 results), `tidy_csv`, `inspect_ai`
(.eval and .json logs), `helm` (run directories), `lighteval` (results JSON and details
parquet), `eee` (Every Eval Ever aggregates and their `_samples.jsonl`).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable
from pathlib import Path

from ..records import AuditInputError, Inputs, NothingToAudit, Skipped
from . import eee, helm, inspect_ai, item_csv, lighteval, lm_eval, lm_eval_v03, tidy_csv
from .jsonfile import lfs_message
from .sniff import (
    EEE_AGGREGATE,
    EEE_SAMPLES,
    EEE_SIDECAR,
    HELM_RUN,
    INSPECT_LOG,
    ITEM_CSV,
    LFS_POINTER,
    LIGHTEVAL_RESULTS,
    LM_EVAL_RESULTS,
    LM_EVAL_SAMPLES,
    LM_EVAL_V03,
    PARQUET,
    TIDY_CSV,
    sniff,
)

__all__ = ["read_inputs"]

SUFFIXES = (".json", ".jsonl", ".csv", ".eval")

#: the readers of the other harnesses' outputs, by format: `read(path)` -> (results, skipped)
HARNESS_READERS = {INSPECT_LOG: inspect_ai, HELM_RUN: helm, LIGHTEVAL_RESULTS: lighteval}


_SPECIAL = {
    stat.S_ISFIFO: "a named pipe (FIFO)",
    stat.S_ISSOCK: "a socket",
    stat.S_ISCHR: "a character device",
    stat.S_ISBLK: "a block device",
}


def _not_a_file(p: Path) -> str:
    """What `p`, neither a directory nor a regular file, is: the reason it is not read.
    (`Path.is_file` says False alike for a missing path, a symlink loop and a FIFO.)"""
    try:
        mode = p.stat().st_mode
    except OSError as e:
        if e.errno == errno.ELOOP:
            return f"a symbolic link loop ({p} -> {os.readlink(p)})"
        if p.is_symlink():
            return f"a broken symbolic link (to {os.readlink(p)}, which does not exist)"
        if e.errno == errno.ENOENT:
            return "no such file or directory"
        return f"cannot be read: {e.strerror}"
    kind = next((what for test, what in _SPECIAL.items() if test(mode)), "not a regular file")
    return f"{kind}, not a regular file: not read (a pipe would block the audit)"


def _expand(paths: Iterable[str | Path], out: Inputs) -> dict[Path, bool]:
    """{file: named explicitly}; directories contribute their .json, .jsonl, .csv and .eval
    (inspect-ai) files. A named path that is no file is an error saying what it is; in a
    directory, an entry with a results suffix that is no regular file is listed as skipped."""
    files: dict[Path, bool] = {}
    for p in paths:
        p = Path(p)
        if p.is_dir():
            found = []
            for f in sorted(p.rglob("*")):
                if f.suffix not in SUFFIXES or f.is_dir():
                    continue
                if f.is_file():
                    found.append(f)
                else:
                    out.skipped.append(Skipped(str(f), None, _not_a_file(f)))
            if not found:
                raise AuditInputError(
                    f"{p}: no .json, .jsonl, .csv or .eval files in this directory"
                )
            for f in found:
                files.setdefault(f, False)
        elif p.is_file():
            files[p] = True
        else:
            raise AuditInputError(f"{p}: {_not_a_file(p)}")
    return files


def _helm_run_files(files: dict[Path, bool]) -> set[Path]:
    """The files of every HELM run directory among `files`: a run is read once, through its
    run_spec.json, whichever of its files were named or found."""
    found: set[Path] = set()
    for run_dir in sorted({f.parent for f in files if f.name == helm.RUN_SPEC}):
        found |= helm.run_files(run_dir / helm.RUN_SPEC)
    return found


def _read_file(
    f: Path, kind: str, explicit: bool, metric: str | None, out: Inputs, choices: int | None
) -> set[Path]:
    """Read one results file into `out`; the samples files it used."""
    if kind == LM_EVAL_RESULTS:
        got, skipped, used = lm_eval.read_results(f, metric=metric)
        out.results.extend(got)
        out.skipped.extend(skipped)
        return used
    if kind == EEE_AGGREGATE:
        got, skipped = eee.read(f, metric=metric)
        out.results.extend(got)
        out.skipped.extend(skipped)
        used = eee.samples_path(f, eee.load_json(f))
        return {used.resolve()} if used is not None else set()
    if kind == LM_EVAL_V03:
        got, skipped = lm_eval_v03.read(f, metric=metric)
        out.results.extend(got)
        out.skipped.extend(skipped)
    elif kind == TIDY_CSV:
        out.frames.append(tidy_csv.read_frame(f))  # columns: a CSV may have 1e6 rows
    elif kind == ITEM_CSV:
        out.results.extend(item_csv.read(f, choices))
    elif kind in HARNESS_READERS:
        reader = HARNESS_READERS[kind]
        got, skipped = reader.read(f, metric=metric) if reader is lighteval else reader.read(f)
        out.results.extend(got)
        out.skipped.extend(skipped)
    elif kind == EEE_SIDECAR:
        why = "evalsci's --format eee sidecar (the scores are read from the data/ files)"
        out.skipped.append(Skipped(str(f), None, why))
    elif kind == PARQUET and not explicit:
        out.skipped.append(
            Skipped(str(f), None, "parquet (lighteval details are read through results_*.json)")
        )
    elif explicit:
        raise AuditInputError(
            f"{f}: not a recognised results file (lm-evaluation-harness 0.3/0.4 "
            "results JSON, its samples JSONL, a CSV with columns model, task, n, ..., or a "
            "per-item CSV with columns model, task, item, correct)"
        )
    else:
        out.skipped.append(Skipped(str(f), None, "not a recognised results file"))
    return set()


def _shallow(f: Path, fn, *args):
    """fn(*args); a RecursionError (json.loads of [[[[...]]]] inside a known file) or any other
    ValueError (json's "Exceeds the limit (4300 digits)" for a long integer) as an
    AuditInputError naming the file."""
    try:
        return fn(*args)
    except RecursionError:
        raise AuditInputError(f"{f}: JSON nested deeper than the reader allows") from None
    except AuditInputError:
        raise
    except ValueError as e:
        raise AuditInputError(str(e) if str(f) in str(e) else f"{f}: {e}") from None


def _small_csv(f: Path, kind: str) -> bool:
    return kind == TIDY_CSV and f.stat().st_size <= tidy_csv.SMALL


def _read_small(small: dict[Path, bool], out: Inputs) -> None:
    """The small tidy CSVs, read together (`tidy_csv.read_small_frames`); a file that fails
    is an error when it was named, else skipped with the reason, as for any file."""
    if not small:
        return
    frames, errors = tidy_csv.read_small_frames(list(small))
    for f, why in errors.items():
        if small[f]:
            raise AuditInputError(why)
        out.skipped.append(Skipped(str(f), None, why))
    out.frames.extend(frames)


def read_inputs(
    paths: Iterable[str | Path], metric: str | None = None, choices: int | None = None
) -> Inputs:
    """Every result in `paths`, and every file and task passed over with its reason.

    `metric`: the per-item 0/1 metric to read (lm-eval files); None: each task's own (the
    Open LLM Leaderboard's per task, else acc). lm-eval samples files are read through their
    results JSON (give the JSON or its directory). A file the user named that cannot be read
    is an error; one found in a directory is listed as skipped with the reason. `choices`:
    every item's number of options in a per-item CSV without a `choices` column."""
    paths = list(paths)
    out = Inputs()
    seen_samples: set[Path] = set()
    # samples files and LFS pointers, checked last; small tidy CSVs, read together
    pending: list[tuple[Path, bool, str]] = []
    files = _expand(paths, out)
    helm_files = _helm_run_files(files)
    for f, explicit in files.items():
        if f.resolve() in helm_files and f.name != helm.RUN_SPEC:
            continue  # read with its run directory, through run_spec.json
        try:
            kind = _shallow(f, sniff, f)
            if kind in (LM_EVAL_SAMPLES, EEE_SAMPLES, LFS_POINTER) or _small_csv(f, kind):
                pending.append((f, explicit, kind))
            else:
                seen_samples |= _shallow(f, _read_file, f, kind, explicit, metric, out, choices)
        except AuditInputError as e:
            if explicit:
                raise
            out.skipped.append(Skipped(str(f), None, str(e)))
    _read_small({f: explicit for f, explicit, kind in pending if kind == TIDY_CSV}, out)
    for f, explicit, kind in pending:
        if kind == TIDY_CSV or f.resolve() in seen_samples:
            continue
        if kind == LFS_POINTER:
            why = lfs_message(f)
        elif kind == EEE_SAMPLES:
            why = (
                f"{f}: Every Eval Ever samples file without its aggregate (<uuid>.json in the "
                "same directory): give that file or the directory"
            )
        else:
            why = (
                f"{f}: lm-eval samples file without its results JSON in the same directory "
                "(results_<timestamp>.json; lm-eval 0.4.0-0.4.2: the results.json whose "
                "config.model_args names this file): give that file or the directory"
            )
        if explicit:
            raise AuditInputError(why)
        out.skipped.append(Skipped(str(f), None, why.removeprefix(f"{f}: ")))
    if not out.results and not out.frames:
        why = [
            f"{x.path}" + (f" task {x.task!r}" if x.task else "") + f": {x.reason}"
            for x in out.skipped
        ]
        more = f"\n  ... and {len(why) - 20} more" if len(why) > 20 else ""
        # every file read, only tasks without a random baseline passed over: not bad input
        valid = out.skipped and all(x.no_baseline for x in out.skipped)
        raise (NothingToAudit if valid else AuditInputError)(
            (
                "nothing to audit: no task has a random baseline in "
                if valid
                else "no results found in "
            )
            + ", ".join(map(str, paths))
            + ("; passed over:\n  " + "\n  ".join(why[:20]) + more if why else "")
        )
    return out
