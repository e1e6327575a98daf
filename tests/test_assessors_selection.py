"""Choosing combinations by average win rate over validation LLMs (Section 4.3)."""

from __future__ import annotations

import pandas as pd
import pytest

from evalsci.studies.assessors.columns import RESULT_COLUMNS
from evalsci.studies.assessors.selection import choose, figure2_table, table3, win_rates


def _row(method, feat, sel, clf, llm, role, eval_set, auc):
    return dict(
        zip(
            RESULT_COLUMNS,
            ["random", method, feat, sel, clf, 100, llm, role, eval_set, auc, 10, 10],
            strict=True,
        )
    )


def test_win_rate_is_not_a_mean_of_aucs():
    # Combination A wins on both validation LLMs by a hair; B has the higher mean AUC because
    # it is much better on the easy LLM only. The paper picks by win rate: A.
    val = pd.DataFrame(
        [
            {"combo": "A", "llm": "easy", "auc": 0.80},
            {"combo": "B", "llm": "easy", "auc": 0.79},
            {"combo": "C", "llm": "easy", "auc": 0.70},
            {"combo": "A", "llm": "hard", "auc": 0.56},
            {"combo": "B", "llm": "hard", "auc": 0.50},
            {"combo": "C", "llm": "hard", "auc": 0.55},
        ]
    )
    val.loc[(val.combo == "B") & (val.llm == "easy"), "auc"] = 0.95
    wr = win_rates(val, ["combo"])
    assert wr["A"] == pytest.approx((0.5 + 1.0) / 2)  # easy: beats C only; hard: beats both
    assert wr["B"] == pytest.approx((1.0 + 0.0) / 2)
    assert wr.idxmax() == "A"
    assert val.groupby("combo")["auc"].mean().idxmax() == "B"


def test_ties_count_half_and_single_label_llms_do_not_vote():
    val = pd.DataFrame(
        [
            {"combo": "A", "llm": "v1", "auc": 0.6},
            {"combo": "B", "llm": "v1", "auc": 0.6},
            {"combo": "A", "llm": "v2", "auc": float("nan")},
            {"combo": "B", "llm": "v2", "auc": float("nan")},
        ]
    )
    wr = win_rates(val, ["combo"])
    assert wr.tolist() == [0.5, 0.5]


def _results():
    rows = []
    for sel, (v1, v2, t) in {
        "random": (0.60, 0.62, 0.70),
        "clustering_embeddings": (0.65, 0.66, 0.61),
    }.items():
        rows += [
            _row("generic", "similarity", sel, "xgboost", "v1", "validation", "validation", v1),
            _row("generic", "similarity", sel, "xgboost", "v2", "validation", "validation", v2),
            _row("generic", "similarity", sel, "xgboost", "x1", "test", "test", t),
        ]
    rows += [
        _row(
            "reference_only",
            "embeddings",
            "random",
            "xgboost",
            "v1",
            "validation",
            "validation",
            0.55,
        ),
        _row(
            "reference_only",
            "embeddings",
            "random",
            "xgboost",
            "v2",
            "validation",
            "validation",
            0.56,
        ),
        _row("reference_only", "embeddings", "random", "xgboost", "x1", "test", "test", 0.52),
        _row("all_train", "embeddings", "", "xgboost", "v1", "validation", "validation", 0.58),
        _row("all_train", "embeddings", "", "xgboost", "v2", "validation", "validation", 0.57),
        _row("all_train", "embeddings", "", "xgboost", "x1", "test", "test", 0.59),
        # specific: chosen by the test LLM's own validation AUC
        _row("specific", "embeddings", "", "xgboost", "x1", "test", "validation", 0.70),
        _row("specific", "embeddings", "", "xgboost", "x1", "test", "test", 0.66),
        _row("specific", "ngram1", "", "xgboost", "x1", "test", "validation", 0.75),
        _row("specific", "ngram1", "", "xgboost", "x1", "test", "test", 0.64),
    ]
    return pd.DataFrame(rows, columns=RESULT_COLUMNS)


def test_figure2_reports_test_auc_of_each_methods_choice():
    res = _results()
    (f, s, c), wr, t, _ = choose(res, "random", "generic")
    assert (s, wr, t) == ("clustering_embeddings", 1.0, 2)
    fig2 = figure2_table(res).set_index("method")["auc"]
    assert list(figure2_table(res).columns) == ["split", "llm", "method", "auc"]
    # The generic assessor's pick won on validation but is worse on test than the random
    # selector's: the figure shows exactly that.
    assert fig2["generic"] == 0.61 and fig2["random_selector"] == 0.70
    assert fig2["reference_only"] == 0.52 and fig2["all_train"] == 0.59
    assert fig2["specific"] == 0.64  # ngram1 had the better validation AUC
    t3 = table3(res)
    assert t3.loc[0, "selector"] == "clustering_embeddings" and t3.loc[0, "n_combinations"] == 2


def test_float_noise_ties_go_to_the_first_combination_in_sorted_order():
    # B's AUCs are A's plus float noise of a different summation order: a tie, not a win. The
    # stated rule then picks A (first in sorted order) although B's raw numbers are larger.
    rows = []
    for llm, auc in (("v1", 0.1 + 0.2), ("v2", 0.7)):
        rows.append(_row("generic", "similarity", "A", "xgb", llm, "validation", "validation", 0.3))
        rows.append(_row("generic", "similarity", "B", "xgb", llm, "validation", "validation", auc))
    res = pd.DataFrame(rows)
    res.loc[(res.selector == "A") & (res.llm == "v2"), "auc"] = 0.7 - 1e-15
    assert res[res.selector == "B"]["auc"].sum() > res[res.selector == "A"]["auc"].sum()
    best, wr, t, _ = choose(res, "random", "generic")
    assert best == ("similarity", "A", "xgb") and wr == 0.5 and t == 2
    # A real difference (1e-6) still wins.
    res.loc[(res.selector == "B") & (res.llm == "v2"), "auc"] = 0.7 + 1e-6
    assert choose(res, "random", "generic")[0] == ("similarity", "B", "xgb")
