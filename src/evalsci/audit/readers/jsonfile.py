"""Reading JSON and JSON Lines inputs so that every failure names the file, line and reason.

Committed evaluation output is often not the file itself: Git LFS leaves a small text
pointer in its place (`version https://git-lfs.github.com/spec/v1`), which is named as one
rather than reported as bad JSON. Text must be UTF-8; a byte that is not is reported with its
line. A truncated or otherwise invalid JSON document is reported with its line and column.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from ..records import AuditInputError

LFS_MAGIC = b"version https://git-lfs.github.com/spec/v1"


def is_lfs_pointer(path: Path) -> bool:
    """True when `path` is a Git LFS pointer file, not the content it stands for."""
    try:
        with open(path, "rb") as fh:
            return fh.read(len(LFS_MAGIC)) == LFS_MAGIC
    except OSError:
        return False


def lfs_message(path: Path) -> str:
    return f"{path}: a Git LFS pointer, not the file itself (run `git lfs pull` to fetch it)"


def _decode(path: Path, data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")  # a byte-order mark is dropped
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise AuditInputError(
            f"{path}:{line}: not UTF-8 (byte {data[e.start]:#04x} at offset {e.start})"
        ) from None


def read_text(path: Path) -> str:
    """The file's text; an LFS pointer or a non-UTF-8 byte is an AuditInputError."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as e:
        raise AuditInputError(f"{path}: cannot read ({e.strerror or e})") from None
    if data.startswith(LFS_MAGIC):
        raise AuditInputError(lfs_message(path))
    return _decode(path, data)


def load_json(path: Path) -> object:
    """One JSON document; errors name the file, line and column."""
    text = read_text(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        what = "truncated JSON" if e.pos >= len(text.rstrip()) else "not valid JSON"
        raise AuditInputError(f"{path}:{e.lineno}:{e.colno}: {what} ({e.msg})") from None


def iter_jsonl(path: Path) -> Iterator[tuple[int, dict]]:
    """(line number, object) for each non-blank line; a line that is not a JSON object is an
    AuditInputError naming the line."""
    path = Path(path)
    if is_lfs_pointer(path):
        raise AuditInputError(lfs_message(path))
    try:
        fh = open(path, "rb")
    except OSError as e:
        raise AuditInputError(f"{path}: cannot read ({e.strerror or e})") from None
    with fh:
        for lineno, raw in enumerate(fh, 1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                raise AuditInputError(
                    f"{path}:{lineno}: not UTF-8 (byte {raw[e.start]:#04x} at column {e.start + 1})"
                ) from None
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as e:
                raise AuditInputError(f"{path}:{lineno}: not JSON ({e.msg})") from None
            if not isinstance(rec, dict):
                raise AuditInputError(
                    f"{path}:{lineno}: expected a JSON object, got {type(rec).__name__}"
                )
            yield lineno, rec
