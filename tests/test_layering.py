"""Imports flow one way: `evalsci.studies.<study>` -> (maxrandom, data, lm, stats, plots, ...),
never back. No module of the package outside `src/evalsci/studies/` imports a study, neither
by an import statement nor by importlib with a literal name (docs/workflow.md, Layout). The workflow
machinery (`evalsci.pipeline`) sits below the science: every layer may use it (atomic writes,
the hub lock, portable arithmetic), and it imports nothing of the package but itself,
`paths` (the shapes of the workflow's files) and `runrecord`. Its registries that name a study's function (pipeline/artefacts.yaml,
pipeline/doc_blocks.yaml) are data; the code that reads them imports a registered name only
when it is used."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "evalsci"
STUDIES = SRC / "studies"


def _module(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in `path`, relative ones resolved, and
    of every importlib.import_module / importlib.resources.files call with a literal name."""
    tree = ast.parse(path.read_text(), str(path))
    package = _module(path) if path.name == "__init__.py" else _module(path).rpartition(".")[0]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*up, base] if base else up)
            out += [(node.lineno, f"{base}.{a.name}" if base else a.name) for a in node.names]
        elif isinstance(node, ast.Call) and node.args:
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            arg = node.args[0]
            if name in ("import_module", "files", "__import__") and isinstance(arg, ast.Constant):
                out.append((node.lineno, str(arg.value)))
            elif name in ("import_module", "files", "__import__") and isinstance(
                arg, ast.JoinedStr
            ):
                literal = "".join(
                    v.value for v in arg.values if isinstance(v, ast.Constant)
                )  # the fixed part of an f-string, e.g. "evalsci.studies."
                out.append((node.lineno, literal))
    return out


def test_no_module_outside_studies_imports_a_study():
    bad = [
        f"{p.relative_to(SRC.parent)}:{line}: {name}"
        for p in sorted(SRC.rglob("*.py"))
        if STUDIES not in p.parents
        for line, name in _imports(p)
        if name == "evalsci.studies" or name.startswith("evalsci.studies.")
    ]
    assert not bad, "upward imports into evalsci.studies:\n" + "\n".join(bad)


def test_the_workflow_machinery_imports_no_science():
    allowed = ("evalsci", "evalsci.paths", "evalsci.runrecord")
    bad = [
        f"{p.relative_to(SRC.parent)}:{line}: {name}"
        for p in sorted((SRC / "pipeline").rglob("*.py"))
        for line, name in _imports(p)
        if name.startswith("evalsci")
        and name not in allowed
        and name != "evalsci.pipeline"
        and not name.startswith("evalsci.pipeline.")
    ]
    assert not bad, "evalsci.pipeline imports the science:\n" + "\n".join(bad)


def test_the_check_sees_every_kind_of_import(tmp_path, monkeypatch):
    """The checker itself: each form an upward arrow could take is caught."""
    pkg = tmp_path / "evalsci"
    (pkg / "studies" / "x").mkdir(parents=True)
    (pkg / "lib").mkdir()
    forms = [
        "import evalsci.studies.x",
        "from evalsci.studies import x",
        "from evalsci.studies.x import f",
        "from ..studies import x",
        "import importlib; importlib.import_module('evalsci.studies.x')",
        "from importlib import resources; resources.files(f'evalsci.studies.{s}')",
    ]
    monkeypatch.setattr(__import__(__name__), "SRC", pkg)
    for i, code in enumerate(forms):
        f = pkg / "lib" / f"m{i}.py"
        f.write_text(code + "\n")
        names = [n for _, n in _imports(f)]
        assert any(n.startswith("evalsci.studies") for n in names), (code, names)


def test_study_docstrings_name_every_module_and_only_modules_that_exist():
    """Each study's __init__ lists its modules by name (`name`); every name is a module or
    subpackage of the study and every module is named, so the list cannot go stale."""
    import re

    for init in sorted(STUDIES.glob("*/__init__.py")):
        pkg = init.parent
        doc = ast.get_docstring(ast.parse(init.read_text())) or ""
        names = {n.rstrip("/") for n in re.findall(r"`([a-z_0-9]+/?)`", doc)}
        missing = sorted(
            n for n in names if not (pkg / f"{n}.py").is_file() and not (pkg / n).is_dir()
        )
        assert not missing, f"{init}: names no module {missing}"
        modules = {p.stem for p in pkg.glob("*.py") if p.stem != "__init__"}
        modules |= {p.name for p in pkg.iterdir() if (p / "__init__.py").is_file()}
        unnamed = sorted(modules - names)
        assert not unnamed, f"{init}: does not name {unnamed}"


def test_every_study_has_the_roles_the_readme_lists():
    """docs/workflow.md, Layout: the paper studies share these module names; what differs is stated
    there (tapt: no maxrandom requests; audit: its package is evalsci.audit, no reference)."""
    roles = {
        "steps.py",
        "figures.py",
        "doc_blocks.py",
        "reference.yaml",
        "maxrandom_requests.py",
        "columns.py",
    }
    for study in ("baselines", "tapt", "assessors", "mc_icl"):
        want = roles - ({"maxrandom_requests.py"} if study == "tapt" else set())
        have = {p.name for p in (STUDIES / study).iterdir()}
        assert want <= have, f"{study} lacks {sorted(want - have)}"
        assert "tables.py" not in have, f"{study}: name the module for what it does"
    audit = {p.name for p in (SRC / "audit").iterdir()}
    assert roles - {"reference.yaml"} <= audit and "reference.yaml" not in audit
    assert not (STUDIES / "tapt" / "maxrandom_requests.py").exists()


def _schemas(path: Path) -> list[str]:
    """Top-level names `..._COLUMNS` bound to a list or tuple of column names (strings, or
    another schema unpacked) in a module."""
    out = []
    for node in ast.parse(path.read_text(), str(path)).body:
        if not isinstance(node, ast.Assign) or not isinstance(node.value, ast.List | ast.Tuple):
            continue
        names = [t.id for t in node.targets if isinstance(t, ast.Name)]
        columns = all(
            isinstance(e, ast.Starred) or (isinstance(e, ast.Constant) and isinstance(e.value, str))
            for e in node.value.elts
        )
        out += [n for n in names if n.endswith("COLUMNS") and columns]
    return out


def test_each_studys_column_schemas_are_in_its_columns_module():
    """A study's file schemas live in one module, `columns.py` (docs/workflow.md, Layout); the
    terminal's display layouts (audit/terminal.py) are lists of (header, alignment) pairs."""
    for pkg in (*sorted(p for p in STUDIES.iterdir() if p.is_dir()), SRC / "audit"):
        if not (pkg / "__init__.py").is_file():
            continue
        stray = [
            f"{p.relative_to(SRC.parent)}: {n}"
            for p in sorted(pkg.rglob("*.py"))
            if p.name != "columns.py"
            for n in _schemas(p)
        ]
        assert not stray, "column schemas outside columns.py:\n" + "\n".join(stray)
        assert _schemas(pkg / "columns.py"), pkg


def _defined_twice(path: Path) -> list[str]:
    """Top-level functions and classes of `path` defined more than once (the later one
    silently replaces the earlier for every caller, even those written above it)."""
    seen: dict[str, int] = {}
    twice = []
    for node in ast.parse(path.read_text(), str(path)).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.name in seen:
                twice.append(f"{path.name}:{node.lineno} {node.name} (first at {seen[node.name]})")
            seen.setdefault(node.name, node.lineno)
    return twice


def test_no_module_defines_a_function_twice(tmp_path):
    # ruff's F811 misses a redefinition when the first definition was used before it: two
    # `_pm` helpers in one doc_blocks module once turned the findings' signed differences
    # ("+0.022") into unsigned ones
    twice = [t for p in sorted(SRC.rglob("*.py")) for t in _defined_twice(p)]
    assert not twice, twice
    probe = tmp_path / "probe.py"
    probe.write_text("def f():\n    return 1\n\n\nX = f()\n\n\ndef f():\n    return 2\n")
    assert _defined_twice(probe) == ["probe.py:8 f (first at 1)"]


# The layers, lowest first: a module imports from its own layer and those below, never above.
# A top-level name not listed is a tool (layer 3): below the studies and the CLI.
LAYERS = {
    0: ("evalsci", "evalsci.paths", "evalsci.runrecord", "evalsci.pipeline"),
    1: (
        "evalsci.maxrandom",
        "evalsci.data",
        "evalsci.lm",
        "evalsci.stats",
        "evalsci.plots",
        "evalsci.tables",
        "evalsci.configcheck",
    ),
    2: ("evalsci.settings", "evalsci.reference"),
    4: ("evalsci.studies",),
    5: ("evalsci.cli",),
}


def _modules() -> dict[str, Path]:
    return {_module(p): p for p in sorted(SRC.rglob("*.py"))}


def _graph(modules: dict[str, Path]) -> dict[str, dict[str, int]]:
    """module -> {imported evalsci module: line}, for every import anywhere in the file
    (module level, in a function, under TYPE_CHECKING: each is a dependency a reader must
    follow); `from a.b import c` is an edge to `a.b.c` when that is a module, else to `a.b`."""

    def owner(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, dict[str, int]] = {m: {} for m in modules}
    for m, path in modules.items():
        for line, name in _imports(path):
            t = owner(name) if name.startswith("evalsci") else None
            if t and t != m:
                graph[m].setdefault(t, line)
    return graph


def _cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected components with more than one node (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def _describe(cycle: list[str], graph: dict[str, dict[str, int]]) -> str:
    inside = set(cycle)
    return "\n".join(
        f"  {a} -> {b} (line {line})"
        for a in cycle
        for b, line in sorted(graph[a].items())
        if b in inside
    )


def test_no_import_cycle_among_evalsci_modules():
    """Two modules that import each other (even lazily, inside a function) are one module
    in two files: neither can be read, tested or moved alone. Move the shared piece to the
    module that owns it."""
    graph = _graph(_modules())
    cycles = _cycles(graph)
    assert not cycles, "import cycles:\n" + "\n\n".join(_describe(c, graph) for c in cycles)


def _layer(module: str) -> int:
    best, layer = "", 3
    for n, names in LAYERS.items():
        for name in names:
            inside = module.startswith(name + ".") and name != "evalsci"  # the root: itself
            if (module == name or inside) and len(name) > len(best):
                best, layer = name, n
    return layer


def test_no_upward_import():
    """LAYERS: the workflow machinery, then the libraries, the settings, the tools (audit,
    assess, claims, ...), the studies, and the CLI on top."""
    graph = _graph(_modules())
    up = [
        f"{a} (layer {_layer(a)}) -> {b} (layer {_layer(b)}), line {line}"
        for a, targets in graph.items()
        for b, line in targets.items()
        if _layer(b) > _layer(a)
    ]
    assert not up, "upward imports:\n" + "\n".join(up)


def test_the_cycle_check_finds_a_lazy_circle_and_a_type_only_one(tmp_path, monkeypatch):
    pkg = tmp_path / "evalsci"
    (pkg / "a").mkdir(parents=True)
    for f, code in {
        "__init__.py": "",
        "a/__init__.py": "",
        "a/one.py": "from .two import X\n",
        "a/two.py": "def f():\n    from evalsci.a.one import Y\n",
        "a/three.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
        "    from evalsci.a import four\n",
        "a/four.py": "import evalsci.a.three\n",
        "a/five.py": "import evalsci.a.one\n",
    }.items():
        (pkg / f).write_text(code)
    monkeypatch.setattr(__import__(__name__), "SRC", pkg)
    graph = _graph(_modules())
    assert sorted(_cycles(graph)) == [
        ["evalsci.a.four", "evalsci.a.three"],
        ["evalsci.a.one", "evalsci.a.two"],
    ]
    assert _layer("evalsci.studies.tapt.steps") == 4 and _layer("evalsci.pipeline.jobs") == 0
    assert _layer("evalsci.audit.judge") == 3 and _layer("evalsci.configcheck") == 1
