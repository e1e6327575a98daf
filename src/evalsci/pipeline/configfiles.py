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


#: the most nodes a config file may expand to, aliases followed: a YAML alias bomb (9 levels of
#: 9 aliases: 400 bytes, 387 million nodes) stalls every walk of the config (Snakemake's, the
#: boolean coercion, the schema check); this project's largest config expands to ~2,000 nodes
MAX_NODES = 100_000
#: the largest config file read (bytes): a config or sheet path that names /dev/zero or a huge
#: file is refused before it is read whole
MAX_BYTES = 4 * 1024 * 1024


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


def read_bounded(path: str | os.PathLike, what: str, limit: int = MAX_BYTES) -> bytes:
    """The bytes of `path`, a regular file of at most `limit` bytes; ConfigFileError naming
    `what` and the path otherwise (a device, a FIFO or a directory is refused before it is
    opened: /dev/zero would exhaust memory, a FIFO would hang)."""
    import stat

    path = Path(path)
    try:
        st = path.stat()
    except OSError as e:
        raise ConfigFileError(f"{what} {path}: cannot read it: {e.strerror}") from None
    if not stat.S_ISREG(st.st_mode):
        raise ConfigFileError(f"{what} {path}: not a regular file (a device, FIFO or directory)")
    if st.st_size > limit:
        raise ConfigFileError(
            f"{what} {path}: {st.st_size:,} bytes, more than the {limit:,} a {what} may have"
        )
    try:
        with open(path, "rb") as fh:
            raw = fh.read(limit + 1)
    except OSError as e:
        raise ConfigFileError(f"{what} {path}: cannot read it: {e.strerror}") from None
    if len(raw) > limit:  # it grew between stat and read
        raise ConfigFileError(f"{what} {path}: more than the {limit:,} bytes a {what} may have")
    return raw


def _expanded_nodes(node, limit: int) -> int:
    """How many nodes the YAML node graph `node` stands for with every alias expanded (a
    shared node counts once per use), stopping past `limit`. Memoised per node, so the walk
    is linear in the composed graph however deep the aliases nest."""
    memo: dict[int, int] = {}

    def size(n) -> int:
        if id(n) in memo:
            return memo[id(n)]
        memo[id(n)] = limit + 1  # a cycle (recursive alias) counts as too many
        total = 1
        if isinstance(n, yaml.MappingNode):
            children = [c for kv in n.value for c in kv]
        elif isinstance(n, yaml.SequenceNode):
            children = n.value
        else:
            children = []
        for c in children:
            total += size(c)
            if total > limit:
                break
        memo[id(n)] = total
        return total

    return size(node)


def load_config_file(path: str | os.PathLike) -> dict:
    """The mapping in a YAML (or JSON) config file; ConfigFileError naming the file and line
    when it repeats a key, is not valid YAML, is empty or is not a mapping of keys; and when
    it is not a regular file of at most MAX_BYTES, or its aliases expand it past MAX_NODES."""
    path = Path(path)
    raw = read_bounded(path, "config file")
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
        loader = StrictLoader(text)
        try:
            node = loader.get_single_node()
            if node is not None and _expanded_nodes(node, MAX_NODES) > MAX_NODES:
                raise ConfigFileError(
                    f"config file {path}: its aliases expand it to more than {MAX_NODES:,} "
                    "values (a YAML alias bomb?); write the values out, or use fewer aliases"
                )
            data = loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
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
