"""Typed field access for the harness readers (inspect-ai, HELM, lighteval): a missing key or
a value of the wrong type is an AuditInputError naming the file, the path to the key, and
what was found."""

from __future__ import annotations

from ..records import AuditInputError


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
