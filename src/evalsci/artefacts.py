"""The artefact registry (artefacts.yaml): every table, figure and headline number of the four
papers, with the Snakefile target, rule, script and function that make ours, and how it is
built. The README's artefact index is generated from it:

    python -m evalsci.artefacts --readme README.md      # rewrite the index in place
    python -m evalsci.artefacts --check README.md       # exit 1 when the index is stale
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path

import yaml

BUILDS = ("default", "recompute", "full", "not_reproducible")
START, END = "<!-- artefact-index:start -->", "<!-- artefact-index:end -->"
_FIELDS = {"id", "paper", "title", "target", "outputs", "rule", "script", "function", "build",
           "why"}


@dataclass(frozen=True)
class Artefact:
    id: str
    paper: dict[str, str]
    title: str
    build: str
    target: str | None = None
    outputs: tuple[str, ...] = field(default_factory=tuple)
    rule: str | None = None
    script: str | None = None
    function: str | None = None
    why: str | None = None

    @property
    def study(self) -> str:
        return self.id.split(".", 1)[0]

    def paper_numbers(self) -> str:
        """'Table 3 (000) = Table 2 (001)', or one number when the versions agree."""
        nums = list(self.paper.items())
        if len({n for _, n in nums}) == 1:
            return f"{nums[0][1]} ({', '.join(v for v, _ in nums)})"
        return " = ".join(f"{n} ({v})" for v, n in nums)


def _check(entry: dict, i: int) -> Artefact:
    where = f"artefacts.yaml entry {i} ({entry.get('id', '?')})"
    unknown = set(entry) - _FIELDS
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {sorted(unknown)}")
    for key in ("id", "paper", "title", "build"):
        if not entry.get(key):
            raise ValueError(f"{where}: key '{key}' is missing")
    if entry["build"] not in BUILDS:
        raise ValueError(f"{where}: build must be one of {BUILDS}, got {entry['build']!r}")
    if entry["build"] == "not_reproducible":
        if not entry.get("why") or entry.get("target"):
            raise ValueError(f"{where}: a not_reproducible entry has a 'why' and no target")
    else:
        missing = [k for k in ("target", "rule", "script", "function") if not entry.get(k)]
        if missing:
            raise ValueError(f"{where}: key(s) {missing} missing")
    paper = {str(k): str(v) for k, v in entry["paper"].items()}
    return Artefact(**{**entry, "paper": paper, "outputs": tuple(entry.get("outputs") or ())})


@cache
def registry() -> tuple[dict[str, str], tuple[Artefact, ...]]:
    """(studies: {study: paper}, artefacts), checked."""
    text = resources.files("evalsci").joinpath("artefacts.yaml").read_text()
    data = yaml.safe_load(text)
    arts = tuple(_check(e, i) for i, e in enumerate(data["artefacts"], start=1))
    ids = [a.id for a in arts]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise ValueError(f"artefacts.yaml: repeated id(s) {dup}")
    bad = [a.id for a in arts if a.study not in data["studies"]]
    if bad:
        raise ValueError(f"artefacts.yaml: id(s) {bad} name no study of {list(data['studies'])}")
    return data["studies"], arts


def get(artefact_id: str) -> Artefact:
    found = [a for a in registry()[1] if a.id == artefact_id]
    if not found:
        raise KeyError(f"no artefact {artefact_id!r} in artefacts.yaml")
    return found[0]


def figure_title(artefact_id: str, paper: str) -> str:
    """'Figure 3: <title>', the title a figure prints, from the registry."""
    a = get(artefact_id)
    return f"{a.paper[paper]}: {a.title}"


def artefacts(build: str | None = None) -> list[Artefact]:
    return [a for a in registry()[1] if build is None or a.build == build]


def _function(a: Artefact) -> str:
    """The function's name as the index prints it (under evalsci.studies.<study> if it is
    there, else under evalsci)."""
    return a.function.removeprefix(f"evalsci.studies.{a.study}.").removeprefix("evalsci.")


def index_markdown() -> str:
    """The README's artefact index: one table per study, then what is not reproduced."""
    studies, arts = registry()
    out = ["**build**: default = `snakemake --cores all` builds it from the released data; "
           "recompute = needs our own inference (`--config recompute=true`); reduced: smaller "
           "than the paper at default scale or on stand-in data (the registry says how). Scripts are in "
           "`workflow/scripts/`, functions in `evalsci.studies.<study>` (else `evalsci`). "
           "Registry: `src/evalsci/artefacts.yaml`.", ""]
    for study, paper in studies.items():
        out += [f"**{study}**: {paper}", "",
                "| paper | what | target | rule, script, function | build |",
                "| --- | --- | --- | --- | --- |"]
        mine = [a for a in arts if a.study == study]
        for a in mine:
            if a.build == "not_reproducible":
                continue
            where = f"`{a.rule}`, `{Path(a.script).name}`, `{_function(a)}`"
            build = a.build + (" (reduced)" if a.why and a.build == "default" else "")
            out.append(f"| {a.paper_numbers()} | {a.title} | `{a.target}` | {where} | {build} |")
        gone = [f"{a.paper_numbers()} ({a.title}): {a.why}" for a in mine
                if a.build == "not_reproducible"]
        if gone:
            out += ["", "Not reproduced: " + "; ".join(gone) + "."]
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def replace_block(text: str, block: str, start: str = START, end: str = END) -> str:
    """`text` with everything between the `start` and `end` markers replaced by `block`."""
    pat = re.compile(re.escape(start) + r".*?" + re.escape(end), re.S)
    if not pat.search(text):
        raise ValueError(f"markers {start} ... {end} not found")
    return pat.sub(lambda _: f"{start}\n{block}{end}", text, count=1)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--readme", type=Path, help="rewrite the artefact index of this README")
    g.add_argument("--check", type=Path, help="exit 1 when this README's index is stale")
    args = ap.parse_args(argv)
    path = args.readme or args.check
    text = path.read_text()
    new = replace_block(text, index_markdown())
    if args.check:
        if new != text:
            print(f"{path}: the artefact index is stale; run python -m evalsci.artefacts "
                  f"--readme {path}", file=sys.stderr)
            return 1
        return 0
    path.write_text(new)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
