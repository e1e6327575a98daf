"""Each path of the workflow has one owner (issue 33): `evalsci.paths` owns the shapes
(`results/<study>/...`, `logs/<study>/...`), a study's plan builds its paths from them, the
artefact registry (pipeline/artefacts.yaml) owns the artefacts' files, which the doc-block
registry (pipeline/doc_blocks.yaml) names by artefact (tests/test_doctables.py); the rule
files, the studies' modules and the doc blocks' functions take them from there. So no Python module of the
package, no adapter script and no rule file spells a string that starts with `results/` or
`logs/`: a second spelling is a path that can drift from its owner."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "evalsci"
OURS = re.compile(r"(results|logs)/")
OWNERS = {"src/evalsci/paths.py"}
# Not the workflow's files: paths inside the authors' released repositories (their own
# `results/` directory), which a bundle mirrors.
RELEASED_LAYOUT = {"src/evalsci/data/released.py", "src/evalsci/studies/baselines/load.py"}


def _python_strings(path: Path):
    """(line, text) of every string literal of a Python file but its docstrings; of an
    f-string, its leading literal part."""
    tree = ast.parse(path.read_text(), str(path))
    skip = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
        ):
            skip.add(id(body[0].value))  # a docstring: prose, not a path
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):  # walked before its parts
            skip.update(id(v) for v in node.values)
            first = node.values[0] if node.values else None
            if isinstance(first, ast.Constant):
                yield node.lineno, first.value
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) not in skip:
                yield node.lineno, node.value


def _rule_strings(path: Path):
    """(line, text) of every string literal of a rule file (Snakemake's syntax tokenizes as
    Python's); comments are not strings."""
    for t in tokenize.generate_tokens(io.StringIO(path.read_text()).readline):
        if t.type == tokenize.STRING:
            yield t.start[0], re.sub(r"^[rRbBfFuU]*(\"\"\"|'''|\"|')", "", t.string)


def _spelled(root: Path) -> list[str]:
    files = [
        *sorted((root / "src" / "evalsci").rglob("*.py")),
        *sorted((root / "workflow" / "scripts").glob("*.py")),
        *sorted((root / "workflow" / "rules").glob("*.smk")),
        root / "Snakefile",
    ]
    out = []
    for path in files:
        if not path.is_file():
            continue
        rel = path.relative_to(root).as_posix()
        if rel in OWNERS | RELEASED_LAYOUT:
            continue
        strings = _python_strings(path) if path.suffix == ".py" else _rule_strings(path)
        out += [f"{rel}:{line}: {text!r}" for line, text in strings if OURS.match(text)]
    return out


def test_no_path_of_the_workflow_is_spelled_outside_its_owner():
    bad = _spelled(ROOT)
    assert not bad, (
        "paths spelled outside their owner (use evalsci.paths, the study's plan or a "
        "registry):\n" + "\n".join(bad)
    )


def test_the_check_sees_each_way_of_spelling_a_path(tmp_path):
    """The checker itself: a plain string, an f-string and a rule file's string are caught;
    a docstring, a comment and a path that only contains `results/` are not."""
    (tmp_path / "src" / "evalsci" / "studies" / "x").mkdir(parents=True)
    (tmp_path / "workflow" / "rules").mkdir(parents=True)
    (tmp_path / "src" / "evalsci" / "studies" / "x" / "plan.py").write_text(
        '"""Writes results/x/a.csv."""\n'
        'A = "results/x/a.csv"\n'
        'B = f"logs/{S}/b.log"\n'
        'C = f"{ROOT}/results/x"\n'
        "# results/x/c.csv\n"
    )
    (tmp_path / "workflow" / "rules" / "x.smk").write_text(
        '# results/x/d.csv\nrule x:\n    output:\n        "results/x/d.csv",\n'
    )
    (tmp_path / "Snakefile").write_text("")
    bad = _spelled(tmp_path)
    assert [b.rsplit(": ", 1)[0] for b in bad] == [
        "src/evalsci/studies/x/plan.py:2",
        "src/evalsci/studies/x/plan.py:3",
        "workflow/rules/x.smk:4",
    ], bad


def test_select_picks_an_artefacts_files_by_stem_and_suffix():
    """Plans take an artefact's files from the registry and pick its tables, its figures or
    one stem's files (tapt Figure 5: its table and its figure; assessors LOMO: two tables)."""
    from evalsci import paths

    files = (
        "results/t/tables/a.csv",
        "results/t/tables/a.md",
        "results/t/tables/a_tests.csv",
        "results/t/figures/a.pdf",
        "results/t/figures/a.png",
    )
    assert paths.select(files, stem="a") == (files[0], files[1], files[3], files[4])
    assert paths.select(files, suffixes=paths.FIGURE_SUFFIXES) == files[3:]
    assert paths.select(files, stem="a", suffixes=paths.TABLE_SUFFIXES) == files[:2]
    assert paths.select(files, stem="a_tests") == (files[2],)
    with pytest.raises(ValueError, match="no file with stem 'b'"):
        paths.select(files, stem="b")
