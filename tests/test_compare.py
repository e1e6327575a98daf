"""`evalsci compare`: the tapt paper's hierarchical comparison (paper 002, Section 6) on anyone's
results, and its exact cross-check.

- the model: its log density equals the paper's model written out with scipy's distributions
  (U and W integrated out analytically; centred and non-centred coordinates), its gradient
  equals finite differences;
- recovery: a simulated data set with a known population effect gets an interval that covers it
  and excludes 0; a null data set is not declared;
- the exact cross-check against independent computations: McNemar's exact p from
  scipy.stats.binomtest, Fisher's from enumerating every table with the same margins, the
  across-task sign test from binomtest, Holm from its definition;
- real files: the lm-eval fixtures (two runs of SmolLM2-135M on the same items), the HELM
  fixture (one task: the hierarchical model refuses, the exact test runs);
- bad input and the CLI's outputs and exit codes.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.special import comb, expit
from scipy.stats import binom, binomtest, halfnorm, norm

from evalsci.cli import main
from evalsci.compare.core import compare, pair_cells
from evalsci.compare.fit import FitSettings, NotConverged, fit_cells
from evalsci.compare.inputs import Score
from evalsci.compare.model import Cells, Density, starts
from evalsci.stats.exact import fisher_test, sign_test

ROOT = Path(__file__).resolve().parents[1]
FIX = ROOT / "tests" / "fixtures" / "audit"
ZERO, TWO = FIX / "lm_eval" / "smollm2" / "full", FIX / "compare" / "lm_eval" / "2shot"
ZERO_MODEL, TWO_MODEL = "/tmp/lmeval_fix/smollm2", "/tmp/tmpt3yzg23n/smollm2"  # pretrained=


def simulate(rng, tasks, beta, sigma_w, mu=0.3, sigma_u=1.0, n_range=(20, 400)):
    """Per-item outcomes of A and B on `tasks` tasks from the model itself."""
    rows = []
    for j in range(tasks):
        n = int(rng.integers(*n_range))
        u, w = rng.normal(0, sigma_u), rng.normal(0, sigma_w, 2)
        for model, x, wl in (("A", -0.5, w[0]), ("B", 0.5, w[1])):
            y = rng.random(n) < expit(mu + u + wl + beta * x)
            rows += [Score(model, f"t{j:02d}", n, int(y.sum()), "sim", tuple(map(str, range(n))),
                           y.astype(np.int8))]  # fmt: skip
    return rows


# -- the model -------------------------------------------------------------------------------


def _paper_log_density(cells, mu, beta, s_u, s_w, m, c):
    """The model with U, W integrated out, in scipy: binomial cells, m_j ~ N(mu, tau_m),
    c_j ~ N(beta, sqrt 2 sigma_W), the priors of eqs. 3, 7, 8, log-sigma Jacobians."""
    eta_a, eta_b = m - c / 2, m + c / 2
    tau_m = np.sqrt(s_u**2 + s_w**2 / 2)
    return (
        binom.logpmf(cells.y_a, cells.n_a, expit(eta_a)).sum()
        + binom.logpmf(cells.y_b, cells.n_b, expit(eta_b)).sum()
        + norm.logpdf(m, mu, tau_m).sum()
        + norm.logpdf(c, beta, np.sqrt(2) * s_w).sum()
        + norm.logpdf(mu, 0, 1)
        + norm.logpdf(beta, 0, 1)
        + halfnorm.logpdf(s_u, scale=1.0)
        + np.log(s_u)
        + halfnorm.logpdf(s_w, scale=2.5)
        + np.log(s_w)
    )


def test_integrating_out_u_and_w_gives_the_marginal_used():
    """(U_j + W_jA, U_j + W_jB) with U ~ N(0, s_u), W ~ N(0, s_w) iid: mean and contrast are
    independent N(0, sqrt(s_u^2 + s_w^2/2)) and N(0, sqrt(2) s_w); checked by simulation."""
    rng = np.random.default_rng(0)
    s_u, s_w = 0.7, 0.4
    u = rng.normal(0, s_u, 400_000)
    w = rng.normal(0, s_w, (400_000, 2))
    mean, contrast = u + w.mean(axis=1), w[:, 1] - w[:, 0]
    assert abs(mean.std() - np.sqrt(s_u**2 + s_w**2 / 2)) < 0.005
    assert abs(contrast.std() - np.sqrt(2) * s_w) < 0.005
    assert abs(np.corrcoef(mean, contrast)[0, 1]) < 0.01


@pytest.mark.parametrize("centred", ["none", "all", "mixed"])
def test_density_is_the_papers_model_and_its_gradient_is_exact(centred):
    rng = np.random.default_rng(1)
    J = 7
    n = rng.integers(15, 300, J)
    cells = Cells(tuple(map(str, range(J))), n, rng.binomial(n, 0.6), n, rng.binomial(n, 0.7))
    cm = {"none": np.zeros(J, bool), "all": np.ones(J, bool)}.get(centred, rng.random(J) < 0.5)
    cc = {"none": np.zeros(J, bool), "all": np.ones(J, bool)}.get(centred, rng.random(J) < 0.5)
    d = Density(cells, cm, cc)
    x0 = starts(d, 1, 0)[0]
    diffs = []
    for _ in range(4):
        x = x0 + rng.normal(0, 0.3, d.dim)
        mu, beta, s_u, s_w, tau_m, tau_c, m, c = d.unpack(x)
        # sampled coordinates -> paper's: non-centred entries carry the Jacobian tau per task
        jac = (~cm).sum() * np.log(tau_m) + (~cc).sum() * np.log(tau_c)
        diffs.append(d(x)[0] - (_paper_log_density(cells, mu, beta, s_u, s_w, m, c) + jac))
        g = d(x)[1]
        fd = np.array([(d(x + e)[0] - d(x - e)[0]) / 2e-6 for e in np.eye(d.dim) * 1e-6])
        assert np.max(np.abs(fd - g)) < 1e-4 * max(1.0, np.abs(g).max())
    assert np.ptp(diffs) < 1e-8  # equal up to a constant (log C(n, y))


# -- recovery --------------------------------------------------------------------------------


def test_a_known_effect_is_recovered_and_a_null_is_not_declared():
    rng = np.random.default_rng(3)
    mu, beta = 0.3, 0.4
    effect = 100 * (expit(mu + beta / 2) - expit(mu - beta / 2))
    scores = simulate(rng, 15, beta=beta, sigma_w=0.1, mu=mu)
    table, _, fits = compare(scores, [("A", "B")])
    pop = table[table["scope"] == "population"].iloc[0]
    assert pop["low"] < effect < pop["high"]
    assert pop["low"] > 0 and pop["verdict_bayes"] == "B" and pop["prob_b_better"] > 0.975
    assert pop["low_logodds"] < beta < pop["high_logodds"]
    assert fits[("A", "B")].divergences == 0

    null = simulate(np.random.default_rng(4), 15, beta=0.0, sigma_w=0.05, mu=mu)
    table, _, _ = compare(null, [("A", "B")])
    pop = table[table["scope"] == "population"].iloc[0]
    assert pop["low"] < 0 < pop["high"] and pop["verdict_bayes"] == "-"
    assert pop["verdict_exact"] == "-"


def test_a_fit_that_cannot_converge_is_refused():
    rng = np.random.default_rng(5)
    scores = simulate(rng, 5, beta=0.2, sigma_w=0.2)
    pc = pair_cells(scores, "A", "B")
    with pytest.raises(NotConverged, match="ess_bulk"):
        fit_cells(pc.cells, FitSettings(draws=20, tune=20), label="B vs A")


# -- the exact cross-check -------------------------------------------------------------------


def test_sign_test_is_binomtest():
    for a in range(0, 25):
        for b in range(0, 25, 3):
            want = binomtest(a, a + b, 0.5).pvalue if a + b else 1.0
            assert sign_test(a, b) == pytest.approx(want, rel=1e-12)


def _fisher_by_enumeration(ya, na, yb, nb):
    """Two-sided Fisher: the total probability of the tables with the observed margins that are
    no more likely than the observed one (hypergeometric, by enumeration)."""
    k = ya + yb
    probs = {
        x: comb(na, x, exact=True) * comb(nb, k - x, exact=True)
        for x in range(max(0, k - nb), min(k, na) + 1)
    }
    total = sum(probs.values())
    obs = probs[ya]
    return sum(p for p in probs.values() if p <= obs * (1 + 1e-7)) / total


def test_fisher_is_the_enumerated_exact_test():
    rng = np.random.default_rng(6)
    for _ in range(40):
        na, nb = (int(v) for v in rng.integers(1, 40, 2))
        ya, yb = int(rng.integers(0, na + 1)), int(rng.integers(0, nb + 1))
        assert fisher_test([ya], [na], [yb], [nb])[0] == pytest.approx(
            _fisher_by_enumeration(ya, na, yb, nb), rel=1e-9
        )


def test_cross_check_counts_discordant_items_and_adjusts_by_holm():
    rng = np.random.default_rng(7)
    scores = simulate(rng, 6, beta=0.5, sigma_w=0.3, n_range=(30, 80))
    # one task unpaired: A's outcomes without item ids
    scores = [
        Score(s.model, s.task, s.n, s.correct, s.source) if (s.task, s.model) == ("t05", "A") else s
        for s in scores
    ]
    table, _, _ = compare(scores, [("A", "B")], hierarchical=False)
    by = {(s.model, s.task): s for s in scores}
    tasks = table[table["scope"] == "task"].set_index("task")
    for t, row in tasks.iterrows():
        a, b = by[("A", t)], by[("B", t)]
        if t == "t05":
            assert row["test"] == "fisher"
            want = _fisher_by_enumeration(a.correct, a.n, b.correct, b.n)
        else:
            a_only = int(((a.outcomes == 1) & (b.outcomes == 0)).sum())
            b_only = int(((a.outcomes == 0) & (b.outcomes == 1)).sum())
            assert (row["a_better"], row["b_better"]) == (a_only, b_only)
            want = binomtest(a_only, a_only + b_only, 0.5).pvalue if a_only + b_only else 1.0
        assert row["p_exact"] == pytest.approx(want, rel=1e-9)
    # Holm (1979): sorted p_(i) times (m - i + 1), running maximum, capped at 1
    p = tasks["p_exact"].to_numpy()
    order = np.argsort(p, kind="stable")
    adj = np.minimum(1, np.maximum.accumulate(p[order] * (len(p) - np.arange(len(p)))))
    want = np.empty_like(adj)
    want[order] = adj
    np.testing.assert_allclose(tasks["p_exact_adjusted"].to_numpy(), want, rtol=1e-12)
    pop = table[table["scope"] == "population"].iloc[0]
    wins_b = int((tasks["accuracy_b"] > tasks["accuracy_a"]).sum())
    wins_a = int((tasks["accuracy_b"] < tasks["accuracy_a"]).sum())
    assert (pop["a_better"], pop["b_better"]) == (wins_a, wins_b)
    assert pop["p_exact"] == pytest.approx(binomtest(wins_b, wins_a + wins_b).pvalue, rel=1e-12)


# -- bad input and the CLI -------------------------------------------------------------------


def run(capsys, *argv):
    rc = main(["compare", *map(str, argv)])
    out = capsys.readouterr()
    return rc, out.out, out.err


def _csv(path, rows, header=("model", "task", "n", "correct")):
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)
    return path


def test_real_lm_eval_runs_compared_with_mcnemar_on_their_items(capsys):
    rc, out, err = run(capsys, ZERO, TWO, "--a", ZERO_MODEL, "--b", TWO_MODEL, "--format", "csv",
                       "--exact-only")  # fmt: skip
    assert rc == 0, err
    table = pd.read_csv(io.StringIO(out))
    need = ["model_a", "model_b", "scope", "task", "n", "effect", "low", "high",
            "prob_b_better", "prob_rope", "p_exact", "p_exact_adjusted"]  # fmt: skip
    assert set(need) <= set(table.columns)
    tasks = table[table["scope"] == "task"]
    assert sorted(tasks["task"]) == ["logic_local", "rte_local", "sst2_local"]
    assert (tasks["test"] == "mcnemar").all()
    # discordant counts straight from the samples files
    for t, row in tasks.set_index("task").iterrows():
        acc = {}
        for d, key in ((ZERO, "a"), (TWO, "b")):
            f = next(d.glob(f"samples_{t}_*.jsonl"))
            acc[key] = {
                json.loads(x)["doc_id"]: int(json.loads(x)["acc"])
                for x in f.read_text().splitlines()
                if x.strip()
            }
        a_only = sum(acc["a"][i] and not acc["b"][i] for i in acc["a"])
        b_only = sum(acc["b"][i] and not acc["a"][i] for i in acc["a"])
        assert (row["a_better"], row["b_better"]) == (a_only, b_only)
        assert row["p_exact"] == pytest.approx(binomtest(a_only, a_only + b_only).pvalue)


def test_the_documented_example_prints_what_docs_compare_md_shows():
    """The command of docs/compare.md, as a user runs it (a fresh process, which restarts
    itself with the portable pins), prints the documented table byte for byte."""
    import os
    import re
    import subprocess
    import sys

    doc = (Path(__file__).parents[1] / "docs" / "compare.md").read_text()
    shown = re.search(r"```text\n(B = .*?)```", doc, re.S).group(1)
    env = dict(os.environ, COLUMNS="100")
    cmd = [sys.executable, "-m", "evalsci.cli", "compare", str(ZERO.relative_to(ROOT)),
           str(TWO.relative_to(ROOT)), "--a", ZERO_MODEL, "--b", TWO_MODEL]  # fmt: skip
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout == shown


def test_one_task_refuses_the_hierarchical_model_and_runs_the_exact_test(capsys):
    rc, out, err = run(capsys, FIX / "helm" / "runs", "--a", "simple/model1", "--b",
                       "fixture/parity", "--format", "csv")  # fmt: skip
    if rc == 2 and "unknown model" in err:
        pytest.fail(err)
    assert rc == 0, err
    table = pd.read_csv(io.StringIO(out))
    assert table["effect"].isna().all() and table["p_exact"].notna().all()
    assert "needs at least 2 tasks" in err


def test_bad_input_is_named(capsys, tmp_path):
    f = _csv(tmp_path / "s.csv", [["a", "t1", 10, 5], ["b", "t1", 10, 7], ["a", "t2", 10, 3],
                                  ["c", "t1", 10, 2]])  # fmt: skip
    rc, _, err = run(capsys, f, "--a", "a", "--b", "zz")
    assert rc == 2 and "unknown model 'zz'" in err and "a, b, c" in err
    rc, _, err = run(capsys, f, "--a", "a", "--b", "a")
    assert rc == 2 and "same model" in err
    rc, out, err = run(capsys, f, "--a", "a", "--b", "b", "--exact-only", "--format", "csv")
    assert rc == 0 and "task(s) of a missing for b, dropped: t2" in err
    bad = _csv(tmp_path / "bad.csv", [["a", "t1", 10, 11]])
    rc, _, err = run(capsys, bad, "--a", "a", "--b", "b")
    assert rc == 2 and f"{bad}:2" in err and "correct <= n" in err
    items = _csv(
        tmp_path / "i.csv", [["a", "t1", "q1", "0.5"]], ("model", "task", "item", "correct")
    )
    rc, _, err = run(capsys, items, "--a", "a", "--b", "b")
    assert rc == 2 and f"{items}:2" in err and "0 or 1" in err
    none = _csv(tmp_path / "n.csv", [["a", "t1", 10, 5], ["b", "t2", 10, 5]])
    rc, _, err = run(capsys, none, "--a", "a", "--b", "b")
    assert rc == 3 and "no task in common" in err
    rc, _, err = run(capsys, f, "--a", "a", "--b", "b", "--plot", tmp_path / "x.svg")
    assert rc == 2 and "--plot" in err


def test_not_converged_has_its_own_exit_code(capsys, tmp_path, monkeypatch):
    import evalsci.compare.fit as fit

    orig = fit.FitSettings
    monkeypatch.setattr(fit, "FitSettings", lambda seed: orig(seed=seed, draws=15, tune=15))
    rows = [[m, f"t{j}", 50, 20 + j + (5 if m == "b" else 0)] for j in range(4) for m in "ab"]
    rc, out, err = run(capsys, _csv(tmp_path / "s.csv", rows), "--a", "a", "--b", "b")
    assert rc == 4 and "did not converge" in err and out == ""


def test_table_fits_columns_and_baseline_compares_every_model(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("COLUMNS", "72")
    rows = [[m, f"task_with_a_long_name_{j}", 40, 10 + j + k] for j in range(5)
            for k, m in enumerate("abc")]  # fmt: skip
    f = _csv(tmp_path / "s.csv", rows)
    rc, out, err = run(capsys, f, "--baseline", "a", "--exact-only")
    assert rc == 0, err
    assert max(map(len, out.splitlines())) <= 72
    assert "B = b  vs  A = a" in out and "B = c  vs  A = a" in out
    rc, out, _ = run(capsys, f, "--baseline", "a", "--exact-only", "--format", "json")
    js = json.loads(out)
    assert {(r["model_a"], r["model_b"]) for r in js["rows"]} == {("a", "b"), ("a", "c")}
    # the per-task family spans both pairs
    assert "across the 10 task rows" in " ".join(js["notes"])


def test_plot_writes_png_and_pdf(capsys, tmp_path):
    rows = [[m, f"t{j}", 50, 20 + j + (8 if m == "b" else 0)] for j in range(3) for m in "ab"]
    f = _csv(tmp_path / "s.csv", rows)
    rc, _, err = run(
        capsys, f, "--a", "a", "--b", "b", "--exact-only", "--plot", tmp_path / "f.pdf"
    )
    assert rc == 0, err
    assert (tmp_path / "f.pdf").read_bytes().startswith(b"%PDF")
    assert (tmp_path / "f.png").read_bytes().startswith(b"\x89PNG")
