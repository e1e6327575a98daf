"""DeLong's AUC variance against an independent brute force: the pair loop of DeLong et al.
(1988), placement values from their definition, in exact fractions."""

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import norm
from sklearn.metrics import roc_auc_score

from evalsci.stats.roc import (
    auc_ci,
    auc_influence,
    combined_variance,
    delong,
    delong_paired,
    hanley_mcneil_se,
)


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


@pytest.mark.parametrize("seed", range(4))
def test_paired_delong_test_equals_the_1988_pair_loop(seed):
    """One LLM: the SE of AUC_a - AUC_b is sqrt(V_aa + V_bb - 2 V_ab) of the pair loop, and the
    z test is diff / SE with normal tails."""
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(12, 40))
    y = rng.integers(0, 2, n)
    y[:2], y[2:4] = 1, 0
    a = np.round(rng.normal(size=n) + y, 1)
    b = np.round(rng.normal(size=n) + 0.3 * y, 1)
    theta, cov = _brute(y.tolist(), [a.tolist(), b.tolist()])
    r = delong_paired(y, a, b)
    se = math.sqrt(float(cov[0][0] + cov[1][1] - 2 * cov[0][1]))
    assert r.diff == pytest.approx(float(theta[0] - theta[1]), abs=1e-12)
    assert r.se == pytest.approx(se, rel=1e-10)
    assert r.p_two_sided == pytest.approx(2 * norm.sf(abs(r.diff) / se), rel=1e-9)
    assert r.p_greater == pytest.approx(norm.sf(r.diff / se), rel=1e-9)


def test_paired_difference_of_means_over_llms_matches_an_instance_bootstrap():
    """Several LLMs on the same instances: the SE of the difference of mean AUCs is the SD of
    that difference over resampled instances (an independent computation: the AUC from its
    pairwise definition on each bootstrap sample)."""

    def auc(y, s):  # mean over (positive, negative) pairs of 1[s_pos > s_neg] + 1/2 on ties
        d = s[y == 1][:, None] - s[y == 0][None, :]
        return float(np.mean((d > 0) + 0.5 * (d == 0)))

    rng = np.random.default_rng(7)
    n, k = 400, 3
    signal = rng.normal(size=n)
    y = (signal[None, :] + rng.normal(size=(k, n)) > 0).astype(int)
    a = np.repeat(signal[None, :] + rng.normal(size=n), k, axis=0)  # one scorer for all LLMs
    b = signal[None, :] * 0.5 + rng.normal(size=(k, n))  # a weaker one, per LLM
    r = delong_paired(y, a, b)
    diffs = []
    for _ in range(2000):
        i = rng.integers(0, n, n)
        diffs.append(np.mean([auc(y[j, i], a[j, i]) - auc(y[j, i], b[j, i]) for j in range(k)]))
    # the bootstrap SD of 2000 draws is within about 2% of its limit; DeLong's SE to ~7%
    assert r.se == pytest.approx(np.std(diffs, ddof=1), rel=0.07)
    assert r.n_llms == k and r.diff == pytest.approx(r.auc_a - r.auc_b)


def test_paired_test_holds_its_level_under_the_null():
    """Two scorers with the same signal: the two-sided test at 0.05 rejects about 5% of the
    time (binomial SE 0.005 over 2000 draws)."""
    rng = np.random.default_rng(5)
    rejections = 0
    reps = 2000
    for _ in range(reps):
        s = rng.normal(size=120)
        y = (s + rng.normal(size=120) > 0).astype(int)
        r = delong_paired(y, s + rng.normal(size=120), s + rng.normal(size=120))
        rejections += r.p_two_sided < 0.05
    assert abs(rejections / reps - 0.05) < 0.015


def test_identical_scorers_are_no_evidence():
    y = np.array([0, 0, 1, 1, 0, 1])
    s = np.array([0.1, 0.4, 0.35, 0.8, 0.2, 0.9])
    r = delong_paired(y, s, s)
    assert (r.diff, r.se, r.z, r.p_greater, r.p_two_sided) == (0.0, 0.0, 0.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="shapes differ"):
        delong_paired(y, s, s[:-1])


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


def test_hanley_mcneil_se_is_the_auc_spread_under_exponential_scores():
    """Negatives ~ Exp(1), positives ~ Exp(1/3): AUC = 3/4 and Hanley & McNeil's formula is
    exact; the SD of the AUC over 2000 simulated samples (SE about 1.6% of it) matches."""
    rng = np.random.default_rng(9)
    m, n = 40, 60
    y = np.r_[np.ones(m), np.zeros(n)]
    aucs = [delong(y, np.r_[rng.exponential(3, m), rng.exponential(1, n)])[0] for _ in range(2000)]
    assert np.mean(aucs) == pytest.approx(0.75, abs=0.005)
    assert hanley_mcneil_se(0.75, m, n) == pytest.approx(np.std(aucs, ddof=1), rel=0.06)
    with pytest.raises(ValueError, match="both classes"):
        hanley_mcneil_se(0.7, 0, 5)
