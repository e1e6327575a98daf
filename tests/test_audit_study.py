"""Study `audit`: the named targets build from a fresh workdir, and the leaderboard counts of
the binary BBH tasks equal a computation written here from the released CSVs and scipy's
binomial (not the study's code, nor evalsci.maxrandom)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binom

from conftest import snakemake

pytestmark = [pytest.mark.slow, pytest.mark.workflow]

# BBH tasks whose every item has two answers (the prompt lists none, or (A) and (B))
BINARY_BBH = [
    "boolean_expressions",
    "causal_judgement",
    "formal_fallacies",
    "hyperbaton",
    "navigate",
    "snarks",
    "sports_understanding",
    "web_of_lies",
]
RESULTS = "kinds-of-intelligence-cfi-PredictaBoard/llm_data/llm_performance_data"
TARGETS = [
    "audit_open_llm_leaderboard",
    "audit_mizrahi_paraphrases",
    "audit_baselines_prompts",
    "audit_openai_evals",
]


def _holm_rejects(p: np.ndarray, alpha: float = 0.05) -> np.ndarray:
    """Holm's step-down: reject H_(j) while p_(j) < alpha / (m - j + 1)."""
    out = np.zeros(len(p), dtype=bool)
    for j, i in enumerate(np.argsort(p, kind="stable"), 1):
        if not p[i] < alpha / (len(p) - j + 1):
            break
        out[i] = True
    return out


def expected_max_accuracy(n: int, p: float, t: int) -> float:
    """E[max of t Binomial(n, p)] / n = sum_{k=1..n} (1 - F(k-1)^t) / n (float64)."""
    k = np.arange(1, n + 1)
    return float(np.sum(1.0 - binom.cdf(k - 1, n, p) ** t) / n)


def independent_counts(csv: Path) -> dict[str, tuple]:
    df = pd.read_csv(csv)
    out = {}
    for kind, d in (("runs", df), ("models", df.drop_duplicates("model", keep="last"))):
        items = d.iloc[:, 2:].to_numpy(dtype=float)
        n, t = items.shape[1], len(d)
        acc = items.sum(axis=1) / n
        emax = expected_max_accuracy(n, 0.5, t)
        above_s, above_m = acc > 0.5, acc > emax
        out[kind] = (
            n,
            t,
            len(d),
            int(above_s.sum()),
            int(above_m.sum()),
            int((above_s & ~above_m).sum()),
        )
    return out


@pytest.fixture(scope="module")
def built(shared_workdir, mirror) -> Path:
    snakemake(shared_workdir, *TARGETS, mirror=mirror)
    return shared_workdir / "results" / "audit"


def test_targets_build_every_artefact(built):
    for name in (
        "open_llm_leaderboard_v2",
        "mizrahi_paraphrases",
        "baselines_prompts",
        "openai_evals",
    ):
        for ext in (".csv", ".md", ".tex"):
            assert (built / "tables" / f"{name}{ext}").stat().st_size > 0
        for ext in (".pdf", ".png"):
            assert (built / "figures" / f"{name}{ext}").stat().st_size > 0
        detail = pd.read_csv(built / "tables" / f"{name}_runs.csv")
        assert {"p_standard", "p_max", "p_below", "point_verdict", "verdict"} <= set(detail.columns)
        assert detail.p_standard.between(0, 1).all() and (detail.p_max >= detail.p_standard).all()
    sweep = pd.read_csv(built / "tables" / "open_llm_leaderboard_v2_sweep.csv")
    assert sweep.t.min() == 1 and sweep.t.max() == 10_000
    assert (sweep[sweep.t == 1].flipped == 0).all()  # t = 1: the max baseline is the standard


def test_leaderboard_columns_and_binary_bbh_counts(built, mirror):
    table = pd.read_csv(built / "tables" / "open_llm_leaderboard_v2.csv")
    assert list(table.columns) == [
        "task",
        "n",
        "choices",
        "t_kind",
        "t",
        "runs",
        "above_standard",
        "above_max",
        "flipped",
        "above_standard_test",
        "above_max_test",
    ]
    for task in BINARY_BBH:
        want = independent_counts(mirror / RESULTS / f"Big-Bench-Hard__{task}_results.csv")
        for kind, (n, t, runs, above_s, above_m, flipped) in want.items():
            row = table[(table.task == f"BBH/{task}") & (table.t_kind == kind)]
            assert len(row) == 1, (task, kind)
            got = row.iloc[0]
            assert (got.n, str(got.choices), got.t, got.runs) == (n, "2", t, runs), (task, kind)
            assert (got.above_standard, got.above_max, got.flipped) == (
                above_s,
                above_m,
                flipped,
            ), (task, kind)
    # beside the paper's counts, the same runs as tests: Holm across every run of the table
    # with the same t kind (one family per kind of test), level 0.05; recomputed here from
    # the detail table's counts with scipy and Holm's step-down rejection rule
    detail = pd.read_csv(built / "tables" / "open_llm_leaderboard_v2_runs.csv")
    for kind, d in detail.groupby("t_kind"):
        p_std = binom.sf(d.correct - 1, d.n, 1 / 2)
        binary = d.labels.map(lambda s: set(json.loads(s)) == {"2"}).to_numpy()
        holm_std = _holm_rejects(d.p_standard.to_numpy())
        holm_max = _holm_rejects(d.p_max.to_numpy())
        np.testing.assert_allclose(d.p_standard[binary], p_std[binary], rtol=1e-9, atol=1e-300)
        for task, g in d.assign(s=holm_std, m=holm_max).groupby("task"):
            row = table[(table.task == task) & (table.t_kind == kind)].iloc[0]
            assert (row.above_standard_test, row.above_max_test) == (g.s.sum(), g.m.sum())
            assert row.above_max_test <= row.above_max  # a test is never laxer than the point
    # the quick count: web_of_lies, 105 of 159 runs above p = 1/2, 55 above E[max]
    wol = table[(table.task == "BBH/web_of_lies") & (table.t_kind == "runs")].iloc[0]
    assert (wol.runs, wol.above_standard, wol.above_max) == (159, 105, 55)


def test_leaderboard_tail_p_values_binary(built):
    detail = pd.read_csv(built / "tables" / "open_llm_leaderboard_v2_runs.csv")
    d = detail[detail.task == "BBH/web_of_lies"]
    for r in d.itertuples():
        assert r.p_standard == pytest.approx(
            binom.sf(r.correct - 1, r.n, 0.5), rel=1e-9, abs=1e-300
        )
        want = 1.0 - binom.cdf(r.correct - 1, r.n, 0.5) ** r.t
        assert r.p_max == pytest.approx(want, rel=1e-6, abs=1e-12)


def test_out_of_scope_lists_free_text_tasks(built):
    scope = pd.read_csv(built / "data" / "open_llm_leaderboard_v2_out_of_scope.csv")
    assert set(scope.task) == {"IFEval"} | {
        f"MATH-LvL-5/{s}"
        for s in (
            "algebra_hard",
            "counting_and_prob_hard",
            "geometry_hard",
            "intermediate_algebra_hard",
            "num_theory_hard",
            "prealgebra_hard",
            "precalculus_hard",
        )
    }
    assert scope.reason.str.len().min() > 10


def test_docs_findings_match_the_results(built):
    from evalsci.pipeline import doctables

    b = doctables.blocks()["audit_findings"]
    root = built.parents[1]  # the workdir
    assert doctables.current(b, Path(__file__).resolve().parents[1]) == doctables.render(b, root), (
        "docs/audit.md findings are stale: snakemake --cores 2 docs_tables"
    )
