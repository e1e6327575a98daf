"""Config schema validation runs before any job and names the bad key or value."""

from __future__ import annotations

import pytest
import yaml

from conftest import REPO, snakemake


@pytest.mark.workflow  # runs snakemake (a dry run)
def test_default_config_dry_runs(tmp_path, mirror):
    proc = snakemake(tmp_path, "-n", mirror=mirror)
    assert "Error" not in proc.stderr


@pytest.mark.workflow  # runs snakemake (a dry run)
@pytest.mark.parametrize(
    ("override", "needle"),
    [
        ("seed=-3", "-3 is less than the minimum of 0"),
        ("recompute=maybe", "'maybe' is not of type 'boolean'"),
        ("baselines={'no_such_key': 1}", "no_such_key"),
        ("studies=['baselines','nope']", "'nope' is not one of"),
    ],
)
def test_bad_config_fails_naming_it(tmp_path, override, needle):
    proc = snakemake(tmp_path, "-n", "--config", override, check=False)
    assert proc.returncode != 0
    assert "Error validating config file" in proc.stderr + proc.stdout
    assert needle in proc.stderr + proc.stdout
    assert not (tmp_path / "results").exists()


@pytest.mark.workflow  # runs snakemake (a dry run)
@pytest.mark.parametrize("value", ["true", "True", "TRUE"])
def test_cli_boolean_spellings_are_accepted(tmp_path, mirror, value):
    # The README and the issues say `--config recompute=true`; snakemake itself only
    # turns "True" into a boolean.
    proc = snakemake(
        tmp_path, "-n", "baselines_table1", "--config", f"recompute={value}", mirror=mirror
    )
    assert proc.returncode == 0


def test_coerce_cli_booleans_is_recursive_and_leaves_other_strings():
    from evalsci.workflow import coerce_cli_booleans

    cfg = {"a": "false", "b": {"c": "TRUE", "d": "maybe"}, "e": ["true", 1]}
    assert coerce_cli_booleans(cfg) == {"a": False, "b": {"c": True, "d": "maybe"}, "e": [True, 1]}


# --- issue 13 item 2 ---------------------------------------------------------------------------

SCHEMAS = sorted((REPO / "workflow" / "schemas").glob("*.yaml"))


class _StrictLoader(yaml.SafeLoader):
    """A YAML loader that rejects duplicate keys (PyYAML keeps the last one silently)."""


def _no_duplicates(loader, node, deep=False):
    seen = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark
            )
        seen.add(key)
    return loader.construct_mapping(node, deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _no_duplicates)


def test_strict_loader_rejects_duplicates():
    with pytest.raises(yaml.constructor.ConstructorError, match="duplicate key 'a'"):
        yaml.load("a: 1\nb: 2\na: 3\n", Loader=_StrictLoader)


@pytest.mark.parametrize(
    "path",
    [
        *SCHEMAS,
        REPO / "config.yaml",
        *sorted((REPO / "workflow" / "profiles").glob("*/config.yaml")),
    ],
    ids=lambda p: p.name if p.name != "config.yaml" else str(p.parent.name),
)
def test_yaml_has_no_duplicate_keys(path):
    yaml.load(path.read_text(), Loader=_StrictLoader)


def test_every_schema_object_declares_its_keys():
    """An object schema that is checked has `properties` of schemas (a mis-indented block
    turns `type`/`properties` into property names, whose value is then not a schema)."""
    assert len(SCHEMAS) >= 7

    def walk(node, where):
        if isinstance(node, dict):
            if node.get("type") == "object" and "properties" in node:
                for key, sub in node["properties"].items():
                    assert isinstance(sub, dict), f"{where}.{key} is not a schema"
                    assert key not in ("type", "properties", "additionalProperties"), (
                        f"{where}: '{key}' listed as a property (mis-indented schema?)"
                    )
            for k, v in node.items():
                walk(v, f"{where}.{k}")

    for path in SCHEMAS:
        walk(yaml.load(path.read_text(), Loader=_StrictLoader), path.name)


def _failing_dry_run(tmp_path, config_yaml: str) -> str:
    """Dry-run the workflow with `config_yaml` as an extra config file; it must fail.
    Returns snakemake's output."""
    cfg = tmp_path / "override.yaml"
    cfg.write_text(config_yaml)
    proc = snakemake(tmp_path, "-n", "--configfile", str(cfg), check=False)
    assert proc.returncode != 0
    return proc.stderr + proc.stdout


@pytest.mark.workflow  # runs snakemake (a dry run)
@pytest.mark.parametrize(
    ("override", "needle"),
    [
        ("recompute: {default: {prompts: 0}}", "0 is less than the minimum of 1"),
        ("recompute: {default: {prompts: -1}}", "-1 is less than the minimum of 1"),
        ("recompute: {full: {prompts: '4'}}", "'4' is not of type 'integer'"),
        ("recompute: {default: {promts: 4}}", "'promts' was unexpected"),
        ("recompute: {full: {tasks: [not_a_task]}}", "'not_a_task' is not one of"),
        ("recompute: {default: {shots: [3]}}", "3 is not one of [1, 2, 4]"),
    ],
)
def test_baselines_recompute_grid_is_validated(tmp_path, override, needle):
    """baselines.recompute.default/full were unchecked (duplicate keys in the schema)."""
    out = _failing_dry_run(tmp_path, f"baselines: {{{override}}}\n")
    assert "Error validating config file" in out and needle in out
    key = override.split("{")[1].split(":")[0].strip()  # default / full
    assert f"['baselines']['recompute']['{key}']" in out  # the key is named
    assert not (tmp_path / "results").exists()


@pytest.mark.workflow  # runs snakemake (a dry run)
@pytest.mark.parametrize(
    ("override", "needles"),
    [
        # a name with '_' used to come back as model 'no', task 'such_model_emoji_movie'
        (
            "baselines: {recompute: {default: {models: [no_such_model]}}}",
            ["config baselines.recompute.default.models", "'no_such_model'", "cannot contain '_'"],
        ),
        (
            "baselines: {recompute: {default: {models: [nosuchmodel]}}}",
            ["config baselines.recompute.default.models: unknown model 'nosuchmodel'", "'smollm2'"],
        ),
        (
            "mc_icl: {default: {models: [nosuchmodel]}}",
            ["config mc_icl.default.models: unknown model 'nosuchmodel'", "'pythia-160m'"],
        ),
        (
            "mc_icl: {default: {datasets: [nosuchdata]}}",
            ["'nosuchdata' is not one of", "'sst2'"],
        ),  # the schema's enum lists them
        (
            "tapt: {training: {datasets: [no_dataset]}}",
            [
                "config tapt.training.datasets: unknown classification dataset 'no_dataset'",
                "'sst2'",
            ],
        ),
        (
            "tapt: {training: {lms: [nolm]}}",
            ["config tapt.training.lm_types: no LM type 'nolm'", "'bert'"],
        ),
    ],
)
def test_unknown_names_fail_at_parse_time(tmp_path, override, needles):
    out = _failing_dry_run(tmp_path, f"recompute: true\n{override}\n")
    assert "Building DAG of jobs" not in out  # failed while parsing, before the DAG
    for needle in needles:
        assert needle in out, out[-2000:]


@pytest.mark.workflow  # runs snakemake (a dry run)
def test_nested_cli_numbers_are_numbers(tmp_path, mirror):
    """Snakemake reads nested --config values as strings; the schema must still accept the
    documented `--config 'baselines={recompute: {default: {prompts: 1, shots: [1]}}}'`."""
    cfg = (
        "baselines={source: recompute, recompute: {scale: default, default: {models: "
        "[smollm2], tasks: [known_unknowns], shots: [1], prompts: 1}}}"
    )
    proc = snakemake(
        tmp_path,
        "-n",
        "results/baselines/recompute/results/aggregated-results.json",
        "--config",
        cfg,
        mirror=mirror,
    )
    assert "baselines_icl_shard" in proc.stdout


def test_coerce_cli_numbers_touches_only_command_line_paths():
    from evalsci.workflow import coerce_cli_numbers

    cli = {"b": {"prompts": "2", "shots": ["1", "4"], "name": "x1"}, "c": "7"}
    cfg = {"a": "4", "b": {"prompts": "2", "shots": ["1", "4"], "name": "x1", "k": "3"}, "c": "7"}
    coerce_cli_numbers(cfg, cli)
    assert cfg == {"a": "4", "b": {"prompts": 2, "shots": [1, 4], "name": "x1", "k": "3"}, "c": 7}
