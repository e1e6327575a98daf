"""Issues 32 (item 5) and 46: a light install for audit users. The release wheel, built
here from a copy of the sources, installs with a plain `pip install` (no extras) the core
dependencies only (no torch, PyMC or Snakemake: those are the `lm`, `bayes`, `assess` and
`workflow` extras, which `.ci/install` and the lock add), and in a fresh venv that gives a
working `evalsci audit` on every input format, printing what the full environment prints.

The fresh venv gets the lock's versions (`-c requirements/envs/lock-pins.txt`, pins without
hashes: pip cannot hash-check a local wheel), so its output can be compared byte for byte.
It needs no network: the wheel is built without build isolation, and its dependencies come
with --no-index from the wheelhouse `.ci/install` fills (`<venv>/wheelhouse`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import REPO

FIXTURES = REPO / "tests" / "fixtures" / "audit"
# One real client's output per format the audit reads (PROVENANCE files beside them), and a
# tidy CSV, the audit's own input format (docs/audit.md).
FORMATS = {
    "lm-eval 0.4 with samples": FIXTURES / "lm_eval" / "smollm2" / "full",
    "lm-eval 0.3": FIXTURES / "lm_eval" / "published" / "pythia",
    "inspect-ai .eval": FIXTURES / "inspect_ai" / "eval",
    "inspect-ai .json": FIXTURES / "inspect_ai" / "json",
    "HELM": FIXTURES / "helm" / "runs",
    "lighteval": FIXTURES / "lighteval" / "out",
    "Every Eval Ever": FIXTURES / "eee" / "inspect",
    "tidy CSV": None,
}
TIDY_CSV = "model,task,n,correct,choices\nm1,boolq,100,62,2\nm2,boolq,100,53,2\n"
# Distributions (and their modules) that `pip install .` must not install: the extras'.
HEAVY = {
    "torch": "torch",
    "pymc": "pymc",
    "pytensor": "pytensor",
    "snakemake": "snakemake",
    "transformers": "transformers",
    "bambi": "bambi",
    "xgboost-cpu": "xgboost",
    "sentence-transformers": "sentence_transformers",
    "datasets": "datasets",
}
# The wheels of the light install's dependencies, which .ci/install downloads into the venv.
WHEELHOUSE = Path(sys.prefix) / "wheelhouse"
# Core dependencies the audit does not import either, without --plot: the modules it loads
# stay few (start-up time).
NOT_IMPORTED = {*HEAVY.values(), "matplotlib", "sklearn"}


def _inputs(tmp: Path) -> dict[str, Path]:
    out = dict(FORMATS)
    out["tidy CSV"] = tmp / "tidy.csv"
    out["tidy CSV"].write_text(TIDY_CSV)
    return out


def _audit(python: list[str], path: Path, cwd: Path, **env) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*python, "audit", str(path)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
        env={**os.environ, **env},
    )


def test_the_audit_path_imports_nothing_heavy(tmp_path):
    """Also in the full environment: `evalsci audit` (no --plot) on every format loads none
    of the heavy packages, so the light install has nothing to miss."""
    code = (
        "import sys\nfrom evalsci.cli import main\n"
        "rc = main(['audit', *sys.argv[1:]])\n"
        f"heavy = sorted({{m.split('.')[0] for m in sys.modules}} & {NOT_IMPORTED!r})\n"
        "print('HEAVY', heavy, file=sys.stderr)\n"
        "sys.exit(rc)\n"
    )
    for name, path in _inputs(tmp_path).items():
        proc = subprocess.run(
            [sys.executable, "-c", code, str(path)], capture_output=True, text=True, cwd=tmp_path
        )
        assert proc.returncode == 0, f"{name}: {proc.stderr[-2000:]}"
        assert "HEAVY []" in proc.stderr, f"{name}: {proc.stderr.splitlines()[-1]}"


def build_wheel(dest: Path) -> Path:
    """The release wheel, built as a release would be: from a copy of what the sdist holds
    (building in the checkout leaves build/ and *.egg-info behind), with the locked
    setuptools of this environment (no build isolation: nothing fetched to build)."""
    src = dest / "evalsci"
    src.mkdir(parents=True)
    shutil.copytree(REPO / "src", src / "src", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(REPO / name, src / name)
    wheels = dest / "dist"
    cmd = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation"]
    proc = subprocess.run([*cmd, "-w", str(wheels), f"{src}/"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (wheel,) = wheels.glob("evalsci-*.whl")
    return wheel


@pytest.fixture(scope="module")
def light_wheel(tmp_path_factory) -> Path:
    return build_wheel(tmp_path_factory.mktemp("wheel"))


@pytest.fixture(scope="module")
def light_venv(tmp_path_factory, light_wheel) -> Path:
    """A fresh venv with a plain `pip install` of the built wheel (core dependencies only,
    at the lock's versions), offline: pip and the dependencies come from the wheelhouse of
    the venv running the tests, with --no-index (no index is asked, PyPI or a mirror)."""
    assert WHEELHOUSE.is_dir(), f"no {WHEELHOUSE}: `bash .ci/install` fills it"
    offline = ["--no-index", "--find-links", str(WHEELHOUSE)]
    root = tmp_path_factory.mktemp("light")
    venv = root / "venv"
    start = time.monotonic()
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", *offline]
    steps = [
        ["--require-hashes", "--no-deps", "-r", str(REPO / "requirements" / "pip.txt")],
        ["-c", str(REPO / "requirements" / "envs" / "lock-pins.txt"), str(light_wheel)],
    ]
    for args in steps:
        proc = subprocess.run(pip + args, capture_output=True, text=True, cwd=root)
        assert proc.returncode == 0, proc.stderr[-3000:]
    print(f"light venv: pip install of the wheel in {time.monotonic() - start:.0f} s")
    return venv


def test_the_wheel_is_a_release(tmp_path):
    """The wheel carries the license, the one version, the `evalsci` command and the data
    files the package reads (registries, references, schemas), and no tests or workflow."""
    import zipfile
    from email.parser import Parser

    import evalsci

    wheel = build_wheel(tmp_path)
    assert wheel.name == f"evalsci-{evalsci.__version__}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        info = f"evalsci-{evalsci.__version__}.dist-info"
        meta = Parser().parsestr(z.read(f"{info}/METADATA").decode())
        entry = z.read(f"{info}/entry_points.txt").decode()
    assert meta["Version"] == evalsci.__version__ and meta["License-Expression"] == "MIT"
    assert f"{info}/licenses/LICENSE" in names
    assert "evalsci = evalsci.cli:run" in entry
    for data in ("evalsci/pipeline/artefacts.yaml", "evalsci/studies/tapt/reference.yaml"):
        assert data in names, data
    assert not [n for n in names if n.startswith(("tests/", "workflow/", "benchmarks/"))]
    requires = meta.get_all("Requires-Dist")
    core = [r for r in requires if "extra ==" not in r]
    assert not [r for r in core if r.split(">")[0].split("=")[0].split("<")[0].strip() in HEAVY]


@pytest.mark.slow
def test_the_wheel_installs_no_heavy_package(light_venv):
    names = subprocess.run(
        [
            str(light_venv / "bin" / "python"),
            "-c",
            "import importlib.metadata as m; print('\\n'.join(d.metadata['Name'] for d in m.distributions()))",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    from packaging.utils import canonicalize_name

    have = {canonicalize_name(n) for n in names}
    assert "evalsci" in have
    assert not have & set(HEAVY), sorted(have & set(HEAVY))


@pytest.mark.slow
@pytest.mark.parametrize("fmt", list(FORMATS))
def test_evalsci_audit_works_from_the_light_install(fmt, light_venv, tmp_path):
    """The light install's `evalsci audit` prints exactly what the full environment's does."""
    path = _inputs(tmp_path)[fmt]
    # no PYTHONPATH: the light venv's own evalsci, not a checkout's
    light = _audit([str(light_venv / "bin" / "evalsci")], path, tmp_path, PYTHONPATH="")
    full = _audit([sys.executable, "-m", "evalsci.cli"], path, tmp_path)
    assert light.returncode == 0, light.stderr[-2000:]
    assert light.stdout.strip(), f"{fmt}: no table"
    assert (light.returncode, light.stdout) == (full.returncode, full.stdout)
