"""The one config validator: evalsci.settings.resolve calls it, for the workflow and for
`evalsci check-config` alike.

It checks the merged configuration against workflow/schemas/config.schema.yaml (and the study
schemas it refers to) before any job, and reports the first error in one short paragraph:

    config baselines.section53.t (set in my.yaml, line 3): 1e+24 is greater than the maximum
    of 1000000000000

naming the key, the file and line that set it (or `--config`, or "not set: a schema default"),
and what the schema allows. Snakemake's own `validate` prints the whole schema of the failing
subtree (538 lines for one unknown top-level key) and names no file; it still runs afterwards,
on a config this has passed, to fill the schema's defaults.

Where a value comes from: Snakemake merges config.yaml, then each `--configfile` in order,
then `--config`, mappings key by key, the last one winning (`origin`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path

import yaml

from evalsci.pipeline.configfiles import ConfigFileError, StrictLoader, load_config_file

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = Path("workflow") / "schemas"


_NAMES = yaml.safe_load((ROOT / SCHEMAS / "names.schema.yaml").read_text())["$defs"]
NAME_PATTERN = _NAMES["name"]["pattern"]
LLM_NAME_PATTERN = _NAMES["llm_name"]["pattern"]


class ConfigError(ConfigFileError):
    """The configuration breaks its schema; the message names the key and where it was set."""


def _key_lines(path: Path) -> dict[tuple, int]:
    """{key path: line} of every mapping key and list item in a YAML file (lines from 1)."""
    try:
        node = yaml.compose(path.read_text(encoding="utf-8"), Loader=StrictLoader)
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return {}
    lines: dict[tuple, int] = {}

    def walk(n, at: tuple) -> None:
        if isinstance(n, yaml.MappingNode):
            for k, v in n.value:
                key = at + (k.value,)
                lines.setdefault(key, k.start_mark.line + 1)
                walk(v, key)
        elif isinstance(n, yaml.SequenceNode):
            for i, v in enumerate(n.value):
                lines.setdefault(at + (i,), v.start_mark.line + 1)
                walk(v, at + (i,))

    walk(node, ())
    return lines


def _has(data, path: tuple) -> int:
    """How many leading keys of `path` the nested mapping/list `data` holds."""
    depth = 0
    for key in path:
        if isinstance(data, Mapping) and key in data:
            data = data[key]
        elif isinstance(data, list) and isinstance(key, int) and 0 <= key < len(data):
            data = data[key]
        else:
            break
        depth += 1
    return depth


def origin(path: Iterable, files: Iterable, cli: Mapping | None = None) -> str:
    """Where the value at key `path` was set: `--config`, `<file>, line N`, or not set.

    `files` in the order they were merged (the study presets, then config.yaml, then each
    --configfile); a preset, which holds one study's section, comes as (file, (study,)). The
    last source that holds the whole path wins, else the one holding its longest part (a list
    or mapping the key sits in)."""
    path = tuple(path)
    sources: list[tuple[str, object, Path | None, tuple]] = []
    for f in files:
        f, prefix = f if isinstance(f, tuple) else (f, ())
        f = Path(f)
        try:
            data = load_config_file(f)
        except ConfigFileError:
            continue
        for key in reversed(prefix):
            data = {key: data}
        sources.append((str(f), data, f, tuple(prefix)))
    if cli:
        sources.append(("--config", dict(cli), None, ()))
    best, best_depth = None, 0
    for name, data, f, prefix in reversed(sources):
        depth = _has(data, path)
        if depth > len(prefix) and depth > best_depth:
            best, best_depth = (name, f, depth, prefix), depth
        if depth == len(path):
            break
    if best is None:
        return "not set in any config file: a schema default"
    name, f, depth, prefix = best
    if f is None:
        return "set by --config"
    line = _key_lines(f).get(path[len(prefix) : depth])
    where = f"{name}, line {line}" if line else name
    return f"set in {where}" if depth == len(path) else f"in {where}"


# The sources of the configuration being run, set by `check_config` (the Snakefile calls it
# first), so that a check made later while the workflow is parsed can name the file too.
_SOURCES: tuple[list, dict | None] = ([], None)


def where(key: str | Iterable) -> str:
    """`origin` of a dotted key (`tapt.fits.configs`) among the sources `check_config` saw."""
    path = key.split(".") if isinstance(key, str) else list(key)
    files, cli = _SOURCES
    return origin(path, files, cli) if files or cli else "no config file given"


@cache
def _validator(schema_dir: str):
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012

    folder = Path(schema_dir)

    @cache  # the registry is immutable: without this every $ref would reread its file
    def retrieve(uri: str) -> Resource:
        contents = yaml.safe_load((folder / uri.rsplit("/", 1)[-1]).read_text())
        return Resource.from_contents(contents, default_specification=DRAFT202012)

    schema = yaml.safe_load((folder / "config.schema.yaml").read_text())
    schema["$id"] = (folder / "config.schema.yaml").as_uri()
    return Draft202012Validator(schema, registry=Registry(retrieve=retrieve))


def _path_of(error) -> tuple:
    """The key the error is about: for an unknown or a bad key name, that key itself."""
    path = tuple(error.absolute_path)
    if "propertyNames" in error.absolute_schema_path:
        return path + (error.instance,)
    if error.validator == "additionalProperties" and isinstance(error.instance, Mapping):
        known = set(error.schema.get("properties", {}))
        extra = sorted(str(k) for k in error.instance if k not in known)
        if extra:
            return path + (extra[0],)
    return path


def _message(error) -> str:
    """jsonschema's message, shortened: an unknown key lists the keys allowed there."""
    if error.validator == "additionalProperties" and isinstance(error.instance, Mapping):
        known = sorted(error.schema.get("properties", {}))
        extra = sorted(str(k) for k in error.instance if k not in known)
        return f"unknown key {extra[0]!r}; the keys allowed here: {known}"
    if error.validator == "pattern" and error.validator_value == LLM_NAME_PATTERN:
        return (
            f"{_short(error.instance)} is not an LLM name: a letter or digit, then letters, "
            "digits, '.', '_', '-' or '@', after at most one 'org/' prefix (each part at most "
            f"100 characters; {SCHEMAS}/names.schema.yaml)"
        )
    if _unsafe(error):
        return (
            f"{_short(error.instance)} is not a safe name: it becomes part of a file path, so "
            "it is a letter or digit, then letters, digits, '.', '_' or '-' (at most 100 "
            f"characters; {SCHEMAS}/names.schema.yaml)"
        )
    return error.message


def _unsafe(error) -> bool:
    return error.validator == "pattern" and error.validator_value in (
        NAME_PATTERN,
        LLM_NAME_PATTERN,
    )


def _leaf(error):
    """For a value no alternative of a oneOf/anyOf accepts, the error of the alternative that
    got furthest into it (a list of names: the bad name, not "is not of type 'string'")."""
    while error.validator in ("oneOf", "anyOf") and error.context:
        error = max(error.context, key=lambda e: len(e.absolute_path))
    return error


def _dotted(path: tuple) -> str:
    """tapt.fits.configs[1], lm.models['../x']: the key path as the user would write it."""
    out = ""
    for p in path:
        if isinstance(p, int):
            out += f"[{p}]"
        elif re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]*", str(p)) and "." not in str(p):
            out += f".{p}" if out else str(p)
        else:
            out += f"[{str(p)!r}]"
    return out


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _non_finite(data, at: tuple = ()):
    """(key path, value) of the first NaN or infinite number in `data`, or None. The schema
    cannot refuse them: every bound compares false against NaN, so `alpha: .nan` passed both
    its minimum and its maximum and silently changed results."""
    import math

    if isinstance(data, float) and not math.isfinite(data):
        return at, data
    if isinstance(data, Mapping):
        items = data.items()
    elif isinstance(data, list):
        items = enumerate(data)
    else:
        return None
    for key, value in items:
        found = _non_finite(value, at + (key,))
        if found is not None:
            return found
    return None


def check_config(
    cfg: Mapping,
    files: Iterable[str | os.PathLike],
    cli: Mapping | None = None,
    root: Path = ROOT,
) -> None:
    """Raise ConfigError for the first schema error of `cfg` (merged from `files` and `cli`),
    naming its key, the file and line that set it, and the rule broken."""
    global _SOURCES
    files = list(files)
    _SOURCES = (files, dict(cli) if cli else None)
    bad = _non_finite(cfg)
    if bad is not None:
        key, value = bad
        raise ConfigError(
            f"config {_dotted(key)} ({origin(key, files, cli)}): {value!r} is not a finite "
            "number; every number in the configuration is finite"
        )
    errors = list(_validator(str(root / SCHEMAS)).iter_errors(dict(cfg)))
    if not errors:
        return
    # an unsafe name first (it could write outside the working directory), then by key
    errors = sorted(
        map(_leaf, errors), key=lambda e: (not _unsafe(e), [str(p) for p in _path_of(e)])
    )
    e = errors[0]
    path = _path_of(e)
    key = _dotted(path) or "(the top level)"
    more = f" ({len(errors) - 1} more error(s) after this one)" if len(errors) > 1 else ""
    raise ConfigError(
        f"config {key} ({origin(path, files, cli)}): {_message(e)}{more}. "
        f"The schema: {SCHEMAS}/*.schema.yaml"
    )
