"""Read evaluation results into `Result`s, detecting each input's format by its content.

A path may be a file or a directory (searched recursively for results JSONs and CSVs).
Every error names the file and the field, and is raised before anything is judged.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path


class AuditInputError(ValueError):
    """An input file is missing, unreadable or lacks a field the audit needs."""


@dataclass(frozen=True)
class Result:
    """One model's result on one task: `correct` of `n` items, item choices as `labels`
    ({number of choices: number of items}), t if the input states it."""

    model: str
    task: str
    n: int
    correct: int
    labels: dict
    source: str
    accuracy: float | None = None
    t: int | None = None


def _sniff(path: Path) -> str:
    """'lm_eval_results', 'lm_eval_samples', 'tidy_csv' or 'unknown', from the content."""
    try:
        with open(path, encoding="utf-8") as fh:
            head = fh.read(4096)
    except (OSError, UnicodeDecodeError) as e:
        raise AuditInputError(f"{path}: cannot read ({e})") from None
    text = head.lstrip()
    if text.startswith("{"):
        first = text.split("\n", 1)[0]
        try:
            rec = json.loads(first)
        except json.JSONDecodeError:
            rec = None
        if isinstance(rec, dict) and "doc_id" in rec and "arguments" in rec:
            return "lm_eval_samples"
        try:
            with open(path, encoding="utf-8") as fh:
                obj = json.load(fh)
        except (OSError, json.JSONDecodeError):
            return "unknown"
        if isinstance(obj, dict) and "results" in obj and "configs" in obj:
            return "lm_eval_results"
        return "unknown"
    header = text.split("\n", 1)[0]
    cols = {c.strip() for c in header.split(",")}
    if {"model", "task", "n"} <= cols:
        return "tidy_csv"
    return "unknown"


def _expand(paths: Iterable[str | Path]) -> dict[Path, bool]:
    """{file: named explicitly}; directories contribute their .json, .jsonl and .csv files."""
    files: dict[Path, bool] = {}
    for p in paths:
        p = Path(p)
        if p.is_dir():
            found = sorted(
                f for f in p.rglob("*") if f.is_file() and f.suffix in (".json", ".jsonl", ".csv")
            )
            if not found:
                raise AuditInputError(f"{p}: no .json, .jsonl or .csv files in this directory")
            for f in found:
                files.setdefault(f, False)
        elif p.is_file():
            files[p] = True
        else:
            raise AuditInputError(f"{p}: no such file or directory")
    return files


def read_inputs(paths: Iterable[str | Path], metric: str = "acc") -> list[Result]:
    """Every result in `paths`. lm-eval samples files are read through their results JSON
    (give the JSON or its directory); a samples file alone is an error."""
    from . import lm_eval, tidy

    paths = list(paths)
    results: list[Result] = []
    seen_samples: set[Path] = set()
    samples_given: list[Path] = []
    for f, explicit in _expand(paths).items():
        kind = _sniff(f)
        if kind == "lm_eval_results":
            got, used = lm_eval.read_results(f, metric=metric)
            results.extend(got)
            seen_samples |= used
        elif kind == "lm_eval_samples":
            samples_given.append(f)
        elif kind == "tidy_csv":
            results.extend(tidy.read_csv(f))
        elif explicit:  # files found in a directory that are something else are skipped
            raise AuditInputError(
                f"{f}: not a recognised results file (lm-evaluation-harness "
                "results JSON, its samples JSONL, or a CSV with columns model, "
                "task, n, ...)"
            )
    for s in samples_given:
        if s.resolve() not in seen_samples:
            raise AuditInputError(
                f"{s}: lm-eval samples file without its results JSON "
                "(results_<timestamp>.json in the same directory): give that "
                "file or the directory"
            )
    if not results:
        raise AuditInputError("no results found in " + ", ".join(map(str, paths)))
    return results
