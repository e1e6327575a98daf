"""Which reader a file needs, decided by its content, not its name."""

from __future__ import annotations

import json
from pathlib import Path

from ..records import AuditInputError

LM_EVAL_RESULTS = "lm_eval_results"
LM_EVAL_SAMPLES = "lm_eval_samples"
TIDY_CSV = "tidy_csv"
UNKNOWN = "unknown"


def sniff(path: Path) -> str:
    """The format of `path`: one of the constants above."""
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
            return LM_EVAL_SAMPLES
        try:
            with open(path, encoding="utf-8") as fh:
                obj = json.load(fh)
        except (OSError, json.JSONDecodeError):
            return UNKNOWN
        if isinstance(obj, dict) and "results" in obj and "configs" in obj:
            return LM_EVAL_RESULTS
        return UNKNOWN
    header = text.split("\n", 1)[0]
    cols = {c.strip() for c in header.split(",")}
    if {"model", "task", "n"} <= cols:
        return TIDY_CSV
    return UNKNOWN
