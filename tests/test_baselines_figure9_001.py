"""001's Figure 9: p-values of BIG-bench normalized scores under the max random baseline,
and the prose claims docs/notes/baselines.md checks against the paper (001, Appendix A)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binom

from evalsci.data.bigbench_meta import BBH_TASKS, BBL_TASKS
from evalsci.maxrandom import max_random_baseline, max_random_tail
from evalsci.studies.baselines import curves


@pytest.mark.parametrize(("n", "k"), [(32, 5), (46, 2), (16076, 3)])
def test_normalized_score_counts(n, k):
    """A normalized score s is accuracy p + s/100 (1 - p): 0 is chance, 100 every item."""
    c = curves.normalized_score_counts(n, k, scores=[0, 100])
    assert c[-1] == n
    assert abs(c[0] - n / k) <= 0.5 + 1e-9


def _p_at_score(n, k, t, score):
    (c,) = curves.normalized_score_counts(n, k, scores=[score])
    return float(max_random_tail(int(c), n, 1 / k, t))


def test_standard_tail_is_the_binomial_survival_function():
    n, k = 175, 4
    (c,) = curves.normalized_score_counts(n, k, scores=[10])
    assert _p_at_score(n, k, 1, 10) == pytest.approx(binom.sf(c - 1, n, 1 / k), rel=1e-9)
    # best of t independent classifiers: 1 - (1 - p)^t
    p1 = binom.sf(c - 1, n, 1 / k)
    assert _p_at_score(n, k, 10, 10) == pytest.approx(1 - (1 - p1) ** 10, rel=1e-9)


def test_prose_claims_of_the_paper_on_the_bbl_tasks():
    # t = 1, normalized score 10: p-values from near 0 to about a third across the BBL tasks
    ps = [_p_at_score(n, k, 1, 10) for n, k in BBL_TASKS.values()]
    assert min(ps) < 1e-100 and 0.3 < max(ps) < 0.35
    # ... and above 0.5 with two evaluations
    assert max(_p_at_score(n, k, 2, 10) for n, k in BBL_TASKS.values()) > 0.5

    def gains(t):
        return [100 * (max_random_baseline(n, 1 / k, t) - 1 / k) for n, k in BBL_TASKS.values()]

    # the four tasks of 10,000 or more examples gain less than 1 point (t = 10, 20, 50)
    big = sum(n >= 10_000 for n, _ in BBL_TASKS.values())
    assert big == 4
    for t in (10, 20, 50):
        assert sum(g < 1 for g in gains(t)) == 4
    # "three more than 10 points": 2 at t = 10, 3 at t = 20 and 50
    assert [sum(g > 10 for g in gains(t)) for t in (10, 20, 50)] == [2, 3, 3]


def test_requests_cover_the_figure():
    want = curves.figure9_001_keys()
    n_keys = sum(
        len(np.unique(curves.normalized_score_counts(n, k)))
        for n, k in (*BBL_TASKS.values(), *BBH_TASKS.values())
    ) * len(curves.FIG9_001_TS)
    assert len(want) <= n_keys and want <= curves.analytic_keys()


def test_no_reading_we_tried_gives_the_papers_half_at_one_evaluation():
    """001 Figure 9 at t = 1 (as the figure states): a normalized score of 10 reaches the
    paper's 0.5 p-value on no BBL task under the readings we tried (docs/notes/baselines.md; the
    ledger's f9_001_range says differs_unexplained): each task's exact n, Table 1's
    n = N - shots or the subsample's min(200, N), the count rounded, floored, or the authors'
    floor(n acc - 1) + 1; the largest is known_unknowns' 0.33. Two evaluations give 0.55."""
    import math

    for n0, k in BBL_TASKS.values():
        p = 1 / k
        acc = p + 0.10 * (1 - p)
        for n in {n0, min(200, n0), *(n0 - s for s in (1, 2, 4) if n0 < 200)}:
            for c in {round(n * acc), math.floor(n * acc), math.floor(n * acc - 1) + 1}:
                assert binom.sf(c - 1, n, p) < 0.45, (n0, k, n, c)
    n, k = BBL_TASKS["known_unknowns"]
    (c,) = curves.normalized_score_counts(n, k, scores=[10])
    assert binom.sf(c - 1, n, 0.5) == pytest.approx(0.3294, abs=1e-4)
    assert 1 - binom.cdf(c - 1, n, 0.5) ** 2 == pytest.approx(0.5503, abs=1e-4)
