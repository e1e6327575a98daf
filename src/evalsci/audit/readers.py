"""Read evaluation results into `Result`s, detecting each input's format by its content.

A path may be a file or a directory (searched recursively for results JSONs and CSVs).
Every error names the file and the field, and is raised before anything is judged.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable
from pathlib import Path

from .records import AuditInputError, Inputs, Result  # noqa: F401  (re-exported)


def _decode_head(path: Path, raw: bytes) -> str:
    """The first bytes of a file as text: UTF-8, a byte-order mark dropped; a piece cut in the
    middle of a character at the end is fine, an invalid byte is an error naming its line."""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        if e.start >= len(raw) - 3 and e.reason == "unexpected end of data":
            return raw[: e.start].decode("utf-8-sig")
        line = raw[: e.start].count(b"\n") + 1
        raise AuditInputError(
            f"{path}:{line}: not UTF-8 (byte {raw[e.start]:#04x}: {e.reason})"
        ) from None


def _sniff(path: Path) -> str:
    """'lm_eval_results', 'lm_eval_samples', 'tidy_csv' or 'unknown', from the content."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read(4096)
    except OSError as e:
        raise AuditInputError(f"{path}: cannot read ({e})") from None
    head = _decode_head(path, raw)
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
    cols = {c.strip() for c in next(csv.reader([header]), [])}
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


def read_inputs(paths: Iterable[str | Path], metric: str = "acc") -> Inputs:
    """Every result in `paths`. lm-eval samples files are read through their results JSON
    (give the JSON or its directory); a samples file alone is an error."""
    from . import lm_eval, tidy

    paths = list(paths)
    results: list[Result] = []
    frames = []
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
            frames.append(tidy.read_frame(f))
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
    if not results and not frames:
        raise AuditInputError("no results found in " + ", ".join(map(str, paths)))
    return Inputs(results=results, frames=frames)
