"""`evalsci claims` and the ledgers' renderings (evalsci.claims.command, evalsci.claims.render):
formats, the terminal width, errors naming the missing ledger and the rule that makes it, the
README block's rule for studies without a ledger yet. Ledgers here are small files written by
the ledger's own writer, with verdicts from the one rule."""

from __future__ import annotations

import csv
import io
import json

import pytest

from evalsci import cli
from evalsci.claims import ledger, render
from evalsci.stats.agreement import judge, judge_test, untestable

LONG = "a claim quoted at length " * 12


def _rows(study="baselines"):
    t = "exact check over the grid"
    return [
        ledger.claim(
            study,
            "n100",
            section="Sec. 4",
            quote="n = 100 gives 0.575 at t = 10",
            paper="0.575",
            ours="0.5768",
            uncertainty="exact",
            judged=judge(0.5768, 0.575, paper_decimals=3),
            artefact=f"{study}.figure2",
        ),
        ledger.claim(
            study,
            "noisy",
            section="Sec. 5",
            quote=LONG,
            paper="0.50",
            ours="0.53",
            uncertainty="SE 0.02",
            judged=judge(0.53, 0.50, se=0.02, paper_decimals=2),
            artefact=f"{study}.table1",
        ),
        ledger.claim(
            study,
            "trend",
            section="Sec. 5",
            quote="increases with t",
            paper="increasing",
            ours="increasing",
            uncertainty="exact",
            judged=judge_test("supports", exact=True, test=t),
            artefact=f"{study}.table1",
        ),
        ledger.claim(
            study,
            "gpu",
            section="App. C",
            quote="non-quantized: 15.8%",
            paper="15.8%",
            ours="not computed",
            uncertainty="none: no data",
            judged=untestable("the 7B models on GPUs"),
            artefact=f"{study}.table1",
        ),
    ]


@pytest.fixture
def tree(tmp_path):
    """A results tree holding one ledger, where the registry puts it."""
    root = tmp_path / "results"
    ledger.write_csv(_rows(), root / "baselines" / "claims.csv")
    return root


def _run(capsys, *args):
    rc = cli.main(["claims", *args])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_csv_and_json_keep_every_value_in_full(tree, capsys):
    rc, out, _ = _run(capsys, "--root", str(tree), "--format", "csv")
    assert rc == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert tuple(rows[0]) == ledger.COLUMNS
    assert [r["id"] for r in rows] == ["n100", "noisy", "trend", "gpu"]
    assert rows[1]["claim"] == LONG  # not cut
    # the verdicts are the rule's, as the ledger holds them
    assert [r["verdict"] for r in rows] == [
        "differs_unexplained",
        "within_noise",
        "matches",
        "untestable_here",
    ]
    rc, out, _ = _run(capsys, "--root", str(tree), "--format", "json", "--study", "baselines")
    data = json.loads(out)
    assert data[1]["claim"] == LONG and data[3]["cause"] == "the 7B models on GPUs"
    assert set(data[0]) == set(ledger.COLUMNS)


@pytest.mark.parametrize("width", [60, 100, 160])
def test_the_table_fits_columns_and_cuts_long_cells(tree, capsys, monkeypatch, width):
    monkeypatch.setenv("COLUMNS", str(width))
    rc, out, _ = _run(capsys, "--root", str(tree))
    assert rc == 0
    table, summary = out.rstrip("\n").rsplit("\n", 1)
    lines = table.splitlines()
    assert lines[0].split()[:2] == ["study", "id"]
    assert max(len(line) for line in lines) <= max(width, 80)
    assert LONG.strip() not in out and "…" in out
    # the verdict is never cut
    assert "differs_unexplained" in out and "untestable_here" in out
    assert summary == (
        "baselines: 4 claims: 1 exact, 1 within noise, 0 differ with a tested cause, "
        "1 unexplained, 1 untestable here"
    )


def test_the_table_is_100_wide_without_columns(tree, capsys, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    _, out, _ = _run(capsys, "--root", str(tree))
    assert max(len(line) for line in out.splitlines()[:-1]) <= 100
    monkeypatch.setenv("COLUMNS", "300")
    _, wide, _ = _run(capsys, "--root", str(tree))
    assert "n = 100 gives 0.575 at t = 10" in wide  # room enough: not cut


def test_markdown(tree, capsys):
    _, out, _ = _run(capsys, "--root", str(tree), "--format", "md")
    lines = out.splitlines()
    assert lines[0] == "| " + " | ".join(render.SHOWN) + " |"
    assert len(lines) == 2 + 4 and LONG.strip() in out


def test_a_missing_ledger_names_its_path_and_rule(tmp_path, capsys):
    rc, _, err = _run(capsys, "--root", str(tmp_path), "--study", "baselines")
    assert rc == 2
    assert str(tmp_path / "baselines" / "claims.csv") in err
    assert "rule baselines_make_claims" in err and "baselines_claims" in err
    assert "Traceback" not in err
    rc, _, err = _run(capsys, "--root", str(tmp_path))
    assert rc == 2 and "no claims ledger under" in err


def test_unknown_study_and_a_study_without_a_registered_ledger(tree, capsys):
    rc, _, err = _run(capsys, "--root", str(tree), "--study", "nope")
    assert rc == 2 and "unknown study ['nope']" in err
    unregistered = [s for s in render.paper_studies() if not render._registered(s)]
    if unregistered:
        rc, _, err = _run(capsys, "--root", str(tree), "--study", unregistered[0])
        assert rc == 2 and f"no {unregistered[0]}.claims" in err


def test_a_malformed_ledger_names_file_and_line(tree, capsys):
    path = tree / "baselines" / "claims.csv"
    lines = path.read_text().splitlines()
    lines[2] = lines[2].replace("within_noise", "roughly")
    path.write_text("\n".join(lines) + "\n")
    rc, _, err = _run(capsys, "--root", str(tree), "--format", "csv")
    assert rc == 2 and f"{path}, line 3" in err and "roughly" in err


def test_summary_counts_every_verdict():
    rows = _rows()
    assert render.counts(rows) == {
        "matches": 1,
        "within_noise": 1,
        "differs": 0,
        "differs_unexplained": 1,
        "untestable_here": 1,
    }


def test_readme_block_tolerates_a_study_only_without_a_claims_module(tmp_path, monkeypatch):
    path = tmp_path / "claims.csv"
    ledger.write_csv(_rows(), path)
    monkeypatch.setattr(render, "paper_studies", lambda: ["baselines", "tapt"])
    monkeypatch.setattr(render, "has_claims_module", lambda s: s == "baselines")
    out = render.readme_block({"baselines": path})
    assert out.splitlines() == [
        "- baselines: 4 claims: 1 exact, 1 within noise, 0 differ with a tested cause, "
        "1 unexplained, 1 untestable here",
        "- tapt: no claims ledger yet (no evalsci.studies.tapt.claims)",
    ]
    # once a study has a claims module, the block must read its ledger
    monkeypatch.setattr(render, "has_claims_module", lambda s: True)
    with pytest.raises(ValueError, match="tapt.claims exists, but the block reads no tapt ledger"):
        render.readme_block({"baselines": path})


def test_every_study_with_a_claims_module_has_a_registered_ledger_and_a_readme_input():
    from evalsci.pipeline import doctables

    readme = doctables.blocks()["claims_summary"]
    for study in render.paper_studies():
        if render.has_claims_module(study):
            assert render.ledger_path(study) == f"results/{study}/claims.csv"
            assert readme.inputs.get(study) == render.ledger_path(study), study
            assert f"{study}_claims" in doctables.blocks(), f"no claims block in {study}'s doc"


def test_study_block_renders_the_ledger(tmp_path):
    path = tmp_path / "claims.csv"
    ledger.write_csv(_rows(), path)
    out = render.study_block({"claims": path})
    head, table = out.split("\n\n", 1)
    assert head.startswith("baselines: 4 claims: 1 exact")
    assert table.splitlines()[0] == "| " + " | ".join(render.DOC_COLUMNS) + " |"
    assert "| n100 | Sec. 4 |" in table and "differs_unexplained" in table
