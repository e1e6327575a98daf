"""Small file helpers shared by the harness readers (inspect-ai, HELM, lighteval): JSON that
fails with the file's name, and typed field access that names the key."""

from __future__ import annotations

import json
from pathlib import Path

from ..records import AuditInputError


def load_json(path: Path):
    """The parsed JSON in `path`; an unreadable or truncated file is an AuditInputError."""
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except UnicodeDecodeError as e:
        raise AuditInputError(f"{path}: not UTF-8 ({e.reason})") from None
    except (OSError, json.JSONDecodeError) as e:
        raise AuditInputError(f"{path}: cannot read JSON ({e})") from None


def field(obj, key: str, kind, where: str):
    """`obj[key]`, which must be a `kind`; `where` names the file and the path to `obj`."""
    if not isinstance(obj, dict) or key not in obj:
        raise AuditInputError(f"{where}: key {key!r} missing")
    value = obj[key]
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        name = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise AuditInputError(
            f"{where}: key {key!r} must be {name}, got {type(value).__name__} {value!r:.60}"
        )
    return value
