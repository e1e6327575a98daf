"""Which reader a file needs, decided by its content, not its name."""

from __future__ import annotations

import json
from pathlib import Path

from ..records import AuditInputError
from . import lm_eval, lm_eval_v03
from .jsonfile import LFS_MAGIC, load_json

LM_EVAL_RESULTS = "lm_eval_results"
LM_EVAL_V03 = "lm_eval_v03"
LM_EVAL_SAMPLES = "lm_eval_samples"
LFS_POINTER = "lfs_pointer"
TIDY_CSV = "tidy_csv"
UNKNOWN = "unknown"


def sniff(path: Path) -> str:
    """The format of `path`: one of the constants above."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read(4096)
    except OSError as e:
        raise AuditInputError(f"{path}: cannot read ({e.strerror or e})") from None
    if raw.startswith(LFS_MAGIC):
        return LFS_POINTER
    try:
        head = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        if e.start < len(raw) - 4:  # not just a character cut at the 4096-byte boundary
            line = raw.count(b"\n", 0, e.start) + 1
            raise AuditInputError(
                f"{path}:{line}: not UTF-8 (byte {raw[e.start]:#04x} at offset {e.start})"
            ) from None
        head = raw[: e.start].decode("utf-8")
    text = head.lstrip()
    if text.startswith("{"):
        first = text.split("\n", 1)[0]
        try:
            rec = json.loads(first)
        except json.JSONDecodeError:
            rec = None
        if isinstance(rec, dict) and "doc_id" in rec and "arguments" in rec:
            return LM_EVAL_SAMPLES
        obj = load_json(path)  # invalid JSON is reported with its line, whatever reads it
        if lm_eval.sniff(obj):
            return LM_EVAL_RESULTS
        if lm_eval_v03.sniff(obj):
            return LM_EVAL_V03
        return UNKNOWN
    header = text.split("\n", 1)[0]
    cols = {c.strip() for c in header.split(",")}
    if {"model", "task", "n"} <= cols:
        return TIDY_CSV
    return UNKNOWN
