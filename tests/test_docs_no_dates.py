"""Pages for users carry no lab history (issue 46): no dates and no commit hashes outside the
generated blocks (`<!-- generated:NAME:start -->` ... `:end -->`, which the doc-block machinery
writes from result files and run records). Measured runs, with their dates and commits, live
in docs/benchmarks.md, its pages under docs/benchmarks/ and docs/notes/ (neither folder is a
user page checked here); the changelog dates its releases."""

from __future__ import annotations

import re

import pytest

from conftest import REPO

DATE = re.compile(r"\b(?:19|20)\d\d-[01]\d-[0-3]\d\b")
# a commit hash as the docs cite one: 7 to 40 hex digits, at least one letter and one digit
HASH = re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b")
# an upstream pin is provenance, not our history: `owner/repo <hash>` or `owner/repo at <hash>`
UPSTREAM = re.compile(r"[\w.-]+/[\w.-]+`?(?: at)?(?: commit)? $")
GENERATED = re.compile(r"<!-- generated:(\w+):start -->.*?<!-- generated:\1:end -->", re.S)
HISTORY = {"benchmarks.md"}  # docs/benchmarks.md: every measurement gives its date and commit
PAGES = [
    REPO / "README.md",
    *sorted(p for p in (REPO / "docs").glob("*.md") if p.name not in HISTORY),
]


def dated(text: str) -> list[str]:
    """(line: match) of each date or commit hash outside the generated blocks."""
    kept = GENERATED.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    return [
        f"{n}: {m.group(0)}"
        for n, line in enumerate(kept.splitlines(), 1)
        for m in (*DATE.finditer(line), *HASH.finditer(line))
        if not (m.re is HASH and UPSTREAM.search(line[: m.start()]))
    ]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_no_date_or_commit_outside_generated_blocks(page):
    found = dated(page.read_text())
    assert not found, (
        f"{page.relative_to(REPO)}: move to docs/notes/ or docs/benchmarks.md:\n" + "\n".join(found)
    )


def test_the_check_sees_dates_and_hashes_and_skips_generated_blocks():
    text = (
        "Run 2026-11-24 at commit 25b72cf.\n"
        "<!-- generated:x:start -->\nrecorded 2026-11-25, commit 4489db4\n<!-- generated:x:end -->\n"
        "A sha256 prefix is not cited here; 1234567 and deadbee are a number and a word.\n"
        "Pinned: `gyauney/stronger-random-baselines` at 836a551, owner/repo c59fd4b.\n"
    )
    assert dated(text) == ["1: 2026-11-24", "1: 25b72cf"]
