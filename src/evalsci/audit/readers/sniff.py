"""Which reader a file needs, decided by its content, not its name."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from ..records import AuditInputError

LM_EVAL_RESULTS = "lm_eval_results"
LM_EVAL_SAMPLES = "lm_eval_samples"
TIDY_CSV = "tidy_csv"
UNKNOWN = "unknown"


def decode_head(path: Path, raw: bytes) -> str:
    """The first bytes of a file as text: UTF-8, a byte-order mark dropped. A character cut by
    the end of the piece is fine; an invalid byte is an error naming its line."""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        if e.start >= len(raw) - 3 and e.reason == "unexpected end of data":
            return raw[: e.start].decode("utf-8-sig")
        line = raw[: e.start].count(b"\n") + 1
        raise AuditInputError(
            f"{path}:{line}: not UTF-8 (byte {raw[e.start]:#04x}: {e.reason})"
        ) from None


def sniff(path: Path) -> str:
    """The format of `path`: one of the constants above."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read(4096)
    except OSError as e:
        raise AuditInputError(f"{path}: cannot read ({e})") from None
    head = decode_head(path, raw)
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
    cols = {c.strip() for c in next(csv.reader([header]), [])}
    if {"model", "task", "n"} <= cols:
        return TIDY_CSV
    return UNKNOWN
