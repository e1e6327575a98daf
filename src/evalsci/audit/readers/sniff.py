"""Which reader a file needs, decided by its content, not its name."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from ..records import AuditInputError
from . import eee, helm, inspect_ai, lighteval, lm_eval, lm_eval_v03
from .jsonfile import LFS_MAGIC, load_json

LM_EVAL_RESULTS = "lm_eval_results"
LM_EVAL_V03 = "lm_eval_v03"
LM_EVAL_SAMPLES = "lm_eval_samples"
LFS_POINTER = "lfs_pointer"
TIDY_CSV = "tidy_csv"
ITEM_CSV = "item_csv"  # model,task,item,correct: one row per item
INSPECT_LOG = "inspect_log"  # .eval (zip) or .json
HELM_RUN = "helm_run"  # a run directory's run_spec.json
LIGHTEVAL_RESULTS = "lighteval_results"
EEE_AGGREGATE = "eee_aggregate"  # Every Eval Ever <uuid>.json
EEE_SAMPLES = "eee_samples"  # its <uuid>_samples.jsonl: read through the aggregate
EEE_SIDECAR = "eee_sidecar"  # evalsci_audit.json, beside the data/ that --format eee writes
PARQUET = "parquet"  # e.g. lighteval details: read through their results JSON
UNKNOWN = "unknown"

HEAD = 4096  # bytes read to tell most formats apart
#: the longest first line read to tell a samples JSONL from a JSON document: an Open LLM
#: Leaderboard sample holds every option's few-shot prompt (up to ~35 KB in lm-eval's
#: leaderboard tasks, more with long contexts), so one line can be far beyond HEAD
FIRST_LINE_MAX = 64 * 2**20


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


def _binary_kind(raw: bytes) -> str | None:
    """The format told by a file's first bytes, before any decoding: an LFS pointer, an
    inspect-ai .eval zip, a parquet file; None otherwise."""
    if raw.startswith(LFS_MAGIC):
        return LFS_POINTER
    if inspect_ai.sniff_bytes(raw):
        return INSPECT_LOG
    if raw.startswith(b"PAR1"):
        return PARQUET
    return None


def _json_kind(path: Path, text: str) -> str:
    """The format of a file that opens with `{`: a JSONL of samples (told by its first line)
    or one JSON document (told by its keys)."""
    first = text.split("\n", 1)[0]
    try:
        rec = json.loads(first)
    except json.JSONDecodeError:
        rec = None
    if isinstance(rec, dict) and "doc_id" in rec and "arguments" in rec:
        return LM_EVAL_SAMPLES
    if eee.sniff_samples(rec):
        return EEE_SAMPLES
    obj = load_json(path)  # invalid JSON is reported with its line, whatever reads it
    if eee.sniff_aggregate(obj):
        return EEE_AGGREGATE
    if eee.sniff_sidecar(obj):
        return EEE_SIDECAR
    if lm_eval.sniff(obj):
        return LM_EVAL_RESULTS
    if lm_eval_v03.sniff(obj):
        return LM_EVAL_V03
    return UNKNOWN


def sniff(path: Path) -> str:
    """The format of `path`: one of the constants above."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read(HEAD)
            if raw.lstrip()[:1] == b"{" and b"\n" not in raw and len(raw) == HEAD:
                raw += fh.readline(FIRST_LINE_MAX)  # the whole first line, not the file
    except OSError as e:
        raise AuditInputError(f"{path}: cannot read ({e})") from None
    kind = _binary_kind(raw)
    if kind is not None:
        return kind
    head = decode_head(path, raw)
    text = head.lstrip()
    for reader, kind in (
        (inspect_ai, INSPECT_LOG),
        (helm, HELM_RUN),
        (lighteval, LIGHTEVAL_RESULTS),
    ):
        if reader.sniff(text):
            return kind
    if lm_eval.is_sample_array(text):  # lm-eval 0.4.0-0.4.2: one JSON array of samples
        return LM_EVAL_SAMPLES
    if text.startswith("{"):
        return _json_kind(path, text)
    header = text.split("\n", 1)[0]
    cols = {c.strip() for c in next(csv.reader([header]), [])}
    if {"model", "task", "n"} <= cols:
        return TIDY_CSV
    if {"item", "correct"} <= cols:
        return ITEM_CSV
    return UNKNOWN
