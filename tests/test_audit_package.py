"""The audit package's shape: one package, no import cycle, no study imported.

Imports are read from the source (every `import` statement, function-level ones included),
so a cycle held apart by an import inside a function fails here too.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import evalsci

PKG = Path(evalsci.__file__).parent
AUDIT = PKG / "audit"


def _module(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    """Absolute names of every module `path` imports (relative imports resolved)."""
    mod = _module(path)
    package = mod if path.name == "__init__.py" else mod.rsplit(".", 1)[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            out.add(base)
            out |= {f"{base}.{a.name}" for a in node.names}  # `from . import x` names a module
    return out


def _graph() -> dict[str, set[str]]:
    files = {_module(p): p for p in AUDIT.rglob("*.py")}
    return {m: {i for i in _imports(p) if i in files and i != m} for m, p in files.items()}


def test_one_audit_package():
    assert not (PKG / "studies" / "audit").exists(), "the audit study lives in evalsci.audit"
    assert (AUDIT / "readers" / "__init__.py").is_file()


def test_audit_imports_no_study():
    for path in AUDIT.rglob("*.py"):
        studies = sorted(i for i in _imports(path) if i.startswith("evalsci.studies"))
        assert not studies, f"{path.relative_to(PKG)} imports {studies}"


def test_no_import_cycle_in_audit():
    graph = _graph()
    # a package's __init__ importing its own submodules is how Python packages work; the
    # cycle to rule out is a submodule importing back a module that imports it
    state: dict[str, int] = {}

    def visit(m: str, stack: list[str]) -> None:
        state[m] = 1
        for d in sorted(graph[m]):
            if m.startswith(d + ".") and d in graph:  # submodule -> its own package __init__
                continue
            if state.get(d) == 1:
                raise AssertionError("import cycle: " + " -> ".join([*stack, m, d]))
            if d not in state:
                visit(d, [*stack, m])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [])


def test_cycle_check_can_fail(tmp_path, monkeypatch):
    """The checker sees a function-level import that closes a cycle."""
    pkg = tmp_path / "evalsci" / "audit"
    pkg.mkdir(parents=True)
    (tmp_path / "evalsci" / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from .b import f\n")
    (pkg / "b.py").write_text("def f():\n    from . import a\n")
    monkeypatch.setattr(sys.modules[__name__], "PKG", tmp_path / "evalsci")
    monkeypatch.setattr(sys.modules[__name__], "AUDIT", pkg)
    try:
        test_no_import_cycle_in_audit()
    except AssertionError as e:
        assert "import cycle" in str(e)
    else:
        raise AssertionError("a cycle through a function-level import went unseen")
