"""The README is the front door (issue 46): at most 12 KB, and its quickstarts run as written.

Each ```bash block of the Quickstarts section runs from the repository root in bash, with
this environment's `evalsci` and `snakemake` first on PATH; its expected output (the next
```text block before the next command) must appear in what it prints, line by line (lines
starting with "..." stand for what the README leaves out; absolute paths before `/results/`
stand for the reader's folder). Snakemake commands run as dry runs (`-n` added; `-d ~/...`
sent to a temporary folder): the real runs' last lines are tested in test_console_logs.py."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

README = REPO / "README.md"


def _quickstarts() -> list[tuple[str, list[str]]]:
    text = README.read_text()
    section = text[
        text.index("## Quickstarts") : text.index("\n## ", text.index("## Quickstarts") + 1)
    ]
    blocks = re.findall(r"```(bash|text)\n(.*?)```", section, re.S)
    out: list[tuple[str, list[str]]] = []
    for kind, body in blocks:
        if kind == "bash":
            out.append((body, []))
        elif out and not out[-1][1]:
            out[-1] = (out[-1][0], body.splitlines())
    return out


def test_the_readme_is_at_most_12_kb():
    size = len(README.read_bytes())
    assert size <= 12 * 1024, f"README.md is {size} bytes"


def test_the_readme_has_its_sections_in_order():
    heads = re.findall(r"^## (.+)$", README.read_text(), re.M)
    assert heads == ["Requirements", "Install", "Quickstarts", "Test", "More"], heads


def test_every_quickstart_has_a_command():
    commands = [c for c, _ in _quickstarts()]
    assert len(commands) >= 5
    text = "\n".join(commands)
    for what in (
        "snakemake --cores all",
        "-d ~/",
        "--profile workflow/profiles/slurm",
        "evalsci audit",
        "evalsci reference select",
        "evalsci reference predict",
        "evalsci compare",
    ):
        assert what in text, what


def _normalise(line: str) -> str:
    line = re.sub(r"\S*/results/", "<dir>/results/", line)
    return " ".join(line.split())


QUICKSTARTS = _quickstarts()


@pytest.mark.workflow
@pytest.mark.parametrize("i", range(len(QUICKSTARTS)), ids=lambda i: f"quickstart{i}")
def test_the_quickstart_runs_as_written(i, tmp_path, mirror):
    command, expected = QUICKSTARTS[i]
    lines = []
    for line in command.strip().splitlines():
        line = line.replace("~/evalsci-run", str(tmp_path / "run")).replace(
            "/tmp/ref.", f"{tmp_path}/ref."
        )
        if line.startswith("snakemake"):
            line += " -n" if " -n" not in line else ""
            line += "" if " -d " in line else f" -d {tmp_path / 'run'}"
        lines.append(line)
    script = "set -euo pipefail\n" + "\n".join(lines) + "\n"
    bin_dir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "EVALSCI_MIRROR": str(mirror)}
    env["COLUMNS"] = "100"  # the audit table fits the terminal; the README shows 100 columns
    proc = subprocess.run(
        ["bash", "-c", script], cwd=REPO, env=env, capture_output=True, text=True, timeout=600
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"{script}\n{out[-4000:]}"
    if any(line.startswith("snakemake") and " -n" not in line for line in command.splitlines()):
        return  # a real run's output, shown in the README, is not a dry run's
    seen = {_normalise(line) for line in out.splitlines()}
    missing = [
        line
        for line in expected
        if line.strip() and not line.startswith("...") and _normalise(line) not in seen
    ]
    assert not missing, "not printed:\n" + "\n".join(missing) + f"\n--- output:\n{out[-4000:]}"
