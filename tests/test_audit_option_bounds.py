"""Tasks whose items have different numbers of options, read without per-item records: the
exact histogram where the released prompts give it, else exact bounds on both baselines from
the least and most options (readers/option_counts.py, option_bounds.py).

The bounds are checked against a brute force in exact fractions that shares nothing with
evalsci.maxrandom: every assignment of options to items, each guesser's count distribution by
convolution, E[max of t] = sum_c P(max >= c)."""

from __future__ import annotations

import importlib.util
import itertools
import os
from fractions import Fraction
from pathlib import Path

import pytest

from evalsci.audit import audit_inputs
from evalsci.audit.option_bounds import bounds
from evalsci.audit.readers import read_inputs
from evalsci.audit.readers.option_counts import options_for, table

REPO = Path(__file__).resolve().parents[1]
LEADERBOARD = REPO / "tests" / "fixtures" / "audit" / "lm_eval" / "published" / "leaderboard"


def _build_script():
    spec = importlib.util.spec_from_file_location(
        "build_option_counts", REPO / "scripts" / "build_option_counts.py"
    )
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    return build


def count_distribution(options: tuple[int, ...]) -> list[Fraction]:
    dist = [Fraction(1)]
    for k in options:
        p = Fraction(1, k)
        dist = [
            (dist[c] if c < len(dist) else 0) * (1 - p) + (dist[c - 1] * p if c else 0)
            for c in range(len(dist) + 1)
        ]
    return dist


def expected_max(options: tuple[int, ...], t: int) -> Fraction:
    dist = count_distribution(options)
    cdf, total, below = Fraction(0), Fraction(0), []
    for q in dist:
        cdf += q
        below.append(cdf)
    # E[max] = sum_{c=1..n} P(max >= c) = sum (1 - F(c-1)^t)
    for c in range(1, len(dist)):
        total += 1 - below[c - 1] ** t
    return total / (len(dist) - 1)


@pytest.mark.parametrize("t", [1, 2, 5])
def test_bounds_are_the_extremes_over_every_mix(t):
    n, least, most = 4, 2, 4
    values = {
        mix: expected_max(mix, t) for mix in itertools.product(range(least, most + 1), repeat=n)
    }
    s_lo, s_hi, m_lo, m_hi = bounds(n, least, most, t)
    assert min(values.values()) == values[(most,) * n]  # monotone: the extremes are uniform
    assert max(values.values()) == values[(least,) * n]
    assert m_lo == pytest.approx(float(values[(most,) * n]), abs=1e-14)
    assert m_hi == pytest.approx(float(values[(least,) * n]), abs=1e-14)
    assert (s_lo, s_hi) == (pytest.approx(1 / most), pytest.approx(1 / least))


def test_published_limited_leaderboard_run_reads_mmlu_pro_and_musr():
    """Qwen3-8B's leaderboard results (lm-eval, --limit 1, no samples; published by
    mattdepaolis/llm-evaluation): MMLU-Pro and MuSR were skipped for per-item options. Now
    MMLU-Pro and MuSR object_placements are read at their least options with the bounds in
    the note; murder_mysteries and team_allocation have one count per task (2 and 3)."""
    found = read_inputs([LEADERBOARD])
    by_task = {r.task: r for r in found.results}
    mmlu = by_task["leaderboard_mmlu_pro"]
    assert (mmlu.n, mmlu.labels, mmlu.options_range) == (1, {2: 1}, (2, 10))
    place = by_task["leaderboard_musr_object_placements"]
    assert (place.labels, place.options_range) == ({2: 1}, (2, 5))  # a subset: no histogram
    assert by_task["leaderboard_musr_murder_mysteries"].labels == {2: 1}
    assert by_task["leaderboard_musr_team_allocation"].labels == {3: 1}
    judged, _ = audit_inputs([LEADERBOARD])
    row = judged[judged["task"] == "leaderboard_mmlu_pro"].iloc[0]
    # n = 1, t = 1: the baselines are the chance of one item, 1/10 to 1/2
    assert row["standard"] == 0.5 and row["max_baseline"] == 0.5
    assert "standard baseline 0.1 to 0.5, max baseline 0.1 to 0.5" in row["note"]


def test_a_whole_task_gets_its_exact_histogram():
    got = options_for("leaderboard_musr_object_placements", 256, limited=False)
    assert got["labels"] == {2: 4, 3: 112, 4: 96, 5: 44} and got["options_range"] is None
    assert "PredictaBoard" in got["choices_source"]
    assert options_for("leaderboard_musr_object_placements", 256, limited=True)[
        "options_range"
    ] == (2, 5)
    assert options_for("leaderboard_musr_object_placements", 100, limited=False)[
        "options_range"
    ] == (2, 5)
    assert options_for("no_such_task", 10, limited=False) is None


@pytest.mark.skipif(
    not (
        Path(os.environ.get("EVALSCI_MIRROR", "/nonexistent"))
        / "kinds-of-intelligence-cfi-PredictaBoard"
    ).is_dir(),
    reason="needs the released PredictaBoard prompts (EVALSCI_MIRROR) to rebuild the table",
)
def test_table_is_what_the_released_prompts_give():
    rebuilt = _build_script().histograms(Path(os.environ["EVALSCI_MIRROR"]))
    shipped = table()
    assert len(rebuilt) == 27
    for task, hist, source in rebuilt:
        assert shipped[task].histogram == hist and shipped[task].source == source
        assert (shipped[task].least, shipped[task].most) == (min(hist), max(hist))


PYTHIA = REPO / "tests" / "fixtures" / "audit" / "lm_eval" / "published" / "pythia"


def test_arc_without_samples_gets_bounds_and_a_conservative_below_chance_test():
    """Pythia-160M's published 0.3 results (accuracies only): ARC was skipped for per-item
    options. Now read with ARC's 3 to 5 options (option_counts.csv, its source on the row): the
    tests above chance at 3 options each (the baselines' upper bounds), the test below chance
    at 5 options each (its conservative end: at 3, arc_challenge's 0.19 would be 'below
    chance' although its true chance is nearer 1/4). Checked against scipy's binomial."""
    from scipy.stats import binom

    path = PYTHIA / "160m_step93000.json"
    found = read_inputs([path])
    by_task = {r.task: r for r in found.results}
    for task, n in (("arc_challenge", 1172), ("arc_easy", 2376)):
        r = by_task[task]
        assert (r.n, r.labels, r.options_range) == (n, {3: n}, (3, 5))
        assert "Yadav" in r.choices_source and r.derived
    assert not [s for s in found.skipped if s.task in ("arc_challenge", "arc_easy")]
    judged, _ = audit_inputs([path], t=1, adjust="none")
    for task in ("arc_challenge", "arc_easy"):
        row = judged[judged["task"] == task].iloc[0]
        k, n = round(row["accuracy"] * row["n"]), int(row["n"])
        assert row["p_standard"] == pytest.approx(binom.sf(k - 1, n, 1 / 3), rel=1e-12)
        assert row["p_below"] == pytest.approx(binom.cdf(k, n, 1 / 5), rel=1e-12)
        assert "p_below at 5 options each" in row["note"]
        assert "standard baseline 0.2 to 0.3333" in row["note"]
    challenge = judged[judged["task"] == "arc_challenge"].iloc[0]
    assert challenge["accuracy"] < 0.2 and challenge["p_below"] > 0.05
    assert binom.cdf(round(challenge["accuracy"] * 1172), 1172, 1 / 3) < 1e-10
    assert challenge["verdict"] == "not_above_chance"


TRUTHFULQA_V0 = os.environ.get("EVALSCI_TRUTHFULQA_MC_TASK")


@pytest.mark.skipif(
    not (TRUTHFULQA_V0 and Path(TRUTHFULQA_V0).is_file()),
    reason="needs TruthfulQA's v0 data/mc_task.json (EVALSCI_TRUTHFULQA_MC_TASK; where a copy "
    "with the pinned sha256 is published: scripts/build_option_counts.py) to rebuild the row",
)
def test_truthfulqa_mc1_row_is_what_the_authors_file_gives():
    hist, source = _build_script().truthfulqa_histogram(Path(TRUTHFULQA_V0))
    row = table()["truthfulqa_mc1"]
    assert row.histogram == hist and row.source == source
    assert (row.least, row.most, sum(hist.values())) == (min(hist), max(hist), 817)


def _exact_expected_max(hist: dict[int, int], t: int) -> Fraction:
    """E[max of t guessers' counts] / n in exact integers: each option count's binomial as
    numerators over k^m, convolved, then E[max] = sum_c (1 - F(c-1)^t)."""
    from math import comb

    num, den = [1], 1
    for k, m in hist.items():
        group = [comb(m, c) * (k - 1) ** (m - c) for c in range(m + 1)]
        num = [
            sum(num[i] * group[c - i] for i in range(max(0, c - m), min(c, len(num) - 1) + 1))
            for c in range(len(num) + m)
        ]
        den *= k**m
    n = len(num) - 1
    cdf, total, below = 0, 0, []
    for q in num:
        cdf += q
        below.append(cdf)
    dt = den**t
    total = sum(dt - below[c - 1] ** t for c in range(1, n + 1))
    return Fraction(total, n * dt)


def test_truthfulqa_mc1_whole_task_gets_exact_baselines():
    """lm-eval's truthfulqa_mc1 without samples: on all 817 questions the histogram gives the
    exact baselines (checked in exact integers, nothing shared with evalsci.maxrandom), inside
    the 2-to-13-option bounds; a --limit run or a subset gets the bounds."""
    from evalsci.maxrandom import max_random_baseline, standard_baseline

    hist = {2: 43, 3: 90, 4: 219, 5: 192, 6: 135, 7: 65, 8: 36, 9: 17, 10: 9, 11: 7, 12: 3, 13: 1}
    got = options_for("truthfulqa_mc1", 817, limited=False)
    assert got["labels"] == hist and got["options_range"] is None
    assert "TruthfulQA v0" in got["choices_source"] and "sha256 131e6f41" in got["choices_source"]
    mean_chance = sum(Fraction(m, k) for k, m in hist.items()) / 817
    assert standard_baseline(817, hist) == pytest.approx(float(mean_chance), rel=1e-14)
    for t in (1, 10, 200):
        exact = float(_exact_expected_max(hist, t))
        assert max_random_baseline(817, hist, t) == pytest.approx(exact, rel=1e-12)
        _, _, m_lo, m_hi = bounds(817, 2, 13, t)
        assert m_lo < exact < m_hi
    assert options_for("truthfulqa_mc1", 817, limited=True)["options_range"] == (2, 13)
    assert options_for("truthfulqa_mc1", 100, limited=False)["options_range"] == (2, 13)
