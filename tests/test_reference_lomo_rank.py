"""The leave-one-model-out by rank of `evalsci reference` (issue 44): its exact expected error of
n random items and its coverage verdicts, against independent computations on made-up rows."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from evalsci.studies.assessors import lomo_rank


@pytest.mark.parametrize(("right", "total", "n"), [(3, 7, 3), (0, 5, 2), (5, 5, 4), (4, 9, 9)])
def test_expected_random_error_is_the_mean_over_every_draw(right, total, n):
    """E|X / n - right / total| over all C(total, n) equally likely draws, enumerated."""
    items = [1] * right + [0] * (total - right)
    errs = [abs(sum(d) / n - right / total) for d in itertools.combinations(items, n)]
    assert len(errs) == math.comb(total, n)
    assert lomo_rank.expected_random_error(right, total, n) == pytest.approx(np.mean(errs))


def _rows(covered_by_model: dict[str, list[int]]) -> pd.DataFrame:
    rows = []
    for rank, (model, cov) in enumerate(covered_by_model.items(), start=1):
        for t, c in enumerate(cov):
            rows.append({"benchmark": "B", "held_out_model": model, "rank": rank, "n_models": 3,
                         "run": model, "task": f"t{t}", "abs_error": 0.01,
                         "reference_mean_error": 0.02, "covered": float(c), "width": 0.2,
                         "out_of_range": "no", "weight_anchor": 0.0})  # fmt: skip
        rows.append({"benchmark": "B", "held_out_model": model, "rank": rank, "n_models": 3,
                     "run": model, "task": lomo_rank.OVERALL, "abs_error": 0.01,
                     "reference_mean_error": 0.02, "random_expected_error": 0.03,
                     "gpirt_error": 0.02, "out_of_range": "no",
                     "weight_anchor": 0.0})  # fmt: skip
    return pd.DataFrame(rows)


def test_a_model_covered_too_rarely_is_below_target_and_others_not():
    """Per model the exact one-sided binomial test of coverage >= 0.85 (p = P(X <= k) under
    Binomial(tasks, 0.85)), Holm over the collection's models: 10 of 24 covered is below the
    target (p ~ 1e-7), 23 of 24 and 20 of 24 are not shown below."""
    from scipy.stats import binom

    rows = _rows({"weak": [1] * 10 + [0] * 14, "mid": [1] * 23 + [0], "strong": [1] * 20 + [0] * 4})
    cov = lomo_rank.tables(rows, extremes=1)["coverage"].set_index("held_out_model")
    p = {m: binom.cdf(k, 24, 0.85) for m, k in (("weak", 10), ("mid", 23), ("strong", 20))}
    assert cov.loc["weak", "p_below_target"] == pytest.approx(p["weak"])
    # Holm over 3: the smallest p times 3
    assert cov.loc["weak", "p_below_target_holm"] == pytest.approx(3 * p["weak"])
    assert cov.loc["weak", "target_verdict"] == "below target"
    assert (
        cov.loc["mid", "target_verdict"]
        == cov.loc["strong", "target_verdict"]
        == ("not shown below")
    )
    assert list(cov.loc[["weak", "mid", "strong"], "group"]) == ["weakest", "middle", "strongest"]
