"""ROC AUC with DeLong's variance (DeLong, DeLong & Clarke-Pearson 1988), by midranks.

The AUC of scores s on labels y is the Mann-Whitney statistic: the mean over (positive i,
negative j) pairs of psi(s_i, s_j) = 1 if s_i > s_j, 1/2 if equal, 0 if below. DeLong's
variance uses the placement values V10_i = mean_j psi(s_i, s_j) (one per positive) and
V01_j = mean_i psi(s_i, s_j) (one per negative):

    var(AUC) = S10 / m + S01 / n,   S10 = sum_i (V10_i - AUC)^2 / (m - 1),  S01 likewise,

with m positives and n negatives. The placement values come from midranks (Sun & Xu 2014),
O(N log N) instead of the O(m n) pair loop (the tests compare both).

`auc_influence` writes the same quantities as one value per instance, scaled so that the sum
of squares is DeLong's variance. Sums of these vectors over AUCs computed on the same
instances (several LLMs, several scorers) give the variance of a mean or a difference of
AUCs with the instance as the sampling unit: for two scorers on the same labels this is
DeLong's paired covariance exactly; across LLMs with different labels it is its natural
extension (each instance contributes its placement terms to every AUC it enters).

`delong_paired` is DeLong's paired test of two scorers on the same instances (one LLM's labels,
or the mean over several LLMs' labels on those instances): the difference of AUCs, its SE
from those vectors, and its z test.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.stats import norm, rankdata

__all__ = [
    "AucDifference",
    "auc_influence",
    "delong",
    "auc_ci",
    "auc_difference",
    "combined_variance",
    "delong_paired",
    "hanley_mcneil_se",
]


def _check(y, s) -> tuple[np.ndarray, np.ndarray]:
    y = np.asarray(y)
    s = np.asarray(s, float)
    if y.ndim != 1 or s.shape != y.shape:
        raise ValueError(f"labels and scores must be 1-d of equal length, got {y.shape}, {s.shape}")
    if not np.isin(y, (0, 1)).all():
        raise ValueError("labels must be 0/1")
    if np.isnan(s).any():
        raise ValueError("scores contain NaN")
    return y.astype(bool), s


def auc_influence(y, s) -> tuple[float, np.ndarray]:
    """(AUC, per-instance influence vector u) with sum(u**2) = DeLong's variance.

    u_i = (V10_i - AUC) / sqrt(m (m - 1)) for a positive instance and
    (V01_i - AUC) / sqrt(n (n - 1)) for a negative one. Needs m, n >= 2 (else ValueError)."""
    y, s = _check(y, s)
    m, n = int(y.sum()), int((~y).sum())
    if m < 2 or n < 2:
        raise ValueError(f"DeLong's variance needs >= 2 positives and >= 2 negatives, got {m}, {n}")
    r_all = rankdata(s)  # midranks over every instance
    r_pos, r_neg = rankdata(s[y]), rankdata(s[~y])
    v10 = (r_all[y] - r_pos) / n  # share of negatives below each positive (ties 1/2)
    v01 = 1.0 - (r_all[~y] - r_neg) / m  # share of positives above each negative
    a = float(v10.mean())
    u = np.empty(len(s))
    u[y] = (v10 - a) / math.sqrt(m * (m - 1))
    u[~y] = (v01 - a) / math.sqrt(n * (n - 1))
    return a, u


def delong(y, s) -> tuple[float, float]:
    """(AUC, DeLong's variance of it)."""
    a, u = auc_influence(y, s)
    return a, float(u @ u)


def combined_variance(influences, weights) -> float:
    """Variance of sum_k w_k AUC_k for AUCs on the same instances (influence vectors of equal
    length, one per AUC): the sum over instances of (sum_k w_k u_k)^2."""
    u = np.asarray(influences, float)
    w = np.asarray(weights, float)
    if u.ndim != 2 or len(w) != len(u):
        raise ValueError("one weight per influence vector")
    g = w @ u
    return float(g @ g)


def auc_ci(auc: float, var: float, level: float = 0.95) -> tuple[float, float]:
    """Wald interval auc +- z sqrt(var), clipped to [0, 1]."""
    z = float(norm.ppf(0.5 + level / 2))
    h = z * math.sqrt(var)
    return max(0.0, auc - h), min(1.0, auc + h)


@dataclass(frozen=True)
class AucDifference:
    """AUC_a - AUC_b (each a mean over the same LLMs) with its paired DeLong SE and z test."""

    auc_a: float
    auc_b: float
    diff: float
    se: float
    z: float
    p_greater: float  # one-sided p of H1: AUC_a > AUC_b
    p_two_sided: float
    n_llms: int


def _z_test(diff: float, se: float) -> tuple[float, float, float]:
    """(z, one-sided p of H1 diff > 0, two-sided p). SE 0 happens only where every placement
    value of both scorers is equal: identical rankings (diff 0, no evidence: p 1) or both
    separating perfectly; a nonzero diff with SE 0 is then certain."""
    if se > 0:
        z = diff / se
        return z, float(norm.sf(z)), float(2 * norm.sf(abs(z)))
    if diff == 0:
        return 0.0, 1.0, 1.0
    return math.copysign(math.inf, diff), float(diff < 0), 0.0


def auc_difference(
    aucs_a: Sequence[float],
    u_a: Sequence[np.ndarray],
    aucs_b: Sequence[float],
    u_b: Sequence[np.ndarray],
) -> AucDifference:
    """mean(aucs_a) - mean(aucs_b) over k LLMs, from each AUC and its influence vector
    (`auc_influence`, all on the same instances): the variance is `combined_variance` with
    weights 1/k and -1/k, DeLong's paired covariance for k = 1."""
    k = len(aucs_a)
    if not k or not len(aucs_b) == len(u_a) == len(u_b) == k:
        raise ValueError("auc_difference: one AUC and one influence vector per LLM, same LLMs")
    a, b = float(np.mean(aucs_a)), float(np.mean(aucs_b))
    diff = a - b
    se = math.sqrt(combined_variance(list(u_a) + list(u_b), [1 / k] * k + [-1 / k] * k))
    z, p1, p2 = _z_test(diff, se)
    return AucDifference(a, b, diff, se, z, p1, p2, k)


def delong_paired(y, scores_a, scores_b) -> AucDifference:
    """DeLong's paired test of AUC_a - AUC_b for scorers a and b on the same instances.

    `y`, `scores_a`, `scores_b`: 1-d (one LLM) or 2-d with one row per LLM (the difference of
    the mean AUCs over the LLMs, every row on the same instances). Each row needs >= 2
    positives and >= 2 negatives."""
    y, sa, sb = (np.atleast_2d(np.asarray(v)) for v in (y, scores_a, scores_b))
    if not y.shape == sa.shape == sb.shape:
        raise ValueError(f"delong_paired: shapes differ: {y.shape}, {sa.shape}, {sb.shape}")
    fa = [auc_influence(yi, si) for yi, si in zip(y, sa, strict=True)]
    fb = [auc_influence(yi, si) for yi, si in zip(y, sb, strict=True)]
    return auc_difference(
        [f[0] for f in fa], [f[1] for f in fa], [f[0] for f in fb], [f[1] for f in fb]
    )


def hanley_mcneil_se(auc: float, n_pos: int, n_neg: int) -> float:
    """The SE of an AUC from itself and the class sizes alone (Hanley & McNeil 1982, eq. 2,
    with Q1 = A / (2 - A), Q2 = 2 A^2 / (1 + A): exact under exponential score
    distributions), for tables that keep AUCs but not the scores DeLong's variance needs."""
    a, m, n = float(auc), int(n_pos), int(n_neg)
    if not 0 <= a <= 1 or m < 1 or n < 1:
        raise ValueError(
            f"hanley_mcneil_se: need 0 <= AUC <= 1 and both classes, got {a}, {m}, {n}"
        )
    q1, q2 = a / (2 - a), 2 * a * a / (1 + a)
    var = (a * (1 - a) + (m - 1) * (q1 - a * a) + (n - 1) * (q2 - a * a)) / (m * n)
    return math.sqrt(max(var, 0.0))
