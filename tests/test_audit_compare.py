"""`evalsci audit --compare` on real per-item results, against scipy.

Fixtures: two lm-evaluation-harness 0.4.13 runs of SmolLM2-135M-Instruct on the same items:
0-shot (tests/fixtures/audit/lm_eval/smollm2/full/, scripts/make_lm_eval_fixtures.py) and
2-shot (tests/fixtures/audit/compare/lm_eval/2shot/, scripts/make_audit_compare_fixtures.py);
provenance beside each. The expected values are computed
here from the samples files themselves: discordant pairs counted per doc_id, the exact McNemar
p-value from scipy.stats.binomtest, Holm written out as in Holm (1979), Benjamini-Hochberg from
its step-up definition.
"""

from __future__ import annotations

import json
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest

from evalsci.audit import Inputs, Result, judge_inputs
from evalsci.audit.compare import compare, holm, sign_test
from evalsci.audit.records import labels_of
from evalsci.cli import main

FIXTURES = Path(__file__).parent / "fixtures" / "audit"
RUNS = {
    "0shot": FIXTURES / "lm_eval" / "smollm2" / "full",
    "2shot": FIXTURES / "compare" / "lm_eval" / "2shot",
}
TASKS = {"sst2_local", "rte_local", "logic_local"}  # the multiple-choice tasks of both runs


def _samples(run: str) -> dict[str, dict[str, tuple[int, int]]]:
    """{task: {doc_id: (acc, options)}} straight from lm-eval's samples files."""
    out = {}
    for f in sorted(RUNS[run].glob("samples_*.jsonl")):
        task = f.name[len("samples_") :].rsplit("_", 1)[0]
        if task not in TASKS:
            continue
        recs = [json.loads(line) for line in f.read_text().splitlines() if line.strip()]
        out[task] = {str(r["doc_id"]): (int(r["acc"]), len(r["arguments"])) for r in recs}
    return out


def _results() -> list[Result]:
    out = []
    for run in ("0shot", "2shot"):
        for task, items in _samples(run).items():
            ids = sorted(items, key=int)
            out.append(
                Result(
                    model=f"SmolLM2-135M-Instruct {run}",
                    task=task,
                    n=len(ids),
                    correct=sum(items[i][0] for i in ids),
                    labels=labels_of(items[i][1] for i in ids),
                    source=str(RUNS[run]),
                    items=tuple(ids),
                    outcomes=tuple(items[i][0] for i in ids),
                )
            )
    return out


def _holm(p):
    """Holm (1979): reject H_(1..j) while p_(j) <= alpha / (m - j + 1); as adjusted p-values."""
    m, order = len(p), np.argsort(p, kind="stable")
    adj, running = np.empty(m), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        adj[i] = running
    return adj


def _bh(p):
    """Benjamini-Hochberg step-up: min over j >= i of m p_(j) / j."""
    m, order = len(p), np.argsort(p)
    adj = np.empty(m)
    running = 1.0
    for rank in range(m - 1, -1, -1):
        i = order[rank]
        running = min(running, m * p[i] / (rank + 1))
        adj[i] = running
    return adj


@pytest.mark.parametrize("method", ["holm", "bh"])
def test_compare_two_real_lm_eval_runs_against_scipy(method):
    missing = [str(p) for p in RUNS.values() if not p.is_dir()]
    if missing:  # the 2-shot run takes ~40 CPU-minutes to make; it lands after the code
        pytest.skip(
            f"fixture not committed yet: {missing} (scripts/make_audit_compare_fixtures.py)"
        )
    frame, judged = judge_inputs(Inputs(results=_results()))
    tests, groups, notes = compare(frame, judged, method=method)
    zero, two = _samples("0shot"), _samples("2shot")
    assert set(tests["task"]) == set(zero) == set(two)
    pairs = tests[tests["test"] == "paired"]
    assert len(pairs) == len(zero)  # two systems: one pair per task
    for r in pairs.itertuples():
        a = zero if "0shot" in r.model_a else two
        b = two if a is zero else zero
        common = set(a[r.task]) & set(b[r.task])
        a_only = sum(a[r.task][i][0] == 1 and b[r.task][i][0] == 0 for i in common)
        b_only = sum(a[r.task][i][0] == 0 and b[r.task][i][0] == 1 for i in common)
        assert (r.n_items, r.a_only, r.b_only) == (len(common), a_only, b_only)
        # accuracies on the shared items, as exact fractions
        assert r.accuracy_a == float(Fraction(sum(a[r.task][i][0] for i in common), len(common)))
        assert r.accuracy_b == float(Fraction(sum(b[r.task][i][0] for i in common), len(common)))
        d = a_only + b_only
        if 2 * Fraction(1, 2) ** d >= Fraction(5, 100):  # can never reach alpha: untested
            assert r.status == "too_small" and np.isnan(r.p) and pd.isna(r.separated)
            assert any("too small to test" in x and r.task in x for x in notes)
        else:
            assert r.status == "tested"
            assert r.p == pytest.approx(binomtest(a_only, d, 0.5).pvalue, rel=1e-12, abs=0)
    single = tests[tests["test"] == "max_random"]
    assert len(single) == 2 * len(zero)
    for r in single.itertuples():
        (row,) = judged[(judged["task"] == r.task) & (judged["model"] == r.model_a)].itertuples()
        assert (r.p, r.t, r.n_items, r.status) == (row.p_max, 2, row.n, "tested")
    tested = (tests["status"] == "tested").to_numpy()
    p = tests["p"].to_numpy()[tested]
    want = _holm(p) if method == "holm" else _bh(p)
    np.testing.assert_allclose(tests["p_adjusted"][tested], want, rtol=1e-12, atol=0)
    assert tests["p_adjusted"][~tested].isna().all()
    assert (tests["separated"][tested] == (tests["p_adjusted"][tested] < 0.05)).all()
    _check_groups(tests, groups)


def _check_groups(tests, groups):
    """The stated rule: models of different groups are separated pairwise; inside a group
    each model is joined to the others by a chain of pairs not separated."""
    for task, g in groups.groupby("task"):
        members = {m: int(k) for k, ms in zip(g["group"], g["models"], strict=True)
                   for m in ms.split("; ")}  # fmt: skip
        pairs = tests[(tests["task"] == task) & (tests["test"] == "paired")]
        tested = pairs[pairs["status"] == "tested"]
        grouped = set(tested["model_a"]) | set(tested["model_b"])
        assert set(members) == grouped  # a score with no tested pair is in no group
        pairs = pairs[pairs["model_a"].isin(grouped) & pairs["model_b"].isin(grouped)]
        pairs = pairs[pairs["status"] != "not_comparable"]  # no item in common: no link
        # a pair too small to test cannot be separated: it links like a pair not separated
        pairs = pairs.assign(separated=pairs["separated"].fillna(False).astype(bool))
        for r in pairs.itertuples():
            if members[r.model_a] != members[r.model_b]:
                assert r.separated
        for k in set(members.values()):
            ms = [m for m in members if members[m] == k]
            linked = {ms[0]}
            for _ in ms:
                for r in pairs[~pairs["separated"]].itertuples():
                    if r.model_a in linked or r.model_b in linked:
                        linked |= {r.model_a, r.model_b}
            assert linked >= set(ms)
        assert g["best_accuracy"].is_monotonic_decreasing


def test_sign_test_is_binomtest_two_sided():
    a, b = np.meshgrid(np.arange(41), np.arange(41))
    got = sign_test(a.ravel(), b.ravel())
    for x, y, p in zip(a.ravel(), b.ravel(), got, strict=True):
        want = binomtest(int(x), int(x + y), 0.5).pvalue if x + y else 1.0
        assert p == pytest.approx(want, rel=1e-12, abs=1e-300)


def test_holm_matches_the_step_down_definition():
    rng = np.random.default_rng(3)
    for m in (1, 2, 5, 40):
        p = rng.random(m) ** 3
        np.testing.assert_allclose(holm(p), _holm(p), rtol=1e-15)


def test_holm_with_ties_is_the_stable_order_definition_bit_for_bit():
    """holm sorts without keeping tied p-values in input order (a million-row audit has
    many ties); the adjusted values must be the same bits as the step-down definition in a
    stable order."""
    rng = np.random.default_rng(4)
    for m, levels in ((7, 2), (500, 10), (20_000, 37)):
        p = rng.integers(0, levels + 1, m) / levels * rng.choice([1e-6, 1e-3, 1.0], m)
        np.testing.assert_array_equal(holm(p), _holm(p), strict=True)


def test_holm_of_a_large_family_steps_over_distinct_values_bit_for_bit(monkeypatch):
    """From 2^14 p-values on, holm hashes them and steps once per distinct value (an audit's
    million scores hold a few thousand): the bits of the step-down definition with ties and
    for all-distinct families, and of the sorting path where NaNs are (sorted last, NaN out)."""
    from evalsci.stats import multiple

    rng = np.random.default_rng(5)
    m = 40_000
    tied = rng.integers(0, 300, m) / 300 * rng.choice([1e-300, 1e-9, 1.0], m)
    for p in (tied, rng.random(m) ** 4, np.zeros(m)):
        np.testing.assert_array_equal(holm(p), _holm(p), strict=True)
    with_nan = tied.copy()
    with_nan[rng.integers(0, m, 50)] = np.nan
    got = holm(with_nan)
    monkeypatch.setattr(multiple, "_DISTINCT_FROM", m + 1)
    np.testing.assert_array_equal(got, holm(with_nan), strict=True)
    assert np.isnan(got).sum() == np.isnan(with_nan).sum()


def test_groups_are_connected_components_of_ties():
    """Three systems on 200 items: a and b differ on 2 items only, c on 100: {a, b} vs {c}."""
    items = tuple(str(i) for i in range(200))
    base = np.array([1] * 150 + [0] * 50)
    b = base.copy()
    b[:2] = 0
    c = np.zeros(200, dtype=int)
    c[150:] = 1  # right exactly where a is wrong: 200 discordant items
    rs = [
        Result(
            model=m,
            task="x",
            n=200,
            correct=int(o.sum()),
            labels={2: 200},
            source="-",
            items=items,
            outcomes=tuple(int(v) for v in o),
        )  # fmt: skip
        for m, o in (("a", base), ("b", b), ("c", c))
    ]
    frame, judged = judge_inputs(Inputs(results=rs))
    tests, groups, _ = compare(frame, judged)
    assert groups["models"].tolist() == ["a; b", "c"]
    _check_groups(tests, groups)


def test_compare_without_per_item_results_is_an_error(tmp_path, capsys):
    f = tmp_path / "res.csv"
    f.write_text("model,task,n,correct,choices\nm1,x,10,5,2\nm2,x,10,7,2\n")
    rc = main(["audit", str(f), "--compare"])
    err = capsys.readouterr().err
    assert rc == 2 and "--compare needs per-item results" in err


def test_cli_compare_full_and_limit_runs(capsys):
    """The CLI end to end on lm-eval's own files (read by the lm-eval reader): the full run and
    the --limit 5 run share 5 items per task; the pairs are tested on those items only."""
    full = FIXTURES / "lm_eval" / "smollm2" / "full"
    limit = FIXTURES / "lm_eval" / "smollm2" / "limit"
    rc = main(["audit", str(full), str(limit), "--compare", "--adjust", "bh", "--format", "json"])
    out = capsys.readouterr()
    assert rc == 0, out.err
    got = json.loads(out.out)
    assert set(got) == {"scores", "tests", "groups", "skipped", "summary"}
    pairs = [r for r in got["tests"] if r["test"] == "paired"]
    assert sorted(r["task"] for r in pairs) == sorted(TASKS)

    def outcomes(run_dir, task):
        (f,) = run_dir.glob(f"samples_{task}_*.jsonl")
        recs = [json.loads(line) for line in f.read_text().splitlines() if line.strip()]
        return {str(r["doc_id"]): int(r["acc"]) for r in recs}

    for r in pairs:
        # 5 shared items: d <= 5 discordant, 2 x 0.5^5 = 0.0625 >= 0.05: never testable
        assert (r["status"], r["p"], r["p_adjusted"], r["separated"]) == (
            "too_small",
            None,
            None,
            None,
        )
        assert f"task {r['task']!r}: " in out.err and "too small to test" in out.err
        a, b = outcomes(full, r["task"]), outcomes(limit, r["task"])
        if "23-13-43" in r["model_a"]:  # the limit run is model_a
            a, b = b, a
        common = set(a) & set(b)
        a_only = sum(a[i] > b[i] for i in common)
        b_only = sum(a[i] < b[i] for i in common)
        assert (
            (r["n_items"], r["a_only"], r["b_only"])
            == (len(common), a_only, b_only)
            == (
                5,
                a_only,
                b_only,
            )
        )
    tested = [r for r in got["tests"] if r["status"] == "tested"]
    assert {r["test"] for r in tested} == {"max_random"}
    p = np.array([r["p"] for r in tested])
    np.testing.assert_allclose([r["p_adjusted"] for r in tested], _bh(p), rtol=1e-12)


def test_cli_compare_two_inspect_logs_of_the_same_items(capsys):
    """Two real inspect-ai logs (mockllm/alpha and mockllm/beta, the same 12 items, task
    mc_single; tests/fixtures/audit/inspect_ai/PROVENANCE.md): the pair's discordant counts
    from the logs' own per-sample `choice` scores ('C' correct, 'I' incorrect), p from
    scipy's binomtest; Holm over the task's three tests."""
    logs = sorted((FIXTURES / "inspect_ai" / "json").glob("*_mc-single_*.json"))
    assert len(logs) == 2
    rc = main(["audit", *map(str, logs), "--compare", "--format", "json"])
    out = capsys.readouterr()
    assert rc == 0, out.err
    got = json.loads(out.out)
    right = {}
    for f in logs:
        log = json.loads(f.read_text())
        right[log["eval"]["model"]] = {
            str(s["id"]): int(s["scores"]["choice"]["value"] == "C") for s in log["samples"]
        }
    (pair,) = [r for r in got["tests"] if r["test"] == "paired"]
    a, b = right[pair["model_a"]], right[pair["model_b"]]
    assert set(a) == set(b) and pair["n_items"] == len(a) == 12
    a_only = sum(a[i] > b[i] for i in a)
    b_only = sum(a[i] < b[i] for i in a)
    assert (pair["a_only"], pair["b_only"]) == (a_only, b_only)
    assert pair["p"] == pytest.approx(binomtest(a_only, a_only + b_only, 0.5).pvalue, rel=1e-12)
    tested = [r for r in got["tests"] if r["status"] == "tested"]
    p = np.array([r["p"] for r in tested])
    np.testing.assert_allclose([r["p_adjusted"] for r in tested], _holm(p), rtol=1e-12)
    for r in tested:
        if r["test"] == "max_random":
            (score,) = [s for s in got["scores"] if s["model"] == r["model_a"]]
            assert (r["p"], r["t"]) == (score["p_max"], 2)
    _check_groups(pd.DataFrame(got["tests"]), pd.DataFrame(got["groups"]))


def test_untestable_runs_leave_the_others_unchanged():
    """The issue's case on real files: a run that shares too few items (the --limit 5 run, 5
    items per task, so d <= 5 and 2 x 0.5^d >= 0.0625) is reported, tested against nothing, and
    changes neither the family nor the groups of the 0-shot and 2-shot runs (t fixed at 2,
    so that the max_random tests of the two are the same in both audits)."""
    from evalsci.audit import read_inputs

    two = [FIXTURES / "lm_eval" / "smollm2" / "full", RUNS["2shot"]]
    three = [*two, FIXTURES / "lm_eval" / "smollm2" / "limit"]
    got = {}
    for name, paths in (("two", two), ("three", three)):
        frame, judged = judge_inputs(read_inputs(paths), t=2)
        got[name] = compare(frame, judged)
    (t2, g2, _), (t3, g3, notes3) = got["two"], got["three"]
    # the model names repeat, so a row's label depends on its neighbours: match on values
    cols = ["task", "test", "n_items", "a_only", "b_only", "p", "separated"]
    limit = t3["model_a"].str.contains("23-13-43") | t3["model_b"].str.contains("23-13-43")

    def rows(t):
        t = t[t["status"] == "tested"][cols].astype(str)
        return sorted(map(tuple, t.to_numpy()))

    assert rows(t3[~limit]) == rows(t2) and len(rows(t2)) >= 6  # the others: the same tests
    pairs = t3[limit & (t3["test"] == "paired")]
    assert len(pairs) == 6 and (pairs["status"] == "too_small").all() and pairs["p"].isna().all()
    assert (pairs["n_items"] == 5).all() and (pairs["a_only"] + pairs["b_only"] <= 5).all()
    # the limit run's own max_random test: untestable exactly when P(max of 2 >= n) >= alpha,
    # P(X = n) being the product of 1/options over its items (from lm-eval's samples file)
    for r in t3[limit & (t3["test"] == "max_random")].itertuples():
        (f,) = (FIXTURES / "lm_eval" / "smollm2" / "limit").glob(f"samples_{r.task}_*.jsonl")
        opts = [len(json.loads(x)["arguments"]) for x in f.read_text().splitlines() if x]
        p_all = np.prod([Fraction(1, k) for k in opts])
        small = 1 - (1 - p_all) ** 2 >= Fraction(5, 100)
        assert r.status == ("too_small" if small else "tested"), r.task
    # the same groups (sizes, accuracies), and the limit run in none
    shape = ["task", "group", "best_accuracy", "worst_accuracy"]
    pd.testing.assert_frame_equal(g3[shape], g2[shape])
    assert g3["models"].str.count("; ").tolist() == g2["models"].str.count("; ").tolist()
    assert not g3["models"].str.contains("23-13-43").any()
    assert sum("too small to test" in x for x in notes3) == int((t3["status"] == "too_small").sum())


def test_a_pair_with_no_shared_item_is_not_comparable():
    """Two runs of one task on disjoint items (the inspect-ai mc_single log of mockllm/alpha,
    its items split in halves as two runs) and a third on all of them: the disjoint pair gets
    no p-value and no group link; the others are tested."""
    from evalsci.audit import read_inputs

    log = sorted((FIXTURES / "inspect_ai" / "json").glob("*_mc-single_*.json"))[0]
    (r,) = read_inputs([log]).results
    half = len(r.items) // 2
    parts = [
        replace(r, model="first", items=r.items[:half], outcomes=r.outcomes[:half], n=half,
                correct=sum(r.outcomes[:half]), accuracy=None, labels={4: half}),
        replace(r, model="second", items=r.items[half:], outcomes=r.outcomes[half:],
                n=len(r.items) - half, correct=sum(r.outcomes[half:]), accuracy=None,
                labels={4: len(r.items) - half}),
        r,
    ]  # fmt: skip
    frame, judged = judge_inputs(Inputs(results=parts))
    tests, groups, notes = compare(frame, judged)
    (pair,) = tests[(tests["model_a"] == "first") & (tests["model_b"] == "second")].itertuples()
    assert (pair.status, pair.n_items) == ("not_comparable", 0)
    assert np.isnan(pair.p) and np.isnan(pair.accuracy_a) and pd.isna(pair.separated)
    assert any("first vs second: no item in common: not comparable" in x for x in notes)


def test_runs_with_different_settings_are_compared_but_flagged(capsys):
    """lm-eval's own results files state each run's shots (`n-shot`), `--limit`
    (`config.limit`), model arguments and version: the 0-shot, 2-shot and --limit 5 runs of
    SmolLM2 differ in shots and limit; each pair is tested (where testable) and flagged."""
    runs = {
        "full": FIXTURES / "lm_eval" / "smollm2" / "full",
        "2shot": RUNS["2shot"],
        "limit": FIXTURES / "lm_eval" / "smollm2" / "limit",
    }
    rc = main(["audit", *map(str, runs.values()), "--compare", "--format", "json"])
    out = capsys.readouterr()
    assert rc == 0, out.err
    stated = {}
    for name, d in runs.items():
        (f,) = d.glob("results_*.json")
        r = json.loads(f.read_text())
        stated[name] = (r["n-shot"], r["config"]["limit"], f.name, r["model_name"])

    def run_of(label):  # a repeated model is labelled with its results file
        (k,) = [k for k, v in stated.items() if v[2] in label or label == v[3]]
        return k

    for r in (x for x in json.loads(out.out)["tests"] if x["test"] == "paired"):
        a, b = run_of(r["model_a"]), run_of(r["model_b"])
        want = []
        if stated[a][1] != stated[b][1]:
            show = lambda v: "-" if v is None else str(v)  # noqa: E731
            want.append(f"limit {show(stated[a][1])} vs {show(stated[b][1])}")
        sa, sb = stated[a][0][r["task"]], stated[b][0][r["task"]]
        if sa != sb:
            want.append(f"shots {sa} vs {sb}")
        assert r["settings_differ"] == "; ".join(sorted(want)), (a, b)
        if want:
            assert f"run with different settings: {r['settings_differ']}" in out.err
    assert any("shots 0 vs 2" in x["settings_differ"] for x in json.loads(out.out)["tests"])
