"""Every relative link of the README and docs/ (pages and notes) reaches a file, and a link to
a section reaches a heading of that page (GitHub's anchors: lower case, punctuation dropped,
spaces as hyphens). Pages move (the artefact index, the notes): a stale link fails here."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import REPO

PAGES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def anchors(page: Path) -> set[str]:
    heads = re.findall(r"^#+ (.+)$", page.read_text(), re.M)
    return {re.sub(r"[^\w\- ]", "", h.lower()).strip().replace(" ", "-") for h in heads}


def broken(page: Path) -> list[str]:
    out = []
    for link in LINK.findall(page.read_text()):
        if link.startswith(("http://", "https://", "mailto:")):
            continue
        path, _, fragment = link.partition("#")
        target = (page.parent / path).resolve() if path else page
        if not target.exists():
            out.append(f"{link}: no such file")
        elif fragment and target.suffix == ".md" and fragment not in anchors(target):
            out.append(f"{link}: no such section")
    return out


def test_every_relative_link_resolves():
    bad = [f"{p.relative_to(REPO)}: {b}" for p in PAGES for b in broken(p)]
    assert not bad, "\n".join(bad)


def test_the_check_sees_a_missing_file_and_a_missing_section(tmp_path):
    (tmp_path / "a.md").write_text("# A page\n\n## Run it: now\n")
    page = tmp_path / "b.md"
    page.write_text("[ok](a.md#run-it-now) [x](c.md) [y](a.md#gone) [z](https://example.org/q)\n")
    assert broken(page) == ["c.md: no such file", "a.md#gone: no such section"]
