"""Config schema validation runs before any job and names the bad key or value."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
import yaml

from evalsci.pipeline.configfiles import ConfigFileError, StrictLoader, load_config_file

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
        ("baselines={'no_such_key': 1}", "unknown key 'no_such_key'"),
        ("studies=['baselines','nope']", "'nope' is not one of"),
    ],
)
def test_bad_config_fails_naming_it(tmp_path, override, needle):
    proc = snakemake(tmp_path, "-n", "--config", override, check=False)
    assert proc.returncode != 0
    out = proc.stderr + proc.stdout
    key = override.split("=")[0]
    assert f"config {key}" in out and "(set by --config)" in out, out[-2000:]
    assert needle in out
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
    from evalsci.pipeline.jobs import coerce_cli_booleans

    cfg = {"a": "false", "b": {"c": "TRUE", "d": "maybe"}, "e": ["true", 1]}
    assert coerce_cli_booleans(cfg) == {"a": False, "b": {"c": True, "d": "maybe"}, "e": [True, 1]}


# --- issue 13 item 2 ---------------------------------------------------------------------------

SCHEMAS = sorted((REPO / "workflow" / "schemas").glob("*.yaml"))


def test_strict_loader_rejects_duplicates():
    with pytest.raises(yaml.constructor.ConstructorError, match="duplicate key 'a'"):
        yaml.load("a: 1\nb: 2\na: 3\n", Loader=StrictLoader)


@pytest.mark.parametrize(
    "path",
    [
        *SCHEMAS,
        REPO / "config.yaml",
        *sorted((REPO / "workflow" / "profiles").glob("*/config.yaml")),
        *sorted((REPO / "workflow" / "presets").glob("*/*.yaml")),
    ],
    ids=lambda p: str(p.relative_to(REPO)),
)
def test_yaml_has_no_duplicate_keys(path):
    yaml.load(path.read_text(), Loader=StrictLoader)


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
        walk(yaml.load(path.read_text(), Loader=StrictLoader), path.name)


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
        ("recompute: {prompts: 0}", "0 is less than the minimum of 1"),
        ("recompute: {prompts: -1}", "-1 is less than the minimum of 1"),
        ("{scale: paper, recompute: {prompts: '4'}}", "'4' is not of type 'integer'"),
        ("recompute: {promts: 4}", "unknown key 'promts'"),
        ("{scale: paper, recompute: {tasks: [not_a_task]}}", "'not_a_task' is not one of"),
        ("recompute: {shots: [3]}", "3 is not one of [1, 2, 4]"),
    ],
)
def test_baselines_recompute_grid_is_validated(tmp_path, override, needle):
    """The recompute grid, the preset's values under the user's, is checked (it once was not:
    duplicate keys in the schema), naming the key and the file and line that set it."""
    body = override if override.startswith("{") else f"{{{override}}}"
    out = _failing_dry_run(tmp_path, f"baselines: {body}\n")
    assert "config baselines.recompute." in out and needle in out, out[-2000:]
    assert f"(set in {tmp_path / 'override.yaml'}, line 1)" in out  # the file is named
    assert not (tmp_path / "results").exists()


@pytest.mark.workflow  # runs snakemake (a dry run)
@pytest.mark.parametrize(
    ("override", "needles"),
    [
        # a name with '_' used to come back as model 'no', task 'such_model_emoji_movie'
        (
            "baselines: {recompute: {models: [no_such_model]}}",
            ["config baselines.recompute.models", "'no_such_model'", "cannot contain '_'"],
        ),
        (
            "baselines: {recompute: {models: [nosuchmodel]}}",
            [
                "config baselines.recompute.models (set in {f}, line 2): unknown model 'nosuchmodel'",
                "'smollm2'",
            ],
        ),
        (
            "mc_icl: {models: [nosuchmodel]}",
            [
                "config mc_icl.models (set in {f}, line 2): unknown model 'nosuchmodel'",
                "'pythia-160m'",
            ],
        ),
        (
            "mc_icl: {datasets: [nosuchdata]}",
            ["'nosuchdata' is not one of", "'sst2'"],
        ),  # the schema's enum lists them
        (
            "tapt: {training: {datasets: [no_dataset]}}",
            [
                "config tapt.training.datasets (set in {f}, line 2): unknown classification "
                "dataset 'no_dataset'",
                "'sst2'",
            ],
        ),
        (
            "tapt: {training: {lms: [nolm]}}",
            ["config tapt.training.lm_types (set in {f}, line 2): no LM type 'nolm'", "'bert'"],
        ),
        (  # a run's settings are built while the workflow is read, not in its shard jobs
            "tapt: {training: {lm_types: {bert: {hyperparameters: no_table}}}}",
            [
                "config tapt.training.lm_types.bert.hyperparameters (set in {f}, line 2): no "
                "table 'no_table'",
                "'gpt2'",
            ],
        ),
    ],
)
def test_unknown_names_fail_at_parse_time(tmp_path, override, needles):
    """The key, the file and line that set it (issue 35 item 2), and the known names."""
    out = _failing_dry_run(tmp_path, f"recompute: true\n{override}\n")
    assert "Building DAG of jobs" not in out  # failed while parsing, before the DAG
    for needle in needles:
        assert needle.format(f=tmp_path / "override.yaml") in out, out[-2000:]


@pytest.mark.workflow  # runs snakemake (a dry run)
def test_nested_cli_numbers_are_numbers(tmp_path, mirror):
    """Snakemake reads nested --config values as strings; the schema must still accept the
    documented `--config 'baselines={recompute: {prompts: 1, shots: [1]}}'`."""
    cfg = (
        "baselines={source: recompute, recompute: {models: [smollm2], tasks: [known_unknowns], "
        "shots: [1], prompts: 1}}"
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
    from evalsci.pipeline.jobs import coerce_cli_numbers

    cli = {"b": {"prompts": "2", "shots": ["1", "4"], "name": "x1"}, "c": "7"}
    cfg = {"a": "4", "b": {"prompts": "2", "shots": ["1", "4"], "name": "x1", "k": "3"}, "c": "7"}
    coerce_cli_numbers(cfg, cli)
    assert cfg == {"a": "4", "b": {"prompts": 2, "shots": [1, 4], "name": "x1", "k": "3"}, "c": 7}


# --- issue 25 item 1: duplicate keys, syntax errors and empty files name the file and line ----


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        (
            "seed: 20241122\nseed: 7\n",
            "line 2, column 1: duplicate key 'seed' (first given on line 1)",
        ),
        (
            "baselines:\n  source: released\n  source: recompute\n",
            "line 3, column 3: duplicate key 'source' (first given on line 2)",
        ),
        ("lm: {device: cpu, device: cuda}\n", "line 1, column 19: duplicate key 'device'"),
        ('{"seed": 1, "seed": 2}', "line 1, column 13: duplicate key 'seed'"),  # JSON too
        ("seed: [1, 2\nstudies: x\n", "line 2, column 8: while parsing a flow sequence"),
        ("lm:\n\tdevice: cpu\n", "line 2, column 1:"),  # a tab
        ("", "line 1: the file is empty"),
        ("# nothing but\n# comments\n", "line 2: the file is empty (only comments)"),
        ("- seed\n- 7\n", "line 1: the top level must be a mapping of keys"),
    ],
)
def test_config_file_errors_name_the_file_and_line(tmp_path, text, needle):
    path = tmp_path / "mine.yaml"
    path.write_text(text)
    with pytest.raises(ConfigFileError) as err:
        load_config_file(path)
    assert str(err.value).startswith(f"config file {path}")
    assert needle in str(err.value)


def test_strict_reading_gives_what_snakemake_reads():
    """On a good file the strict reader returns what Snakemake's own loader returns."""
    from snakemake.common.configfile import load_configfile

    assert load_config_file(REPO / "config.yaml") == load_configfile(str(REPO / "config.yaml"))


@pytest.mark.workflow  # runs snakemake (a dry run)
@pytest.mark.parametrize(
    ("text", "needle"),
    [
        (
            "seed: 20241122\nstudies: [baselines]\nseed: 7\n",
            "line 3, column 1: duplicate key 'seed'",
        ),
        (
            "baselines:\n  source: released\n  source: recompute\n",
            "line 3, column 3: duplicate key",
        ),
    ],
)
def test_duplicate_keys_in_a_configfile_stop_the_run(tmp_path, mirror, text, needle):
    """Snakemake kept the last of two keys: `seed: 7` ran 6 jobs with seed 7 (issue 25)."""
    good = tmp_path / "good.yaml"
    good.write_text("studies: [baselines]\n")
    bad = tmp_path / "mine.yaml"
    bad.write_text(text)
    proc = snakemake(
        tmp_path,
        "-n",
        "baselines_table1",
        "--configfile",
        str(good),
        str(bad),
        mirror=mirror,
        check=False,
    )
    out = proc.stderr + proc.stdout
    assert proc.returncode != 0
    assert f"config file {bad}, {needle}" in out, out[-2000:]
    assert "Building DAG of jobs" not in out and not (tmp_path / "results").exists()


def _workflow_copy(tmp_path, config_text: str):
    """The repository's workflow with its own config.yaml replaced (everything else linked)."""
    root = tmp_path / "wf"
    root.mkdir()
    for entry in REPO.iterdir():
        if entry.name not in ("config.yaml", ".git", ".venv", "results", "resources", "logs"):
            (root / entry.name).symlink_to(entry)
    (root / "config.yaml").write_text(config_text)
    return root


@pytest.mark.workflow  # runs snakemake (a dry run)
@pytest.mark.parametrize(
    ("edit", "needle"),
    [
        (lambda t: t + "seed: 7\n", "duplicate key 'seed' (first given on line"),
        (lambda t: t.replace("recompute: false", "recompute: [false"), "while parsing a flow"),
        (lambda t: "", "line 1: the file is empty"),
    ],
    ids=["duplicate", "syntax", "empty"],
)
def test_the_workflows_own_config_is_read_strictly(tmp_path, mirror, edit, needle):
    """config.yaml (the Snakefile's `configfile:`), edited by a user: Snakemake said "Config
    file is not valid JSON or YAML" with no file, or ran with the last duplicate."""
    root = _workflow_copy(tmp_path, edit((REPO / "config.yaml").read_text()))
    work = tmp_path / "work"
    work.mkdir()
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", "-s", str(root / "Snakefile"), "-d", str(work)]
        + ["--cores", "1", "-n", "baselines_table1"],
        capture_output=True,
        text=True,
        env={**os.environ, "EVALSCI_MIRROR": str(mirror)},
    )
    out = proc.stderr + proc.stdout
    assert proc.returncode != 0
    assert f"config file {root / 'config.yaml'}, line" in out and needle in out, out[-2000:]
    assert not (work / "results").exists()


@pytest.mark.workflow  # runs snakemake (a dry run)
@pytest.mark.xfail(
    strict=True,
    reason="Snakemake 9 parses every --configfile before the Snakefile runs, and its message "
    "('Config file is not valid JSON or YAML' / '... with keys at top level', or for a binary "
    "file a UnicodeDecodeError traceback of its YAML reader) names no file; `evalsci "
    "check-config FILE` does (docs/troubleshooting.md). No hook runs earlier: the workflow "
    "profile is YAML defaults only, and a logger plugin would take over all of Snakemake's "
    "output. Passes once Snakemake names it.",
)
@pytest.mark.parametrize(
    "text",
    [b"seed: [1, 2\n", b"", b"seed: 1\n\x7fELF\x02\x01\xd0\x00"],
    ids=["syntax", "empty", "binary"],
)
def test_a_broken_cli_configfile_is_named(tmp_path, text):
    bad = tmp_path / "mine.yaml"
    bad.write_bytes(text)
    proc = snakemake(tmp_path, "-n", "--configfile", str(bad), check=False)
    out = proc.stderr + proc.stdout
    assert proc.returncode != 0 and not (tmp_path / "results").exists()  # stopped, no job
    assert str(bad) in out


def test_check_config_uses_the_workflows_validator(capsys, tmp_path):
    """Issue 35 item 5: `evalsci check-config` said "ok" for files the schema rejects. It now
    runs the workflow's validator over config.yaml, naming the key, the file and the line."""
    from evalsci.cli import main

    cases = {
        "unknown.yaml": ("seed: 1\nnosuchkey: 1\n", "config nosuchkey (set in {f}, line 2): "),
        "bound.yaml": ("seed: -3\n", "config seed (set in {f}, line 1): -3 is less than"),
        "deep.yaml": (
            "baselines:\n  recompute:\n    prompts: 0\n",
            "config baselines.recompute.prompts (set in {f}, line 3): 0 is less",
        ),
    }
    for name, (text, needle) in cases.items():
        f = tmp_path / name
        f.write_text(text)
        assert main(["check-config", str(f)]) == 2
        err = capsys.readouterr().err
        assert needle.format(f=f) in err, err
        assert len(err.splitlines()) == 1
    good = tmp_path / "good.yaml"
    good.write_text("seed: 7\n")
    assert main(["check-config", str(good)]) == 0


def test_a_binary_config_file_is_named(capsys, tmp_path):
    """A binary file given as a config file: a clear error naming it, not a traceback."""
    from evalsci.cli import main

    f = tmp_path / "model.yaml"
    f.write_bytes(b"seed: 1\n\x7fELF\x02\x01\x01\x00\xd0\x00")
    with pytest.raises(ConfigFileError, match=r"model.yaml, line 2: not UTF-8 text .*binary"):
        load_config_file(f)
    g = tmp_path / "zeros.yaml"
    g.write_bytes(b"\x00" * 16)
    with pytest.raises(ConfigFileError, match=r"zeros.yaml, line 1: a NUL byte"):
        load_config_file(g)
    assert main(["check-config", str(f)]) == 2
    assert "binary file" in capsys.readouterr().err


@pytest.mark.workflow  # runs snakemake (a dry run)
def test_an_unknown_top_level_key_is_one_short_message(tmp_path):
    """Issue 35 item 5: Snakemake's validate printed 538 lines (the whole schema) for one
    unknown key, naming no file."""
    cfg = tmp_path / "mine.yaml"
    cfg.write_text("seed: 1\nsedd: 2\n")
    proc = snakemake(tmp_path, "-n", "--configfile", str(cfg), check=False)
    out = proc.stderr + proc.stdout
    assert proc.returncode != 0
    assert f"config sedd (set in {cfg}, line 2): unknown key 'sedd'" in out, out[-2000:]
    assert len(out.splitlines()) < 25, f"{len(out.splitlines())} lines"
    assert not (tmp_path / "results").exists()
