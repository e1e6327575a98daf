"""The one verdict rule of the claims ledger (evalsci.stats.agreement.judge*) against
hand-computed cases, and the ledger's row and file schema (evalsci.claims.ledger)."""

from __future__ import annotations

import dataclasses
import math

import pytest

from evalsci.claims import ledger
from evalsci.stats.agreement import VERDICTS, K, judge, judge_bound, judge_test, untestable


def test_exact_numbers_match_at_the_papers_rounding_and_differ_past_it():
    # 0.041 printed to 3 decimals: anything in [0.0405, 0.0415] rounds to it
    assert judge(0.0414, 0.041, paper_decimals=3).verdict == "matches"
    assert judge(0.0416, 0.041, paper_decimals=3).verdict == "differs_unexplained"
    assert judge(16, 16).verdict == "matches"
    v = judge(16, 17, cause="tests/test_x.py::test_y")
    assert (v.verdict, v.cause) == ("differs", "tests/test_x.py::test_y")


def test_within_noise_at_the_two_se_boundary():
    # paper 0.50 (2 decimals: h = 0.005), ours se 0.03 and paper se 0.04: band h + 2 * 0.05
    band = 0.005 + K * math.hypot(0.03, 0.04)
    assert band == pytest.approx(0.105)
    inside = judge(0.5 + band - 1e-6, 0.5, se=0.03, paper_se=0.04, paper_decimals=2)
    outside = judge(0.5 + band + 1e-6, 0.5, se=0.03, paper_se=0.04, paper_decimals=2)
    assert inside.verdict == "within_noise"
    assert outside.verdict == "differs_unexplained"
    # a noisy number never "matches", even on the paper's print
    assert judge(0.5, 0.5, se=0.01, paper_decimals=2).verdict == "within_noise"


def test_a_number_moving_past_two_se_flips_its_verdict():
    se = 0.01
    verdicts = [judge(0.30 + d, 0.30, se=se).verdict for d in (0.0199, 0.0201)]
    assert verdicts == ["within_noise", "differs_unexplained"]


def test_interval():
    assert judge(0.2, 0.25, interval=(0.1, 0.3)).verdict == "within_noise"
    assert judge(0.2, 0.35, interval=(0.1, 0.3)).verdict == "differs_unexplained"
    assert judge(0.2, 0.304, interval=(0.1, 0.3), paper_decimals=2).verdict == "within_noise"
    with pytest.raises(ValueError, match="low > high"):
        judge(0.2, 0.25, interval=(0.3, 0.1))


def test_bound():
    assert judge_bound(0.7, 0.5, ">").verdict == "matches"
    assert judge_bound(0.6, 0.5, ">", se=0.04).verdict == "within_noise"
    assert judge_bound(0.6, 0.5, ">", se=0.06).verdict == "within_noise"
    assert judge_bound(0.3, 0.5, ">", se=0.06).verdict == "differs_unexplained"
    assert judge_bound(0.5, 0.5, ">").verdict == "differs_unexplained"


def test_qualitative_claims():
    t = "one-sided sign test, alpha 0.05, family: Section 7's 3 claims (Holm)"
    assert judge_test("supports", exact=True, test=t).verdict == "matches"
    assert judge_test("supports", exact=False, test=t).verdict == "within_noise"
    assert judge_test("inconclusive", exact=False, test=t).verdict == "within_noise"
    assert judge_test("contradicts", exact=False, test=t).verdict == "differs_unexplained"
    assert judge_test("inconclusive", exact=True, test=t, cause="c").verdict == "differs"
    with pytest.raises(ValueError, match="state the test"):
        judge_test("supports", exact=True, test=" ")
    assert untestable("needs 42 A100-hours").verdict == "untestable_here"


@pytest.mark.parametrize("bad", [math.nan, math.inf, None, True])
def test_non_numbers_are_refused(bad):
    with pytest.raises(ValueError, match="finite"):
        judge(bad, 0.5)


def _row(**kw):
    base = dict(
        section="Sec. 7",
        quote="boost 2% to 6%",
        paper="0.02-0.06",
        ours="0.03",
        uncertainty="SE 0.004",
        judged=judge(0.03, 0.03, se=0.004),
        artefact="tapt.table1",
    )
    return ledger.claim("tapt", "s7-boost", **{**base, **kw})


def test_ledger_schema_round_trips(tmp_path):
    rows = [_row(), dataclasses.replace(_row(judged=untestable("needs GPUs")), id="b")]
    path = tmp_path / "claims.csv"
    ledger.write_csv(rows, path)
    assert ledger.read_csv(path) == rows
    assert path.read_text().splitlines()[0] == ",".join(ledger.COLUMNS)
    for col in (
        "study",
        "id",
        "section",
        "claim",
        "paper",
        "ours",
        "uncertainty",
        "verdict",
        "cause",
        "artefact",
    ):
        assert col in ledger.COLUMNS
    assert set(VERDICTS) == {
        "matches",
        "within_noise",
        "differs",
        "differs_unexplained",
        "untestable_here",
    }


def test_ledger_rows_are_checked(tmp_path):
    with pytest.raises(ValueError, match="needs its uncertainty"):
        _row(uncertainty="")
    with pytest.raises(ValueError, match="duplicate ids"):
        ledger.to_csv([_row(), _row()])
    with pytest.raises(TypeError, match="agreement.Verdict"):
        _row(judged="matches")
    bad = tmp_path / "bad.csv"
    bad.write_text(",".join(ledger.COLUMNS) + "\nbaselines,a,s,c,1,1,,nonsense,,x.y,\n")
    with pytest.raises(ValueError, match=r"bad.csv, line 2: .*verdict 'nonsense'"):
        ledger.read_csv(bad)
