"""The resolved configuration, built once: the user's config over the study presets.

Three layers, lowest first (docs/workflow.md draws them):

1. the schema defaults (workflow/schemas/*.schema.yaml): every setting that does not depend
   on the scale, each with its description, written once;
2. each study's preset (workflow/presets/<study>/<scale>.yaml): what a scale decides (grid
   sizes, models, datasets, numbers of draws). `default.yaml` holds every such value; another
   preset (`demo.yaml`, `paper.yaml`, ...) holds only what differs from it. The top-level
   `scale` picks every study's preset, `<study>.scale` one study's;
3. the user's config: config.yaml, every `--configfile` and `--config`, merged by Snakemake.

Long tables live in sheets (TSV) that a setting names by path: `models` (the language models,
read into `lm.models`), `tapt.training.hyperparameters` and `assessors.collections.<c>.llms`.

The result has the structure the rules and the package read, and is validated against the
schema (unknown keys, types, bounds) before any job runs. The Snakefile and `evalsci
check-config` both call `resolve`; nothing else merges presets or fills defaults.
"""

from __future__ import annotations

import copy
import csv
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import yaml

from evalsci.configcheck import ConfigError, check_config, origin
from evalsci.pipeline.configfiles import ConfigFileError, load_config_file, read_bounded

ROOT = Path(__file__).resolve().parents[2]
SCALES = ("demo", "default", "paper")
PRESETS = Path("workflow/presets")
SCHEMAS = Path("workflow/schemas")


__all__ = [
    "ConfigError",
    "merge",
    "preset",
    "preset_names",
    "recomputes",
    "resolve",
    "resolved",
    "SCALES",
]


def merge(base: Mapping, over: Mapping) -> dict:
    """`over` deep-merged onto a copy of `base`: mappings merge key by key, anything else
    (lists included) is replaced, as Snakemake merges --configfile and --config."""
    out = copy.deepcopy(dict(base))
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def preset_names(study: str, root: Path = ROOT) -> list[str]:
    """The presets of `study` (file names under workflow/presets/<study>/), sorted."""
    return sorted(p.stem for p in (root / PRESETS / study).glob("*.yaml"))


def preset(study: str, name: str, root: Path = ROOT) -> dict:
    """A study's settings at preset `name`: its default.yaml with `<name>.yaml` over it."""
    folder = root / PRESETS / study
    if not isinstance(name, str) or name not in preset_names(study, root):
        # checked against the listing, before any path is built from it: `../x` names no preset
        raise ConfigError(
            f"config {study}.scale: {name!r} is not a preset of {study}; its presets (files "
            f"in {folder}): {preset_names(study, root)}"
        )
    out = load_config_file(folder / "default.yaml")
    if name != "default":
        out = merge(out, load_config_file(folder / f"{name}.yaml"))
    if "scale" in out:
        raise ConfigError(f"preset {folder / name}.yaml: a preset does not set `scale`")
    return {**out, "scale": name}


def resolve(
    user: Mapping,
    root: Path = ROOT,
    files: Sequence[str | os.PathLike] = (),
    cli: Mapping | None = None,
) -> dict:
    """The configuration every rule and function reads: schema defaults, then each study's
    preset, then `user` (the merged config files and --config), sheets read into tables.
    ConfigError when it is invalid, naming the key and where it was set: `files` (config.yaml,
    then each --configfile) and `cli` (the --config entries) are what `user` was merged from."""
    user = dict(user)
    scale = user.get("scale", "default")
    if scale not in SCALES:
        where = origin(("scale",), files, cli)
        raise ConfigError(f"config scale ({where}): {scale!r} is not one of {list(SCALES)}")
    if not (root / PRESETS).is_dir():
        raise ConfigError(
            f"no study presets at {root / PRESETS}: resolve the configuration in a checkout of "
            "the workflow (evalsci check-config --root DIR)"
        )
    layered: dict = {}
    sources: list = []
    for study in sorted(p.name for p in (root / PRESETS).iterdir() if p.is_dir()):
        if study in user and not isinstance(user[study], Mapping):
            where = origin((study,), files, cli)
            raise ConfigError(
                f"config {study} ({where}): {user[study]!r} is not a mapping: a study's "
                f"section holds its keys (`{study}:` then indented `key: value` lines)"
            )
        own = user.get(study) or {}
        name = own.get("scale", scale)
        layered[study] = preset(study, name, root)
        for stem in dict.fromkeys(("default", name)):
            sources.append((root / PRESETS / study / f"{stem}.yaml", (study,)))
    cfg = merge(layered, user)
    _read_sheets(cfg, root)
    check_config(cfg, [*sources, *files], cli, root)
    fill_defaults(cfg, root)
    return cfg


def recomputes(config: Mapping, study: str) -> bool:
    """True when `study` runs our own inference instead of reading the released results:
    config `recompute` (every study), or `<study>.source: recompute`."""
    return bool(config["recompute"]) or config[study].get("source") == "recompute"


def resolved(*overrides: Mapping, root: Path = ROOT) -> dict:
    """The resolved configuration of a run with config.yaml and `overrides` over it (as
    --configfile's): what the workflow's `config` holds. For tests, notebooks and scripts."""
    files = [root / "config.yaml"]
    user = load_config_file(files[0])
    for o in overrides:
        user = merge(user, o)
    return resolve(user, root, files=files)


def _read_sheets(cfg: dict, root: Path) -> None:
    """Replace each sheet path by its table, in place (entries given in the config beside a
    sheet, e.g. a test's extra model in `lm.models`, are kept over the sheet's)."""
    if isinstance(cfg.get("models"), str):
        lm = cfg.setdefault("lm", {})
        lm["models"] = merge(models_sheet(root / cfg["models"], root), lm.get("models") or {})
    training = cfg.get("tapt", {}).get("training", {})
    if isinstance(training.get("hyperparameters"), str):
        training["hyperparameters"] = hyperparameters_sheet(root / training["hyperparameters"])
    for name, coll in (cfg.get("assessors", {}).get("collections") or {}).items():
        if isinstance(coll, dict) and isinstance(coll.get("llms"), str):
            coll["llms"] = llm_splits_sheet(root / coll["llms"], name)


def _rows(path: Path) -> list[dict]:
    """The rows of a TSV sheet with a header line; empty cells left out. A sheet is a regular
    file of at most MAX_BYTES (configfiles.read_bounded): a device or FIFO is refused unread."""
    import io

    try:
        text = read_bounded(path, "sheet").decode("utf-8")
    except ConfigFileError as e:
        raise ConfigError(str(e)) from None
    except UnicodeDecodeError as e:
        raise ConfigError(f"sheet {path}: not UTF-8 text ({e.reason} at byte {e.start})") from None
    rows = list(csv.DictReader(io.StringIO(text, newline=""), delimiter="\t"))
    for i, row in enumerate(rows, start=2):
        if None in row or None in row.values():
            raise ConfigError(f"sheet {path}, line {i}: not as many cells as the header has")
    return [{k: v for k, v in row.items() if v != ""} for row in rows]


def _typed(value: str, kind, where: str):
    """A sheet cell as the schema type of its column (integer, boolean, else the string)."""
    kinds = kind if isinstance(kind, list) else [kind]
    if "integer" in kinds:
        try:
            return int(value)
        except ValueError:
            raise ConfigError(f"{where}: {value!r} is not an integer") from None
    if "boolean" in kinds:
        if value.lower() not in ("true", "false"):
            raise ConfigError(f"{where}: {value!r} is not true or false")
        return value.lower() == "true"
    return value


def models_sheet(path: Path, root: Path = ROOT) -> dict:
    """{name: spec} from the models sheet: one row per model, a column per lm.models key
    (typed as lm.schema.yaml types it) and a free-text `note`."""
    schema = yaml.safe_load((root / SCHEMAS / "lm.schema.yaml").read_text())
    types = {k: v.get("type") for k, v in schema["$defs"]["model"]["properties"].items()}
    out: dict = {}
    for i, row in enumerate(_rows(path), start=2):
        name = row.pop("name", None)
        row.pop("note", None)  # for the reader of the sheet only
        if name is None or name in out:
            raise ConfigError(f"sheet {path}, line {i}: a missing or repeated name {name!r}")
        out[name] = {
            k: _typed(v, types.get(k), f"sheet {path}, line {i}, {k}") for k, v in row.items()
        }
    return out


def hyperparameters_sheet(path: Path) -> dict:
    """{table: {dataset: {setting: int}}} from the tapt hyperparameter sheet (one row per
    table and dataset; an empty cell takes the table's `default` row)."""
    out: dict = {}
    for i, row in enumerate(_rows(path), start=2):
        table, dataset = row.pop("table", None), row.pop("dataset", None)
        if table is None or dataset is None or dataset in out.get(table, {}):
            raise ConfigError(f"sheet {path}, line {i}: a missing or repeated table/dataset")
        out.setdefault(table, {})[dataset] = {
            k: _typed(v, "integer", f"sheet {path}, line {i}, {k}") for k, v in row.items()
        }
    return out


def llm_splits_sheet(path: Path, collection: str) -> dict:
    """{split: [llm, ...]} of one assessors collection from the LLM-split sheet (columns
    collection, llm, split; the sheet's order is each split's order)."""
    out: dict = {}
    for row in _rows(path):
        if row.get("collection") == collection:
            out.setdefault(row["split"], []).append(row["llm"])
    if not out:
        raise ConfigError(f"sheet {path}: no LLM of collection {collection!r}")
    return out


def fill_defaults(cfg: dict, root: Path = ROOT) -> None:
    """Fill the schema's defaults into a valid `cfg`, in place, in the study schemas too
    (Snakemake's `validate` does not fill defaults inside a `$ref`'d file that declares its own
    `$schema`)."""
    from jsonschema import Draft202012Validator, validators
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012

    folder = root / SCHEMAS

    def retrieve(uri: str) -> Resource:
        contents = yaml.safe_load((folder / uri.rsplit("/", 1)[-1]).read_text())
        contents.pop("$schema", None)  # one validator class (the defaulting one) throughout
        return Resource(contents=_entries_undefaulted(contents), specification=DRAFT202012)

    properties = Draft202012Validator.VALIDATORS["properties"]

    def fill_defaults(validator, props, instance, schema):
        if isinstance(instance, dict):
            for key, sub in props.items():
                if "default" in sub and key not in instance:
                    instance[key] = copy.deepcopy(sub["default"])
        yield from properties(validator, props, instance, schema)

    Validator = validators.extend(Draft202012Validator, {"properties": fill_defaults})
    schema = _entries_undefaulted(yaml.safe_load((folder / "config.schema.yaml").read_text()))
    schema["$id"] = (folder / "config.schema.yaml").as_uri()
    for _ in Validator(schema, registry=Registry(retrieve=retrieve)).iter_errors(cfg):
        pass  # check_config found none; iterating fills the defaults


def _entries_undefaulted(schema: dict) -> dict:
    """`schema` without the defaults of entries in a table by name (`additionalProperties`:
    a model, a collection, an LM type), whose defaults are documentation of what the code
    does when a key is absent: filled in, every entry would change, and with it the params
    of the jobs that take one (Snakemake reruns a job whose params change)."""

    def strip(node):
        if isinstance(node, dict):
            return {k: strip(v) for k, v in node.items() if k != "default"}
        if isinstance(node, list):
            return [strip(v) for v in node]
        return node

    entries: set[str] = set()

    def walk(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "additionalProperties" and isinstance(value, dict):
                    ref = value.get("$ref", "")
                    if ref.startswith("#/$defs/"):
                        entries.add(ref.removeprefix("#/$defs/"))
                    node[key] = strip(value)
                else:
                    walk(value)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(schema)
    for name in entries:
        schema["$defs"][name] = strip(schema["$defs"][name])
    return schema


def entry_defaults(section: str, entry: str, root: Path = ROOT) -> dict:
    """The schema's defaults of one kind of table entry (`$defs/<entry>` of
    workflow/schemas/<section>.schema.yaml: a collection, an LM type), which `fill_defaults`
    leaves out of the config (see `_entries_undefaulted`): the settings objects fill them."""
    schema = yaml.safe_load((root / SCHEMAS / f"{section}.schema.yaml").read_text())
    props = schema["$defs"][entry]["properties"]
    return {k: copy.deepcopy(v["default"]) for k, v in props.items() if "default" in v}
