"""Test AUCs against 0.5 with DeLong intervals, and the stability of the chosen combinations
(evalsci.studies.assessors.uncertainty), on a synthetic split run in-process."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score
from test_assessors_leakage import LLMS, _collection

from evalsci.studies.assessors import uncertainty
from evalsci.studies.assessors.experiment import SplitData, run_split
from evalsci.studies.assessors.selection import choose, figure2_table
from evalsci.studies.assessors.settings import resolved_settings
from evalsci.studies.assessors.splits import define_splits, make_instance_splits
from evalsci.studies.assessors.steps import _read_runs

# the default preset's settings with these on top (every other value its schema default)
CFG = resolved_settings(
    n_ref=20,
    classifiers=["logreg_l2_C1", "logreg_l1_C1"],
    selectors=["random", "clustering_embeddings"],
    generic_features=["embeddings", "similarity"],
    specific_features=["embeddings"],
    random_best_of_draws=3,
    max_train_rows=0,
)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    inst, succ, emb = _collection(n=300)
    roles = make_instance_splits(inst, define_splits(inst["dataset"], {}), seed=1)["random"]
    data = SplitData("random", emb, succ, roles, LLMS)
    preds: list = []
    res, _ = run_split(data, CFG, seed=3, row_predictions=preds)
    d = tmp_path_factory.mktemp("unc")
    res.to_csv(d / "random.csv.gz", index=False, compression="gzip")
    uncertainty.write_predictions(d / "random_predictions.npz", res, preds, data)
    res = _read_runs([d / "random.csv.gz"])
    stored = uncertainty.RunPredictions.read([d / "random.csv.gz"], [d / "random_predictions.npz"])
    return res, stored


def test_stored_predictions_give_every_rows_auc(run):
    res, stored = run
    for _, r in res.iterrows():
        y, p = stored.get("random", int(r["row"]), r["eval_set"], r["llm"])
        assert (int(y.sum()), int(len(y) - y.sum())) == (r["n_pos"], r["n_neg"])
        assert roc_auc_score(y, p) == pytest.approx(r["auc"], abs=1e-12)


def test_summary_means_are_figure2s_and_se_matches_an_instance_bootstrap(run):
    res, stored = run
    s = uncertainty.test_auc_summary(res, stored).set_index("method")
    fig2 = figure2_table(res).groupby("method")["auc"].mean()
    for m in uncertainty.test_auc_summary(res, stored)["method"]:
        assert s.loc[m, "auc_mean"] == pytest.approx(fig2[m], abs=5e-5)
    # independent check of the cross-LLM variance: bootstrap the test instances (the same
    # draw for both test LLMs) and recompute the generic assessor's mean AUC
    _, _, _, r = choose(res, "random", "generic")
    r = r[r["llm_role"] == "test"]
    yp = [stored.get("random", int(x["row"]), "test", x["llm"]) for _, x in r.iterrows()]
    rng = np.random.default_rng(0)
    n = len(yp[0][0])
    boot = []
    for _ in range(3000):
        i = rng.integers(0, n, n)
        if all(0 < y[i].sum() < n for y, _ in yp):
            boot.append(np.mean([roc_auc_score(y[i], p[i]) for y, p in yp]))
    assert s.loc["generic", "se"] == pytest.approx(np.std(boot), rel=0.12)
    g = s.loc["generic"]
    assert g["diff_vs_generic"] == 0 and g["se_diff_vs_generic"] == 0
    assert g["ci_low"] < g["auc_mean"] < g["ci_high"]


def test_winner_rule_on_the_unresampled_data_is_selections(run):
    res, stored = run
    for method in ("generic", "random_selector", "reference_only"):
        src, keys = uncertainty.COMBO_KEYS[method]
        best, *_ = choose(res, "random", method)
        r = res[(res["method"] == src) & (res["eval_set"] == "validation")]
        r = r[r["llm_role"] == "validation"]
        if method == "random_selector":
            r = r[r["selector"] == "random"]
        combos = sorted(map(tuple, r[keys].drop_duplicates().itertuples(index=False)))
        rows = []
        for m in sorted(r["llm"].unique()):
            g = r[r["llm"] == m].set_index(keys).sort_index()
            y, _ = stored.get("random", int(g["row"].iloc[0]), "validation", m)
            p = np.stack([stored.get("random", int(i), "validation", m)[1] for i in g["row"]])
            a = uncertainty._auc_matrix(y, p)
            np.testing.assert_allclose(a, [roc_auc_score(y, q) for q in p], atol=1e-12)
            rows.append(a)
        assert combos[uncertainty._winner(np.stack(rows))] == tuple(best)


def test_stability_is_a_seeded_share_and_one_for_a_single_candidate(run):
    res, stored = run
    one = res[~((res["method"] == "all_train") & (res["classifier"] == "logreg_l1_C1"))]
    assert uncertainty.winner_stability(one, stored, "random", "all_train", seed=1) == 1.0
    a = uncertainty.winner_stability(res, stored, "random", "generic", seed=1)
    assert a == uncertainty.winner_stability(res, stored, "random", "generic", seed=1)
    assert 0 < a <= 1 and (a * uncertainty.N_RESAMPLES).is_integer()


def test_prediction_file_from_another_run_is_refused(run, tmp_path):
    res, _ = run
    short = tmp_path / "short.csv"
    pd.DataFrame({"split": ["random"]}).to_csv(short, index=False)
    np.savez(
        tmp_path / "p.npz",
        llms=np.array(["a"]),
        validation_rows=np.array([5]),
        test_rows=np.array([0]),
    )
    with pytest.raises(ValueError, match="beyond the 1 rows"):
        uncertainty.RunPredictions.read([short], [tmp_path / "p.npz"])


def test_a_constant_scorer_is_not_above_chance():
    """A scorer that gives every instance the same score has AUC exactly 0.5 and a DeLong
    variance of zero: that is no evidence for H1 (mean AUC > 0.5), so p = 1, never the p = 0
    a zero SE would give by division. Elsewhere p is the normal tail of scipy."""
    from scipy.stats import norm

    from evalsci.stats.roc import auc_influence, combined_variance

    y = np.array([0, 1, 0, 1, 1, 0, 1, 0])
    auc, infl = auc_influence(y, np.full(len(y), 0.3))
    var = combined_variance([infl], [1.0])
    assert (auc, var) == (0.5, 0.0)
    assert uncertainty.p_above_half(auc, var**0.5) == 1.0
    assert uncertainty.p_above_half(1.0, 0.0) == 0.0  # perfect separation on every test LLM
    assert uncertainty.p_above_half(0.62, 0.05) == norm.sf((0.62 - 0.5) / 0.05)


def test_paired_table_is_delong_paired_on_the_chosen_predictions(run):
    """Every pair of methods: the stored difference and SE are DeLong's paired test on the
    chosen combinations' test predictions (computed here from them), and the generic rows
    agree with the summary's differences to the generic assessor."""
    from evalsci.stats.roc import delong_paired

    res, stored = run
    t = uncertainty.paired_differences(res, stored)
    s = uncertainty.test_auc_summary(res, stored).set_index("method")
    methods = list(s.index)
    assert len(t) == len(methods) * (len(methods) - 1) // 2
    chosen = uncertainty._chosen_test_rows(res, "random")

    def yp(method):
        r = chosen[method].sort_values("llm")
        got = [stored.get("random", int(x["row"]), "test", x["llm"]) for _, x in r.iterrows()]
        return np.array([g[0] for g in got]), np.array([g[1] for g in got])

    for _, r in t.iterrows():
        (ya, pa), (yb, pb) = yp(r["method_a"]), yp(r["method_b"])
        assert (ya == yb).all()  # the same LLMs' labels on the same instances
        d = delong_paired(ya, pa, pb)
        assert r["diff"] == pytest.approx(d.diff, abs=5e-5)
        assert r["se"] == pytest.approx(d.se, abs=5e-5)
        assert r["p_two_sided"] == pytest.approx(d.p_two_sided, rel=1e-2, abs=1e-12)
        if r["method_b"] == "generic":
            assert r["diff"] == s.loc[r["method_a"], "diff_vs_generic"]
            assert r["se"] == s.loc[r["method_a"], "se_diff_vs_generic"]
        if r["method_a"] == "generic":
            assert r["diff"] == -s.loc[r["method_b"], "diff_vs_generic"]


def test_resampled_winners_give_the_stability(run):
    res, stored = run
    winners, stab = uncertainty.generic_winner_resamples(res, stored, seed=4)
    assert len(winners) == uncertainty.N_RESAMPLES
    assert stab["random"] == uncertainty.winner_stability(res, stored, "random", "generic", 4)
    best, _, _, _ = choose(res, "random", "generic")
    again = (winners[["features", "selector", "classifier"]] == list(best)).all(axis=1).mean()
    assert again == stab["random"]
