"""Generated "ours vs the paper" tables in docs/ (showyourwork's rule: no number typed by hand).

Each block is a function from result files (and the studies' reference.yaml) to Markdown. The
functions live in their studies (`evalsci.studies.<study>.doc_blocks`); the registry
`evalsci/pipeline/doc_blocks.yaml` names each block, its doc, its inputs and its function, the
way `artefacts.yaml` names the artefacts. An input names a file of an artefact,
`<artefact id>/<file name>` (`baselines.table1/table1.csv`): the artefact registry owns the
file's path, and a name it does not list is an error when the registry is read. (A checked-in
file, a fixture under tests/, is named by its path in the repository.) In its doc, a block sits
between two markers:

    <!-- generated:baselines_table1:start -->
    ...  (written by rule docs_tables; do not edit)
    <!-- generated:baselines_table1:end -->

Rule `docs_tables` renders every block from the workflow's results and writes it into its doc;
tests fail when a doc's block differs from what the results give. To add a block, write a
function `fn(paths: {input: Path}) -> str` in your study's `doc_blocks.py`, add an entry to
doc_blocks.yaml, and put the two markers in the doc.

A block with a `record` (a run record, evalsci.runrecord, under the same results root) comes
from one recorded run, not from the workflow's own results: the tapt paper-scale blocks, made
by `scripts/tapt_paper_scale.sh`. Rule docs_tables never renders it (its results are the
default scale's); `python -m evalsci.pipeline.doctables --root RUN_DIR NAME...` does, and prints the
record (commit, command, date, CPU, times, and whether the package files the block rests on,
`rests_on`, changed since the run) above the table. With `scale`, the record must be a run at
that scale.

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

from evalsci.pipeline import artefacts

_FIELDS = {"name", "doc", "inputs", "render", "args", "recompute", "record", "scale", "rests_on"}


@dataclass(frozen=True)
class Block:
    name: str
    doc: str
    #: {name: file}: the files it reads (paths under the results root), by the names its function
    #: looks them up by; its run record, if any, is passed too, as `record`
    inputs: Mapping[str, str]
    #: "module.function" (the registry's `render`), or the function itself (tests)
    function: str | Callable[..., str]
    args: Mapping = field(default_factory=dict)
    #: made only by our own inference (the study's recompute path), not from released data
    recompute: bool = False
    #: the run record (evalsci.runrecord) of the one run the block is rendered from, a path
    #: under the results root; None: the workflow's own results (rule docs_tables)
    record: str | None = None
    #: the scale the recorded run must have been run at
    scale: str | None = None
    #: with a record: the package paths (inside evalsci/) the block's numbers rest on, whose
    #: files the record's hashes are checked against; default: the render function's package
    rests_on: tuple[str, ...] = ()

    @property
    def files(self) -> tuple[str, ...]:
        """The files of its inputs."""
        return tuple(self.inputs.values())

    @property
    def reads(self) -> tuple[str, ...]:
        """Every file the block is rendered from: its inputs and its run record."""
        return self.files + ((self.record,) if self.record else ())

    def code(self) -> tuple[str, ...]:
        """The package paths the block rests on: `rests_on`, else its function's package
        (evalsci.studies.tapt.doc_blocks.x -> studies/tapt)."""
        if self.rests_on or not isinstance(self.function, str):
            return tuple(self.rests_on)
        parts = self.function.split(".")[1:-2]  # without evalsci, the module and the function
        return ("/".join(parts),) if parts else ()

    def markers(self) -> tuple[str, str]:
        return (f"<!-- generated:{self.name}:start -->", f"<!-- generated:{self.name}:end -->")

    def renderer(self) -> Callable[[Mapping[str, Path]], str]:
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
    data = yaml.safe_load(
        resources.files("evalsci.pipeline").joinpath("doc_blocks.yaml").read_text()
    )
    return _parse(data)


def _file(ref: str, where: str) -> str:
    """The path of an input: `<artefact id>/<file name>`, a file the artefact registry lists
    for that artefact (by its name, or its path's last parts where the name is not unique),
    or a checked-in file under tests/ (its path in the repository)."""
    if ref.startswith("tests/"):
        return ref
    artefact_id, _, name = ref.partition("/")
    owners = [a.id for a in artefacts.artefacts() if ref in a.outputs]
    if owners or not name:
        hint = f" (the registry lists it as {owners[0]}/{Path(ref).name})" if owners else ""
        raise ValueError(
            f"{where}: input {ref!r} is not <artefact id>/<file name>: the artefact registry "
            f"(pipeline/artefacts.yaml) owns result paths{hint}"
        )
    try:
        files = artefacts.get(artefact_id).outputs
    except KeyError as e:
        raise ValueError(f"{where}: input {ref!r}: {e.args[0]}") from None
    # the file's name, or as many of its path's last parts as tell it from the artefact's other
    # files (assessors' per-collection files: <collection>/tables/<name>)
    found = [f for f in files if f.endswith("/" + name)]
    if len(found) != 1:
        raise ValueError(
            f"{where}: input {ref!r}: artefact {artefact_id} lists "
            f"{'no' if not found else len(found)} file(s) ending in {name!r} (its files: "
            f"{list(files)}; name one by its last path parts)"
        )
    return found[0]


def _parse(data) -> tuple[Block, ...]:
    """The blocks of the registry's parsed YAML, checked, their inputs resolved to paths."""
    out = []
    for i, e in enumerate(data["blocks"], start=1):
        where = f"doc_blocks.yaml entry {i} ({e.get('name', '?')})"
        unknown = set(e) - _FIELDS
        if unknown:
            raise ValueError(f"{where}: unknown key(s) {sorted(unknown)}")
        missing = [k for k in ("name", "doc", "render") if not e.get(k)]
        if not e.get("inputs") and not e.get("record"):
            missing.append("inputs")
        if missing:
            raise ValueError(f"{where}: key(s) {missing} missing")
        inputs = e.get("inputs") or {}
        if not isinstance(inputs, dict):
            raise ValueError(f"{where}: 'inputs' is a mapping {{name: file}}")
        if "record" in inputs:
            raise ValueError(f"{where}: input name 'record' is the block's run record's")
        for key in ("scale", "rests_on"):
            if e.get(key) and not e.get("record"):
                raise ValueError(f"{where}: '{key}' is about a run record: give 'record'")
        out.append(
            Block(
                e["name"],
                e["doc"],
                {n: _file(ref, where) for n, ref in inputs.items()},
                e["render"],
                e.get("args") or {},
                bool(e.get("recompute", False)),
                e.get("record"),
                e.get("scale"),
                tuple(e.get("rests_on") or ()),
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


def render(b: Block, root: str | Path = ".", record: str | Path | None = None) -> str:
    """The block's Markdown from the result files under `root` (a workflow's workdir). A block
    with a run record starts with the record's summary; `record` replaces the record's path
    under `root` (a record kept outside a read-only run directory)."""
    rec_path = None
    if b.record:
        rec_path = Path(record) if record else Path(root) / b.record
    # the function looks its files up by name; the run record as `record`
    paths = {n: Path(root) / f for n, f in b.inputs.items()}
    if rec_path:
        paths["record"] = rec_path
    missing = [str(p) for p in paths.values() if not p.is_file()]
    if missing:
        raise FileNotFoundError(f"doc block {b.name}: missing result file(s) {missing}")
    head = ""
    if b.record:
        from evalsci import runrecord

        rec = runrecord.load(rec_path)
        if rec["rc"] != 0:
            raise ValueError(
                f"doc block {b.name}: the run in {rec_path} failed (exit status {rec['rc']})"
            )
        if b.scale and rec.get("scale") != b.scale:
            raise ValueError(
                f"doc block {b.name}: the run in {rec_path} is at scale "
                f"{rec.get('scale')!r}, not {b.scale!r}"
            )
        head = runrecord.summary(rec, rests_on=b.code()) + "\n\n"
    text = head + b.renderer()(paths)
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
            or len(parts) == 3  # a file of the study itself (claims.csv), not of a collection
            or parts[2] in ("tables", "maxrandom")
            or parts[2] in collections
        )

    def wanted(b: Block) -> bool:
        # a recorded run's block is never the workflow's own (its results are another scale)
        if b.record:
            return False
        return not b.recompute or all(i.split("/")[1] in recomputing for i in b.files)

    return sorted(n for n, b in blocks().items() if all(ok(i) for i in b.files) and wanted(b))


def write_docs(tables: str | Path, docs_root: str | Path, blocks: list[str]) -> list[str]:
    """Rule `docs_tables`: render `blocks` from the results under the working directory, write
    each into its doc under `docs_root`, and all of them to `tables`."""
    return write_all(".", docs_root, tables, names=blocks)


def write_all(
    results_root: str | Path,
    doc_root: str | Path,
    out: str | Path | None,
    names=None,
    record: str | Path | None = None,
) -> list[str]:
    """Render the blocks `names` (default: all) from `results_root`, write each into its doc
    under `doc_root`, and all of them to `out` (the rule's output, if any). Every block is
    rendered before any doc is written. Returns the names of the blocks whose doc changed."""
    every = blocks()
    rendered = {
        n: render(every[n], results_root, record) for n in sorted(every if names is None else names)
    }
    changed = [n for n, content in rendered.items() if write(every[n], content, doc_root)]
    if out is not None:
        from evalsci.pipeline.jobs import atomic_path

        with atomic_path(out) as tmp:
            tmp.write_text(
                "\n".join(f"## {n} ({every[n].doc})\n\n{c}" for n, c in rendered.items())
            )
    print("changed:", changed or "none")
    return changed


def main(argv=None) -> int:
    """Render blocks of a recorded run (the tapt paper-scale run) into the docs."""
    import argparse
    from fnmatch import fnmatch

    p = argparse.ArgumentParser(
        prog="python -m evalsci.pipeline.doctables",
        description="Render doc blocks from the results under --root into the docs (those "
        "with a run record come from one recorded run: rule docs_tables never renders them).",
    )
    p.add_argument("names", nargs="+", help="block names or patterns (tapt_paper_*)")
    p.add_argument("--root", required=True, help="the run's directory (holding results/)")
    p.add_argument("--record", help="the run record, if not under --root (a read-only run)")
    p.add_argument("--doc-root", default=".", help="the checkout whose docs are written")
    a = p.parse_args(argv)
    every = blocks()
    names = sorted({n for n in every for pat in a.names if fnmatch(n, pat)})
    unknown = [pat for pat in a.names if not any(fnmatch(n, pat) for n in every)]
    if unknown:
        p.error(f"no doc block matches {unknown}; blocks: {sorted(every)}")
    try:
        write_all(a.root, a.doc_root, None, names, a.record)
    except (OSError, ValueError) as e:
        p.exit(2, f"{p.prog}: error: {e}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
