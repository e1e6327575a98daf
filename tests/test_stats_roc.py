"""DeLong's AUC variance against an independent brute force: the pair loop of DeLong et al.
(1988), placement values from their definition, in exact fractions."""

from fractions import Fraction

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from evalsci.stats.roc import auc_ci, auc_influence, combined_variance, delong


def _psi(a, b) -> Fraction:
    return Fraction(1) if a > b else Fraction(1, 2) if a == b else Fraction(0)


def _brute(y, scores):
    """DeLong 1988, eqs. for V10, V01, S10, S01, S (several scorers), in exact fractions."""
    pos = [i for i, v in enumerate(y) if v == 1]
    neg = [i for i, v in enumerate(y) if v == 0]
    m, n = len(pos), len(neg)
    v10 = [[sum(_psi(s[i], s[j]) for j in neg) / n for i in pos] for s in scores]
    v01 = [[sum(_psi(s[i], s[j]) for i in pos) / m for j in neg] for s in scores]
    theta = [sum(v) / m for v in v10]
    k = len(scores)
    cov = [[None] * k for _ in range(k)]
    for a in range(k):
        for b in range(k):
            s10 = sum((v10[a][i] - theta[a]) * (v10[b][i] - theta[b]) for i in range(m)) / (m - 1)
            s01 = sum((v01[a][j] - theta[a]) * (v01[b][j] - theta[b]) for j in range(n)) / (n - 1)
            cov[a][b] = s10 / m + s01 / n
    return theta, cov


@pytest.mark.parametrize("seed", range(6))
def test_delong_variance_equals_the_pair_loop(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(8, 40))
    y = rng.integers(0, 2, n)
    y[:2], y[2:4] = 1, 0
    # coarse scores: many ties, which the midranks must count one half
    s = np.round(rng.normal(size=n) + 0.8 * y, 1)
    theta, cov = _brute(y.tolist(), [s.tolist()])
    a, var = delong(y, s)
    assert a == pytest.approx(float(theta[0]), abs=1e-12)
    assert a == pytest.approx(roc_auc_score(y, s), abs=1e-12)
    assert var == pytest.approx(float(cov[0][0]), rel=1e-10)


def test_paired_covariance_equals_delong_1988():
    """Two scorers on the same labels: var(AUC_a - AUC_b) = V_aa + V_bb - 2 V_ab."""
    rng = np.random.default_rng(11)
    y = rng.integers(0, 2, 30)
    s1 = np.round(rng.normal(size=30) + y, 1)
    s2 = np.round(s1 + rng.normal(size=30), 1)
    _, cov = _brute(y.tolist(), [s1.tolist(), s2.tolist()])
    u = [auc_influence(y, s)[1] for s in (s1, s2)]
    want = float(cov[0][0] + cov[1][1] - 2 * cov[0][1])
    assert combined_variance(u, [1, -1]) == pytest.approx(want, rel=1e-10)
    assert combined_variance(u, [0.5, 0.5]) == pytest.approx(
        float(cov[0][0] + cov[1][1] + 2 * cov[0][1]) / 4, rel=1e-10
    )


def test_perfect_separation_has_zero_variance_and_clipped_ci():
    a, var = delong([0, 0, 1, 1], [0.1, 0.2, 0.8, 0.9])
    assert (a, var) == (1.0, 0.0)
    assert auc_ci(a, var) == (1.0, 1.0)
    lo, hi = auc_ci(0.6, 0.01, level=0.95)
    assert lo == pytest.approx(0.6 - 1.959963984540054 * 0.1)
    assert hi == pytest.approx(0.6 + 1.959963984540054 * 0.1)


def test_coverage_under_the_null_is_nominal():
    """Scores independent of labels: the 95% interval covers 0.5 about 95% of the time."""
    rng = np.random.default_rng(3)
    hits = 0
    reps = 2000
    for _ in range(reps):
        y = np.r_[np.ones(60), np.zeros(90)]
        lo, hi = auc_ci(*delong(y, rng.normal(size=150)))
        hits += lo <= 0.5 <= hi
    # binomial SE of a 0.95 share over 2000 draws is 0.005
    assert abs(hits / reps - 0.95) < 0.015


@pytest.mark.parametrize(
    ("y", "s", "msg"),
    [([1, 0, 0, 0], [1, 2, 3, 4], ">= 2 positives"), ([1, 0, 2], [1, 2, 3], "0/1")],
)
def test_bad_input_is_refused(y, s, msg):
    with pytest.raises(ValueError, match=msg):
        delong(y, s)
