"""Read evaluation results into `Result`s, one module per format, each detected by content.

A path may be a file or a directory (searched recursively). `read_inputs` dispatches every
file to its reader (`sniff`) and returns the results with everything it passed over, each with
its reason (`Inputs.skipped`): nothing is skipped silently. A file the user named that no
reader takes is an error; one found in a directory is listed as skipped.

Readers: `lm_eval` (lm-evaluation-harness 0.4 results and their samples), `tidy_csv`.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ..records import AuditInputError, Inputs, Skipped
from . import lm_eval, tidy_csv
from .sniff import LM_EVAL_RESULTS, LM_EVAL_SAMPLES, TIDY_CSV, sniff

__all__ = ["read_inputs"]

SUFFIXES = (".json", ".jsonl", ".csv")


def _expand(paths: Iterable[str | Path]) -> dict[Path, bool]:
    """{file: named explicitly}; directories contribute their .json, .jsonl and .csv files."""
    files: dict[Path, bool] = {}
    for p in paths:
        p = Path(p)
        if p.is_dir():
            found = sorted(f for f in p.rglob("*") if f.is_file() and f.suffix in SUFFIXES)
            if not found:
                raise AuditInputError(f"{p}: no .json, .jsonl or .csv files in this directory")
            for f in found:
                files.setdefault(f, False)
        elif p.is_file():
            files[p] = True
        else:
            raise AuditInputError(f"{p}: no such file or directory")
    return files


def read_inputs(paths: Iterable[str | Path], metric: str = "acc") -> Inputs:
    """Every result in `paths`, and every file passed over with its reason. lm-eval samples
    files are read through their results JSON (give the JSON or its directory); a samples file
    without its results JSON is an error."""
    paths = list(paths)
    out = Inputs()
    seen_samples: set[Path] = set()
    samples_given: list[Path] = []
    for f, explicit in _expand(paths).items():
        kind = sniff(f)
        if kind == LM_EVAL_RESULTS:
            got, used = lm_eval.read_results(f, metric=metric)
            out.results.extend(got)
            seen_samples |= used
        elif kind == LM_EVAL_SAMPLES:
            samples_given.append(f)
        elif kind == TIDY_CSV:
            out.frames.append(tidy_csv.read_frame(f))  # columns: a CSV may have 1e6 rows
        elif explicit:
            raise AuditInputError(
                f"{f}: not a recognised results file (lm-evaluation-harness "
                "results JSON, its samples JSONL, or a CSV with columns model, "
                "task, n, ...)"
            )
        else:
            out.skipped.append(Skipped(str(f), None, "not a recognised results file"))
    for s in samples_given:
        if s.resolve() not in seen_samples:
            raise AuditInputError(
                f"{s}: lm-eval samples file without its results JSON "
                "(results_<timestamp>.json in the same directory): give that "
                "file or the directory"
            )
    if not out.results and not out.frames:
        raise AuditInputError("no results found in " + ", ".join(map(str, paths)))
    return out
