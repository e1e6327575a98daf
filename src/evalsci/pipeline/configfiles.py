"""Read config files strictly: a duplicate key, a YAML syntax error or an empty file is an
error that names the file and the line.

Snakemake reads config files with a YAML loader that keeps the LAST of two equal keys without
a word (`seed: 20241122` then `seed: 7` runs with seed 7), and its message for a broken or
empty file names neither the file nor the line. The Snakefile therefore re-reads every config
file Snakemake was given (its own `configfile:` and every `--configfile`) with `StrictLoader`
first, before anything else runs (`check_config_files`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import yaml

# the C parser when PyYAML has it (same marks, ~10x faster); the constructor stays Python
_Base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class ConfigFileError(ValueError):
    """A config file is empty, not YAML/JSON, not a mapping, or repeats a key."""


class StrictLoader(_Base):
    """yaml.SafeLoader that rejects a key repeated in one mapping (PyYAML keeps the last)."""

    def construct_mapping(self, node, deep=False):
        seen: dict = {}  # key -> line it was first given on
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            try:
                first = seen.get(key)
            except TypeError:  # an unhashable key: PyYAML reports it below
                continue
            if first is not None:
                raise yaml.constructor.ConstructorError(
                    None,
                    None,
                    f"duplicate key {key!r} (first given on line {first}); YAML would keep "
                    "only the last value",
                    key_node.start_mark,
                )
            seen[key] = key_node.start_mark.line + 1
        return super().construct_mapping(node, deep=deep)


StrictLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, StrictLoader.construct_mapping
)


def load_config_file(path: str | os.PathLike) -> dict:
    """The mapping in a YAML (or JSON) config file; ConfigFileError naming the file and line
    when it repeats a key, is not valid YAML, is empty or is not a mapping of keys."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise ConfigFileError(f"config file {path}: cannot read it: {e.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        raise ConfigFileError(
            f"config file {path}, line {line}: not UTF-8 text (byte {raw[e.start]:#04x} at "
            f"offset {e.start}): a config file is YAML or JSON, is this a binary file?"
        ) from None
    if "\x00" in text:
        line = text[: text.index("\x00")].count("\n") + 1
        raise ConfigFileError(
            f"config file {path}, line {line}: a NUL byte: a config file is YAML or JSON text, "
            "is this a binary file?"
        )
    try:
        data = yaml.load(text, Loader=StrictLoader)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        where = f", line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        what = ": ".join(x for x in (e.context, e.problem) if x)
        raise ConfigFileError(f"config file {path}{where}: {what}") from None
    except yaml.YAMLError as e:
        raise ConfigFileError(f"config file {path}: not valid YAML: {e}") from None
    if data is None:
        lines = len(text.splitlines())
        raise ConfigFileError(
            f"config file {path}, line {max(lines, 1)}: the file is empty"
            + (" (only comments)" if text.strip() else "")
            + "; give at least one `key: value`, or leave the file out"
        )
    if not isinstance(data, dict):
        raise ConfigFileError(
            f"config file {path}, line 1: the top level must be a mapping of keys "
            f"(`key: value` lines), not a {type(data).__name__}"
        )
    return data


def check_config_files(paths: Iterable[str | os.PathLike]) -> None:
    """load_config_file every path that exists (Snakemake reports a missing one itself)."""
    for p in paths:
        if Path(p).is_file():
            load_config_file(p)
