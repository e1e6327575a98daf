"""The artefact registry (src/evalsci/pipeline/artefacts.yaml) against the Snakefile, the scripts, the
package, the artefact index (docs/artefacts.md) and the default DAG."""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from evalsci.pipeline import artefacts

ROOT = Path(__file__).resolve().parents[1]


def test_the_target_rules_are_the_registrys_targets(workflow_rules):
    """The Snakefile makes one rule per target of the registry (and no other target rule);
    each builds at least one file."""
    registered = {a.target for a in artefacts.artefacts() if a.target}
    targets = {r.name: r.target_inputs for r in workflow_rules if not r.has_output}
    assert set(targets) - {"all"} == registered
    assert all(targets[t] for t in registered), [t for t in registered if not targets[t]]
    assert not re.search(r"^rule \w+:\n    input:", (ROOT / "Snakefile").read_text(), re.M)


@pytest.mark.parametrize(
    "a", [a for a in artefacts.artefacts() if a.build != "not_reproducible"], ids=lambda a: a.id
)
def test_function_exists(a):
    """The function an entry names exists (tests/test_rule_calls.py holds its rule to it)."""
    module, name = a.function.rsplit(".", 1)
    assert callable(getattr(importlib.import_module(module), name)), a.function


INDEX = ROOT / "docs" / "artefacts.md"


def test_the_artefact_index_is_generated_from_the_registry():
    text = INDEX.read_text()
    assert artefacts.replace_block(text, artefacts.page_index(INDEX)) == text, (
        "docs/artefacts.md is stale: run python -m evalsci.pipeline.artefacts --write "
        "docs/artefacts.md"
    )


def test_registry_rejects_a_bad_entry():
    with pytest.raises(ValueError, match="build must be one of"):
        artefacts._check(
            {"id": "x.y", "paper": {"000": "Table 9"}, "title": "t", "build": "sometimes"}, 1
        )
    with pytest.raises(ValueError, match="'why' and no target"):
        artefacts._check(
            {"id": "x.y", "paper": {"000": "Table 9"}, "title": "t", "build": "not_reproducible"}, 1
        )


@pytest.mark.workflow
def test_rule_all_builds_every_default_artefact(tmp_path):
    """Dry run of the default DAG: every output of every `default` entry is planned, by the
    rule the registry names."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "snakemake",
            "-n",
            "--summary",
            "-s",
            str(ROOT / "Snakefile"),
            "-d",
            str(tmp_path),
        ],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    planned = {}
    for line in out.splitlines():
        cols = line.split("\t")
        if len(cols) >= 3 and cols[0].startswith("results/"):
            planned[cols[0]] = cols[2]
    assert planned, out[-2000:]
    for a in artefacts.artefacts("default"):
        assert a.outputs, f"{a.id}: a default entry lists its outputs"
        for f in a.outputs:
            assert f in planned, f"{a.id}: {f} is not built by rule all"
            assert planned[f] == a.rule, f"{a.id}: {f} is made by {planned[f]}, not {a.rule}"


def _needs_a_caption(a) -> bool:
    """Every entry the workflow builds, but for intermediate data: that of our own inference
    (results/<study>/recompute/: aggregated-results.json, tapt's training manifest) and the
    tables every analysis of a study reads (results/<study>/data/: tapt's accuracies)."""
    return a.build != "not_reproducible" and not all(
        Path(f).parts[2] in ("recompute", "data") for f in a.outputs
    )


def test_every_built_artefact_has_a_report_caption():
    """Each registered artefact the workflow builds names its caption in `snakemake --report`
    (the next test holds the caption to the registry and the rule)."""
    missing = [a.id for a in artefacts.artefacts() if _needs_a_caption(a) and not a.caption]
    assert not missing, f"no caption: {missing}"
    # the check sees what it should: the intermediate files need none, the papers' do
    byid = {a.id: a for a in artefacts.artefacts()}
    assert not _needs_a_caption(byid["baselines.table1_recompute"])
    assert not _needs_a_caption(byid["tapt.accuracies"])
    assert _needs_a_caption(byid["baselines.figure8_001"])
    assert sum(map(_needs_a_caption, byid.values())) >= 40


def test_report_captions_carry_the_registry_titles():
    """Each caption an entry names starts with the registry's title line (`python -m
    evalsci.pipeline.artefacts --captions` writes it), and the workflow's rules use that caption."""
    rules = "".join(p.read_text() for p in (ROOT / "workflow/rules").glob("*.smk"))
    titles = artefacts.caption_titles()
    assert titles, "no entry names a caption"
    for rel, title in titles.items():
        text = (ROOT / rel).read_text()
        assert text.split("\n", 1)[0] == title, f"{rel}: stale title; run --captions"
        name = Path(rel).name
        loop_made = re.sub(r"figure\w+\.rst$", "{name}.rst", name)  # baselines_make_figures
        assert f"report/{name}" in rules or f"report/{loop_made}" in rules, (
            f"{rel}: no rule uses this caption"
        )
    assert artefacts.write_captions(ROOT, check=True) == []


def test_captions_title_replaces_an_old_title_and_keeps_the_text():
    old = "**Figure 1 (000): old**\n\nThe text.\n"
    assert artefacts.titled_caption(old, "**Figure 1 (000): new**") == (
        "**Figure 1 (000): new**\n\nThe text.\n"
    )
    plain = "**Table 1** (Yauney & Mimno). Agreement\nbetween.\n"
    assert artefacts.titled_caption(plain, "**T**") == "**T**\n\n" + plain


def test_from_an_index_row_the_rule_and_the_function_are_one_file_away():
    """Each row of docs/artefacts.md links the file that defines its rule(s) and the file
    that defines its function, and names its outputs."""
    import ast

    text = INDEX.read_text()
    block = text[text.index(artefacts.START) : text.index(artefacts.END)]
    rows = [r for r in block.splitlines() if r.startswith("| ") and not r.startswith("| study")]
    rows = [r for r in rows if not r.startswith("| ---")]
    assert len(rows) >= 20
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        study, outputs, rule_cell, function_cell = cells[0], cells[3], cells[4], cells[5]
        assert outputs, row
        m = re.fullmatch(r"\[(.+)\]\(\.\./(workflow/rules/\w+\.smk)\)", rule_cell)
        assert m, rule_cell
        smk = (ROOT / m.group(2)).read_text()
        rule_names = re.findall(r"[\w{}-]+", m.group(1).replace("`", ""))
        for name in rule_names:
            if "{" in name:  # x{1-3}: each numbered rule
                stem, lo, hi = re.fullmatch(r"(\w+)\{(\d+)-(\d+)\}", name).groups()
                names = [f"{stem}{i}" for i in range(int(lo), int(hi) + 1)]
            else:
                names = [name]
            for n in names:
                assert re.search(rf"^rule {n}:", smk, re.M), f"{m.group(2)} defines no rule {n}"
        f = re.fullmatch(r"\[`(.+)`\]\(\.\./(src/evalsci/[\w/]+\.py)\)", function_cell)
        assert f, function_cell
        tree = ast.parse((ROOT / f.group(2)).read_text())
        defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
        assert f.group(1).rsplit(".", 1)[-1] in defined, f"{f.group(2)} defines no {f.group(1)}"
        assert study in f.group(2) or study == "audit", row


def test_the_run_it_sections_name_real_targets():
    """Each study page's "Run it" commands name targets of the registry (or its claims rule)."""
    targets = {a.target for a in artefacts.artefacts() if a.target}
    for page in ("baselines", "tapt", "assessors", "mc_icl"):
        text = (ROOT / "docs" / f"{page}.md").read_text()
        if "## Run it" not in text:
            continue
        block = text[text.index("## Run it") :].split("\n## ", 1)[0]
        commands = re.findall(r"^snakemake .*$", block, re.M)
        assert commands, page
        named = {w for c in commands for w in re.findall(rf"\b{page}_\w+", c.split("#")[0])}
        assert named and named <= targets, sorted(named - targets)
