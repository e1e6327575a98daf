"""Generated "ours vs the paper" tables in docs/ (showyourwork's rule: no number typed by hand).

Each block is a function from result files (and the studies' reference.yaml) to Markdown. The
functions live in their studies (`evalsci.studies.<study>.doc_blocks`); the registry
`evalsci/doc_blocks.yaml` names each block, its doc, its input files and its function, the
way `artefacts.yaml` names the artefacts. In its doc, a block sits between two markers:

    <!-- generated:baselines_table1:start -->
    ...  (written by rule docs_tables; do not edit)
    <!-- generated:baselines_table1:end -->

Rule `docs_tables` renders every block from the workflow's results and writes it into its doc;
tests fail when a doc's block differs from what the results give. To add a block, write a
function `fn(paths: {input: Path}) -> str` in your study's `doc_blocks.py`, add an entry to
doc_blocks.yaml, and put the two markers in the doc.

This module imports no study: it imports a block's function by its registered name only when
the block is rendered.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache, partial
from importlib import resources
from pathlib import Path

import yaml

_FIELDS = {"name", "doc", "inputs", "render", "args", "recompute"}


@dataclass(frozen=True)
class Block:
    name: str
    doc: str
    inputs: tuple[str, ...]
    #: "module.function" (the registry's `render`), or the function itself (tests)
    function: str | Callable[..., str]
    args: Mapping = field(default_factory=dict)
    #: made only by our own inference (the study's recompute path), not from released data
    recompute: bool = False

    def markers(self) -> tuple[str, str]:
        return (f"<!-- generated:{self.name}:start -->", f"<!-- generated:{self.name}:end -->")

    def renderer(self) -> Callable[[dict[str, Path]], str]:
        """The block's function, imported by its registered name, with its `args` bound."""
        fn = self.function
        if isinstance(fn, str):
            module, _, name = fn.rpartition(".")
            try:
                fn = getattr(importlib.import_module(module), name)
            except (ImportError, AttributeError) as e:
                raise ValueError(
                    f"doc_blocks.yaml: block {self.name!r}: cannot import {self.function!r} ({e})"
                ) from e
        return partial(fn, **self.args) if self.args else fn


@cache
def _registry() -> tuple[Block, ...]:
    data = yaml.safe_load(resources.files("evalsci").joinpath("doc_blocks.yaml").read_text())
    out = []
    for i, e in enumerate(data["blocks"], start=1):
        where = f"doc_blocks.yaml entry {i} ({e.get('name', '?')})"
        unknown = set(e) - _FIELDS
        if unknown:
            raise ValueError(f"{where}: unknown key(s) {sorted(unknown)}")
        missing = [k for k in ("name", "doc", "inputs", "render") if not e.get(k)]
        if missing:
            raise ValueError(f"{where}: key(s) {missing} missing")
        out.append(
            Block(
                e["name"],
                e["doc"],
                tuple(e["inputs"]),
                e["render"],
                e.get("args") or {},
                bool(e.get("recompute", False)),
            )
        )
    names = [b.name for b in out]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ValueError(f"doc_blocks.yaml: repeated block name(s) {dup}")
    return tuple(out)


def blocks() -> dict[str, Block]:
    """Every registered block by name (nothing is imported until a block is rendered)."""
    return {b.name: b for b in _registry()}


def render(b: Block, root: str | Path = ".") -> str:
    """The block's Markdown from the result files under `root` (a workflow's workdir)."""
    paths = {i: Path(root) / i for i in b.inputs}
    missing = [str(p) for p in paths.values() if not p.is_file()]
    if missing:
        raise FileNotFoundError(f"doc block {b.name}: missing result file(s) {missing}")
    text = b.renderer()(paths)
    return text if text.endswith("\n") else text + "\n"


def current(b: Block, doc_root: str | Path = ".") -> str:
    """The block as it stands in its doc (between its markers)."""
    path = Path(doc_root) / b.doc
    start, end = b.markers()
    m = re.search(re.escape(start) + r"\n(.*?)" + re.escape(end), path.read_text(), re.S)
    if not m:
        raise ValueError(f"{path}: markers of doc block {b.name!r} not found ({start})")
    return m.group(1)


def write(b: Block, content: str, doc_root: str | Path = ".") -> bool:
    """Put `content` between the block's markers in its doc; True when the doc changed."""
    path = Path(doc_root) / b.doc
    start, end = b.markers()
    text = path.read_text()
    current(b, doc_root)  # markers present, else a clear error
    new = re.sub(
        re.escape(start) + r"\n.*?" + re.escape(end),
        lambda _: f"{start}\n{content}{end}",
        text,
        count=1,
        flags=re.S,
    )
    if new != text:
        path.write_text(new)
    return new != text


def buildable(studies, collections, recomputing=()) -> list[str]:
    """Names of the blocks whose result files this configuration makes: every input under
    `results/<study>/` of an enabled study, and, for assessors, of an enabled collection;
    a `recompute` block only when its study is in `recomputing`."""

    def ok(path: str) -> bool:
        parts = path.split("/")
        if parts[0] != "results" or parts[1] not in studies:
            return False
        return (
            parts[1] != "assessors"
            or parts[2] in ("tables", "maxrandom")
            or parts[2] in collections
        )

    def wanted(b: Block) -> bool:
        return not b.recompute or all(i.split("/")[1] in recomputing for i in b.inputs)

    return sorted(n for n, b in blocks().items() if all(ok(i) for i in b.inputs) and wanted(b))


def write_all(
    results_root: str | Path, doc_root: str | Path, out: str | Path, names=None
) -> list[str]:
    """Render the blocks `names` (default: all) from `results_root`, write each into its doc
    under `doc_root`, and all of them to `out` (the rule's output). Returns the names of the
    blocks whose doc changed."""
    from evalsci.workflow import atomic_path

    every = blocks()
    changed, parts = [], []
    for name in sorted(every if names is None else names):
        b = every[name]
        content = render(b, results_root)
        parts.append(f"## {name} ({b.doc})\n\n{content}")
        if write(b, content, doc_root):
            changed.append(name)
    with atomic_path(out) as tmp:
        tmp.write_text("\n".join(parts))
    print("changed:", changed or "none")
    return changed
