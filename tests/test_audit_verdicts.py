"""`evalsci audit` verdicts are tests (issue 31, item 1): each score's verdict comes from exact
one-sided p-values at --alpha, adjusted across the scores of the output by --adjust, and the
paper's point comparison stays as `point_verdict`.

Every expected value here is computed independently of evalsci: p-values with
scipy.stats.binomtest (one option count) or an exact Poisson-binomial convolution in
fractions.Fraction (mixed counts), Holm and Benjamini-Hochberg as rejection sets from their
definitions (not as adjusted p-values), all on the real client output of tests/fixtures/audit/.
"""

from __future__ import annotations

import functools
import json
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import binom, binomtest

from evalsci.audit import POINT_VERDICTS, VERDICTS, audit_paths
from evalsci.cli import main

FIX = Path(__file__).parent / "fixtures" / "audit"
# every real client output of the fixtures, read as one directory (whatever fixtures are added
# later; files that are no results, or deliberately broken, are passed over with their reasons)
REAL = [FIX]
ALPHA = 0.05


def _exact_pmf(labels: dict) -> list[Fraction]:
    """P(X = k) of a sum of Bernoulli(1/options), by convolution in exact fractions."""
    pmf = [Fraction(1)]
    for options, items in labels.items():
        q = Fraction(1, int(options))
        for _ in range(int(items)):
            nxt = [Fraction(0)] * (len(pmf) + 1)
            for k, w in enumerate(pmf):
                nxt[k] += w * (1 - q)
                nxt[k + 1] += w * q
            pmf = nxt
    return pmf


def independent_p(row) -> tuple[float, float, float]:
    """(p_standard, p_max, p_below) of one judged row, without evalsci."""
    n, t = int(row["n"]), int(row["t"])
    return _independent_p(n, t, round(row["accuracy"] * n), row["choices"], row["choices_source"])


# Cached: four tests judge the same rows, and the exact-fraction convolutions of the mixed
# option counts took ~30 s a test.
@functools.cache
def _independent_p(n: int, t: int, c: int, choices, choices_source) -> tuple[float, float, float]:
    if isinstance(choices, str):  # mixed option counts: exact fractions
        pmf = _exact_pmf(json.loads(choices))
        upper, lower = sum(pmf[c:]), sum(pmf[: c + 1])
        below_c = sum(pmf[:c])  # F(c - 1)
        return float(upper), float(1 - below_c**t), float(lower)
    p = 1 / int(choices)
    # options known only as a range (docs/notes/audit.md, "Options per item unknown"): the tests
    # above chance at the least options (the row's choices), the test below at the most
    span = re.match(r"options per item between (\d+) and (\d+)", str(choices_source))
    p_low = 1 / int(span[2]) if span else p
    with np.errstate(divide="ignore"):  # S = 1: log1p(-1) = -inf, and 1 - 0^t = 1
        return (
            binomtest(c, n, p, alternative="greater").pvalue,
            -np.expm1(t * np.log1p(-binom.sf(c - 1, n, p))),  # 1 - (1 - S)^t, no cancellation
            binomtest(c, n, p_low, alternative="less").pvalue,
        )


def rejected(p: np.ndarray, method: str, alpha: float = ALPHA) -> np.ndarray:
    """Which hypotheses each procedure rejects at alpha (strictly below its threshold)."""
    m = len(p)
    order = np.argsort(p, kind="stable")
    out = np.zeros(m, dtype=bool)
    if method == "none":
        return p < alpha
    if method == "holm":  # step down: reject while p_(j) < alpha / (m - j + 1)
        for j, i in enumerate(order, 1):
            if not p[i] < alpha / (m - j + 1):
                break
            out[i] = True
        return out
    # Benjamini-Hochberg, step up: the largest k with p_(k) < k alpha / m, and all below it
    ks = [k for k in range(1, m + 1) if p[order[k - 1]] < k * alpha / m]
    if ks:
        out[order[: max(ks)]] = True
    return out


@pytest.fixture(scope="module")
def judged():
    return {a: audit_paths(REAL, adjust=a) for a in ("none", "holm", "bh")}


def test_p_values_are_exact(judged):
    rows = judged["none"]
    assert len(rows) > 150
    for _, r in rows.iterrows():
        want = independent_p(r)
        got = (r["p_standard"], r["p_max"], r["p_below"])
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-300, err_msg=str(r["source"]))


@pytest.mark.parametrize("method", ["none", "holm", "bh"])
def test_verdicts_are_the_tests_at_alpha(judged, method):
    rows = judged[method]
    p = {
        k: np.array([independent_p(r)[i] for _, r in rows.iterrows()])
        for i, k in enumerate(("p_standard", "p_max", "p_below"))
    }
    above_s, above_m, below = (rejected(p[k], method) for k in ("p_standard", "p_max", "p_below"))
    want = np.where(
        below,
        "below_chance",
        np.where(
            above_m, "above_max", np.where(above_s, "above_standard_only", "not_above_chance")
        ),
    )
    assert list(rows["verdict"].astype(str)) == list(want)
    assert set(rows["verdict"].astype(str)) <= set(VERDICTS)
    # the done-when: no above_max row has p_max at or above alpha
    top = rows[rows["verdict"] == "above_max"]
    assert len(top) and (top["p_max"] < ALPHA).all() and (top["p_max_adjusted"] < ALPHA).all()
    assert (rows["adjust"].astype(str) == method).all() and (rows["alpha"] == ALPHA).all()
    assert (rows["family_size"] == len(rows)).all()


def test_point_verdict_is_the_papers_comparison(judged):
    rows = judged["holm"]
    acc, std, mx = rows["accuracy"], rows["standard"], rows["max_baseline"]
    want = np.where(
        acc > std, np.where(acc > mx, "above_max", "above_standard_only"), "not_above_standard"
    )
    assert list(rows["point_verdict"].astype(str)) == list(want)
    assert set(want) == set(POINT_VERDICTS)
    # the point comparison calls above_max what the test cannot tell from chance
    noisy = rows[(rows["point_verdict"] == "above_max") & (rows["p_max"] >= ALPHA)]
    assert len(noisy) and (noisy["verdict"] != "above_max").all()


def test_a_model_that_never_answers_right_is_below_chance():
    """HELM's `simple/model1` answers 0 of 30 two-option items: P(X <= 0) = 2^-30."""
    (row,) = audit_paths([FIX / "helm" / "runs" / "simple_mcqa:model=simple_model1"]).to_dict(
        "records"
    )
    assert (row["n"], row["accuracy"], row["choices"]) == (30, 0.0, 2)
    assert row["p_below"] == pytest.approx(0.5**30, rel=1e-12)
    assert (row["verdict"], row["point_verdict"]) == ("below_chance", "not_above_standard")


def test_cli_states_the_family_and_counts_the_verdicts(capsys):
    P = FIX / "lm_eval" / "published" / "pythia"
    rc = main(["audit", str(P), "--adjust", "bh", "--alpha", "0.1", "--format", "csv"])
    out = capsys.readouterr()
    assert rc == 0, out.err
    rows = audit_paths([P], adjust="bh", alpha=0.1)
    counts = rows["verdict"].value_counts()
    line = ", ".join(f"{v} {int(counts.get(v, 0))}" for v in reversed(VERDICTS))
    assert f"{len(rows)} scores: {line}" in out.err
    assert f"family: the {len(rows)} scores of this output" in out.err
    assert "Benjamini-Hochberg" in out.err and "alpha = 0.1" in out.err


def test_bad_adjust_or_alpha_is_bad_input(capsys):
    with pytest.raises(SystemExit):  # argparse: not one of the choices
        main(["audit", str(FIX / "helm" / "runs"), "--adjust", "bonferroni"])
    assert main(["audit", str(FIX / "helm" / "runs"), "--alpha", "1.5"]) == 2
    assert "--alpha must be in (0, 1)" in capsys.readouterr().err
