"""The artefact registry (artefacts.yaml): every table, figure and headline number of the four
papers, with the Snakefile target, rule and function that make ours, and how it is built
(every rule runs its function through the one adapter, workflow/scripts/call.py). The artefact
index, docs/artefacts.md, is generated from it:

    python -m evalsci.pipeline.artefacts --write docs/artefacts.md   # rewrite the index in place
    python -m evalsci.pipeline.artefacts --check docs/artefacts.md   # exit 1 when it is stale

and so are the titles of the report captions (workflow/report/*.rst, first line):

    python -m evalsci.pipeline.artefacts --captions
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

from evalsci import paths

BUILDS = ("default", "recompute", "full", "not_reproducible")
#: the one adapter through which every rule runs the function it names
ADAPTER = "workflow/scripts/call.py"
#: the checkout this module sits in (src/evalsci/pipeline/../..); the index links its workflow files
_REPO = Path(__file__).resolve().parents[3]
START, END = "<!-- artefact-index:start -->", "<!-- artefact-index:end -->"
_FIELDS = {
    "id",
    "paper",
    "title",
    "target",
    "outputs",
    "rule",
    "caption",
    "function",
    "build",
    "why",
}


@dataclass(frozen=True)
class Artefact:
    id: str
    paper: dict[str, str]
    title: str
    build: str
    target: str | None = None
    outputs: tuple[str, ...] = field(default_factory=tuple)
    rule: str | None = None
    caption: str | None = None
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
        missing = [k for k in ("target", "rule", "function") if not entry.get(k)]
        if missing:
            raise ValueError(f"{where}: key(s) {missing} missing")
    paper = {str(k): str(v) for k, v in entry["paper"].items()}
    return Artefact(**{**entry, "paper": paper, "outputs": tuple(entry.get("outputs") or ())})


@cache
def registry() -> tuple[dict[str, str], tuple[Artefact, ...]]:
    """(studies: {study: paper}, artefacts), checked."""
    text = resources.files("evalsci.pipeline").joinpath("artefacts.yaml").read_text()
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


def outputs(study: str) -> dict[str, tuple[str, ...]]:
    """{name: its files} of the study's entries that list outputs (entry `<study>.<name>`):
    the registry owns these paths, and the study's plan reads them here."""
    return {
        a.id.removeprefix(f"{study}."): a.outputs
        for a in artefacts()
        if a.study == study and a.outputs
    }


def _function(a: Artefact) -> str:
    """The function's name as the index prints it (under evalsci.studies.<study> if it is
    there, else under evalsci)."""
    return a.function.removeprefix(f"evalsci.studies.{a.study}.").removeprefix("evalsci.")


def _numbered(names: list[str]) -> str:
    """`x1`, `x2`, `x3` -> `x{1-3}` (names that differ only in a trailing number), else the
    distinct names in order."""
    names = list(dict.fromkeys(names))
    m = [re.fullmatch(r"(.*?)(\d+)", n) for n in names]
    if len(names) > 1 and all(m) and len({x.group(1) for x in m}) == 1:
        nums = [int(x.group(2)) for x in m]
        if nums == list(range(nums[0], nums[0] + len(nums))):
            return f"`{m[0].group(1)}{{{nums[0]}-{nums[-1]}}}`"
    return ", ".join(f"`{n}`" for n in names)


def _papers(group: list[Artefact]) -> str:
    """The group's paper numbers: 'Figures 1-7 (000, 001)', 'Figures 8-11 (000) = 10-13
    (001)', or the entries' numbers one after the other."""
    if len(group) == 1:
        return group[0].paper_numbers()
    versions = list(group[0].paper)
    nums = {v: [re.fullmatch(r"Figure (\d+)", a.paper.get(v, "")) for a in group] for v in versions}
    if all(list(a.paper) == versions for a in group) and all(all(ms) for ms in nums.values()):
        spans = {
            v: _numbered([f"n{m.group(1)}" for m in ms]).strip("`n{}") for v, ms in nums.items()
        }
        if len(set(spans.values())) == 1:
            return f"Figures {spans[versions[0]]} ({', '.join(versions)})"
        return "Figures " + " = ".join(f"{s} ({v})" for v, s in spans.items())
    return "; ".join(dict.fromkeys(a.paper_numbers() for a in group))


def _groups(arts: list[Artefact]) -> list[list[Artefact]]:
    """Consecutive entries made the same way (function, build, and for figures whether
    both paper versions number them alike) share one row of the index."""

    def key(a):
        return (a.function, a.build, a.why is not None, len(set(a.paper.values())))

    out: list[list[Artefact]] = []
    for a in arts:
        if out and key(out[-1][-1]) == key(a):
            out[-1].append(a)
        else:
            out.append([a])
    return out


def _rule_files(root: Path) -> dict[str, str]:
    """{rule name: the workflow/rules/*.smk file that defines it, relative to `root`}."""
    out = {}
    for smk in sorted((root / "workflow" / "rules").glob("*.smk")):
        rel = smk.relative_to(root).as_posix()
        for name in re.findall(r"^rule (\w+):", smk.read_text(), re.M):
            out[name] = rel
    return out


def _rules(group: list[Artefact], files: dict[str, str], base: str = "") -> str:
    """The group's rule(s), linked to the .smk file that defines them."""
    rule = group[0].rule
    if rule not in files:
        raise ValueError(f"artefacts.yaml: no rule {rule} in workflow/rules/*.smk")
    return f"[{_numbered([a.rule for a in group])}]({base}{files[rule]})"


def _function_link(a: Artefact, root: Path, base: str = "") -> str:
    """The function's short name, linked to the file that defines it."""
    module = a.function.rpartition(".")[0]
    rel = Path("src", *module.split("."))
    path = (
        rel.with_suffix(".py") if (root / rel.with_suffix(".py")).is_file() else rel / "__init__.py"
    )
    if not (root / path).is_file():
        raise ValueError(f"artefacts.yaml: {a.id}: no source file for {a.function}")
    return f"[`{_function(a)}`]({base}{path.as_posix()})"


def _outputs(group: list[Artefact]) -> str:
    """The group's output files below results/<study>/, one per stem with its extensions
    (`tables/table1.{csv,md,tex}`), numbered stems folded (`figures/figure{1-7}.{pdf,png}`)."""
    study = group[0].study
    stems: dict[str, list[str]] = {}
    for a in group:
        for f in a.outputs:
            f = f.removeprefix(paths.result(study, ""))
            stem, dot, ext = f.rpartition(".")
            stems.setdefault(stem if dot else f, []).extend([ext] if dot else [])
    if not stems:
        return "set by config"
    # stems that differ only in a trailing number and share their extensions fold into one
    folded: list[tuple[str, list[str]]] = []
    for stem, exts in stems.items():
        m = re.fullmatch(r"(.*?)(\d+)", stem)
        last = folded[-1] if folded else None
        if m and last and last[1] == exts:
            lm = re.fullmatch(r"(.*?)\{?(\d+)(?:-(\d+))?\}?", last[0])
            if (
                lm
                and lm.group(1) == m.group(1)
                and int(lm.group(3) or lm.group(2)) + 1 == int(m.group(2))
            ):
                folded[-1] = (f"{m.group(1)}{{{lm.group(2)}-{m.group(2)}}}", exts)
                continue
        folded.append((stem, exts))

    def one(stem: str, exts: list[str]) -> str:
        exts = list(dict.fromkeys(exts))
        if not exts:
            return f"`{stem}`"
        return f"`{stem}.{exts[0]}`" if len(exts) == 1 else f"`{stem}.{{{','.join(exts)}}}`"

    return ", ".join(one(*x) for x in folded)


def index_markdown(root: Path = _REPO, base: str = "") -> str:
    """The artefact index: one row per artefact (similar figures share one), then what is
    not reproduced. Titles and reasons are in the registry. `base`: the repository root as
    seen from the page that holds the index ("../" for docs/artefacts.md), for its links."""
    studies, arts = registry()
    files = _rule_files(root)
    out = [
        "Each row links the rule's file and the function's file (every rule runs its "
        f"function through the one adapter, `{ADAPTER}`); outputs are under "
        "`results/<study>/`; titles and reasons in "
        f"[`artefacts.yaml`]({base}src/evalsci/pipeline/artefacts.yaml). **build**: default = "
        "`snakemake --cores all`; recompute = our own inference (`--config recompute=true`); "
        "reduced = smaller than the paper, or stand-in data.",
        "",
        "| study | paper | target | outputs | rule | function | build |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    gone = []
    for study in studies:
        mine = [a for a in arts if a.study == study]
        # with its title: a paper number can be part reproduced (baselines Section 5.3:
        # Mizrahi et al.'s results are, Sclar et al.'s are not)
        gone += [
            f"{study} {a.paper_numbers()}: {a.title}" for a in mine if a.build == "not_reproducible"
        ]
        for g in _groups([a for a in mine if a.build != "not_reproducible"]):
            a = g[0]
            build = a.build + (" (reduced)" if a.why and a.build == "default" else "")
            out.append(
                f"| {study} | {_papers(g)} | {_numbered([x.target for x in g])} | "
                f"{_outputs(g)} | {_rules(g, files, base)} | "
                f"{_function_link(a, root, base)} | {build} |"
            )
    out += ["", "Not reproduced (why: the registry):", "", *(f"- {g}" for g in gone)]
    return "\n".join(out) + "\n"


def page_index(page: Path, root: Path = _REPO) -> str:
    """The index as `page` (a Markdown file inside the repository) shows it: its links
    relative to the page's folder."""
    depth = len(page.resolve().parent.relative_to(root.resolve()).parts)
    return index_markdown(root, "../" * depth)


def caption_titles() -> dict[str, str]:
    """{caption file: its title line}: the bold paper numbers and titles of every entry that
    shares the caption, in registry order."""
    by_file: dict[str, list[Artefact]] = {}
    for a in registry()[1]:
        if a.caption:
            by_file.setdefault(a.caption, []).append(a)
    return {
        f: "**" + "; ".join(f"{a.paper_numbers()}: {a.title}" for a in arts) + "**"
        for f, arts in by_file.items()
    }


def titled_caption(text: str, title: str) -> str:
    """The caption `text` with `title` as its first paragraph (replacing a title line written
    before, recognised by its bold markers and the blank line after it)."""
    body = (
        text.split("\n\n", 1)[1]
        if text.startswith("**") and text.split("\n", 1)[0].endswith("**") and "\n\n" in text
        else text
    )
    return f"{title}\n\n{body}"


def write_captions(root: Path = _REPO, check: bool = False) -> list[str]:
    """Put each caption's registry title at its top; the captions that were (or, with
    `check`, would be) changed."""
    stale = []
    for rel, title in caption_titles().items():
        path = root / rel
        if not path.is_file():
            raise FileNotFoundError(f"artefacts.yaml names caption {rel}, which does not exist")
        text = path.read_text()
        new = titled_caption(text, title)
        if new != text:
            stale.append(rel)
            if not check:
                path.write_text(new)
    return stale


def replace_block(text: str, block: str, start: str = START, end: str = END) -> str:
    """`text` with everything between the `start` and `end` markers replaced by `block`."""
    pat = re.compile(re.escape(start) + r".*?" + re.escape(end), re.S)
    if not pat.search(text):
        raise ValueError(f"markers {start} ... {end} not found")
    return pat.sub(lambda _: f"{start}\n{block}{end}", text, count=1)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--write", type=Path, help="rewrite the artefact index of this page")
    g.add_argument("--check", type=Path, help="exit 1 when this page's index is stale")
    g.add_argument(
        "--captions",
        action="store_true",
        help="write the registry's titles at the top of workflow/report/*.rst",
    )
    args = ap.parse_args(argv)
    if args.captions:
        print("captions changed:", write_captions() or "none")
        return 0
    path = args.write or args.check
    text = path.read_text()
    new = replace_block(text, page_index(path))
    if args.check:
        if new != text:
            print(
                f"{path}: the artefact index is stale; run python -m evalsci.pipeline.artefacts "
                f"--write {path}",
                file=sys.stderr,
            )
            return 1
        return 0
    path.write_text(new)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
