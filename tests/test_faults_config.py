"""The fault suite, hostile config (issue 47, round three): numbers that are not finite,
sections that are not mappings, preset names that climb out of their folder, YAML alias bombs,
config files and sheets that are devices, FIFOs or directories, names with a trailing newline.
Each is refused by the one validator (evalsci.configcheck via evalsci.settings.resolve, what
the Snakefile and `evalsci check-config` call) before any file is read or job runs, naming the
key or the file; each case is a row of a list below, counted into docs/reproducibility.md."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from test_config_names import check_config_cli

from evalsci.configcheck import ROOT, ConfigError
from evalsci.pipeline.configfiles import MAX_NODES, ConfigFileError, load_config_file

#: key -> YAML that sets it to a number that is not finite (the schema's bounds compare false
#: on NaN, so each of these ran to exit 0 with changed results)
NON_FINITE = {
    "tapt.permutation.alpha": "tapt:\n  permutation:\n    alpha: .nan\n",
    "tapt.meta.configs.m100_n50": "tapt:\n  meta:\n    configs:\n      m100_n50: .inf\n",
    "baselines.section53.t": "baselines:\n  section53:\n    t: -.inf\n",
    "seed": "seed: .nan\n",
}


def _bomb(levels: int = 9, width: int = 9) -> str:
    """`levels` anchors, each a list of `width` aliases of the one before: width**levels
    values from ~400 bytes."""
    text = "a0: &a0 [" + ", ".join(["x"] * width) + "]\n"
    for i in range(1, levels):
        text += f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]\n"
    return text


def _fifo(tmp_path):
    f = tmp_path / "sheet.tsv"
    os.mkfifo(f)
    return f


#: name -> (make the config text in tmp_path, what the error says)
STRUCTURE = {
    "study section not a mapping": (lambda t: "tapt: 5\n", "config tapt (set in"),
    "preset name climbs out": (
        lambda t: "tapt:\n  scale: ../../../config\n",
        "is not a preset of tapt",
    ),
    "alias bomb": (lambda t: _bomb(), f"more than {MAX_NODES:,} values"),
    "sheet is a device": (lambda t: "models: /dev/zero\n", "sheet /dev/zero: not a regular"),
    "sheet is a FIFO": (lambda t: f"models: {_fifo(t)}\n", "sheet.tsv: not a regular file"),
    "sheet is a directory": (lambda t: f"models: {t}\n", "not a regular file"),
}


@pytest.mark.parametrize("key", sorted(NON_FINITE))
def test_a_number_that_is_not_finite_is_refused_naming_key_file_and_line(tmp_path, key):
    f = tmp_path / "nan.yaml"
    f.write_text(NON_FINITE[key])
    with pytest.raises(ConfigError) as e:
        check_config_cli([f])
    line = NON_FINITE[key].count("\n")
    assert str(e.value).startswith(f"config {key} (set in {f}, line {line}): ")
    assert "is not a finite number" in str(e.value)


@pytest.mark.parametrize("name", sorted(STRUCTURE))
def test_hostile_config_structure_is_refused_before_anything_is_read(tmp_path, name):
    make, says = STRUCTURE[name]
    f = tmp_path / "hostile.yaml"
    f.write_text(make(tmp_path))
    start = time.perf_counter()
    with pytest.raises((ConfigError, ConfigFileError)) as e:
        check_config_cli([f])
    assert says in str(e.value), str(e.value)
    assert time.perf_counter() - start < 10  # no hang on a FIFO, no stall on a bomb


def test_the_alias_bomb_check_is_linear_and_keeps_ordinary_aliases(tmp_path):
    f = tmp_path / "ok.yaml"
    f.write_text("base: &b {lr: 0.1, steps: 3}\nx: *b\ny: *b\n")
    assert load_config_file(f) == {
        "base": {"lr": 0.1, "steps": 3},
        "x": {"lr": 0.1, "steps": 3},
        "y": {"lr": 0.1, "steps": 3},
    }
    deep = tmp_path / "deep.yaml"
    deep.write_text(_bomb(levels=40, width=2))  # 2**40 values from 1 KB
    start = time.perf_counter()
    with pytest.raises(ConfigFileError, match="alias bomb"):
        load_config_file(deep)
    assert time.perf_counter() - start < 1


def test_a_config_file_that_is_a_device_is_refused_unread():
    with pytest.raises(ConfigFileError, match="/dev/zero: not a regular file"):
        load_config_file("/dev/zero")


@pytest.mark.workflow  # a dry run: the --config path through Snakemake's own parsing
def test_nan_from_the_command_line_stops_the_dry_run(tmp_path):
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "snakemake",
            "-s",
            str(ROOT / "Snakefile"),
            "-d",
            str(tmp_path),
            "-n",
            "--config",
            "tapt={permutation: {alpha: .nan}}",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode != 0
    said = run.stdout + run.stderr  # Snakemake prints a parse error on stdout
    assert "config tapt.permutation.alpha (set by --config): nan is not a finite" in said


def test_check_config_command_agrees(tmp_path):
    f = tmp_path / "nan.yaml"
    f.write_text(NON_FINITE["tapt.permutation.alpha"])
    run = subprocess.run(
        [sys.executable, "-m", "evalsci.cli", "check-config", str(f)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert run.returncode == 2, run.stderr
    assert "is not a finite number" in run.stderr
    assert "Traceback" not in run.stderr
