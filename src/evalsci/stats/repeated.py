"""Tests on repeated 0/1 outcomes of the same items: several prompts (conditions) scored on one
set of validation examples, as mc_icl's Algorithm 1 scores every k on the same 256 examples.

- `mcnemar`: two conditions, the exact two-sided McNemar test (the sign test on the discordant
  items; scipy.stats.binomtest's p-value), and the smallest p-value n items can ever give;
- `cochran_q`: c >= 2 conditions, Cochran's Q test of equal success rates (chi-square with
  c - 1 degrees of freedom; for c = 2 it is McNemar's uncorrected chi-square);
- `two_way_mean`: the mean of a (curves x items) matrix when both the curves (random prompt
  draws) and the items (a validation subsample) are samples, so both add to its uncertainty:
  the two-way random-effects standard error, with Satterthwaite's degrees of freedom.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

__all__ = ["mcnemar", "min_mcnemar_p", "cochran_q", "TwoWayMean", "two_way_mean"]


def _binary(x, name: str) -> np.ndarray:
    a = np.asarray(x)
    if a.dtype == bool:
        return a.astype(np.int64)
    if not np.isin(a, (0, 1)).all():
        raise ValueError(f"{name}: outcomes must be 0/1 or bool")
    return a.astype(np.int64)


def mcnemar(a, b) -> tuple[int, int, float]:
    """(a_only, b_only, p): items right under a but not b, the reverse, and the exact two-sided
    McNemar p-value (binomial sign test on a_only of a_only + b_only at 1/2; 1 with none)."""
    a, b = _binary(a, "a"), _binary(b, "b")
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"mcnemar: a and b must be 1-D of one length, got {a.shape}, {b.shape}")
    a_only, b_only = int(((a == 1) & (b == 0)).sum()), int(((a == 0) & (b == 1)).sum())
    d = a_only + b_only
    p = 1.0 if d == 0 else float(stats.binomtest(a_only, d, 0.5).pvalue)
    return a_only, b_only, p


def min_mcnemar_p(n: int) -> float:
    """The smallest two-sided exact McNemar p-value n items can give (all n discordant one
    way): 2 * 0.5^n, capped at 1. Below alpha only from n = 6 on at alpha = 0.05."""
    return min(1.0, 2.0 * 0.5 ** int(n))


def cochran_q(x) -> tuple[float, int, float]:
    """(Q, df, p) of Cochran's Q test that c conditions have equal success rates, from an
    (items x conditions) 0/1 matrix: Q = (c - 1) (c sum_j C_j^2 - N^2) / (c N - sum_i R_i^2)
    with C_j the column and R_i the row totals, N the grand total; p from chi-square with
    c - 1 df. Rows all 0 or all 1 carry no information (they cancel). With no informative row
    Q is 0 and p is 1."""
    x = _binary(x, "x")
    if x.ndim != 2 or x.shape[1] < 2:
        raise ValueError(f"cochran_q: an (items x conditions >= 2) matrix, got shape {x.shape}")
    c = x.shape[1]
    col, row = x.sum(axis=0), x.sum(axis=1)
    total = int(row.sum())
    denom = c * total - int((row**2).sum())
    if denom == 0:
        return 0.0, c - 1, 1.0
    q = (c - 1) * (c * int((col**2).sum()) - total**2) / denom
    return float(q), c - 1, float(stats.chi2.sf(q, c - 1))


@dataclass(frozen=True)
class TwoWayMean:
    mean: float
    se: float
    df: float

    def interval(self, level: float = 0.95) -> tuple[float, float]:
        """Two-sided t interval at `level` with the Satterthwaite df."""
        h = float(stats.t.ppf(0.5 + level / 2, self.df)) * self.se
        return self.mean - h, self.mean + h

    def p_greater(self, value: float = 0.0) -> float:
        """One-sided p-value of mean > value (t with the Satterthwaite df)."""
        if self.se == 0:
            return 0.0 if self.mean > value else 1.0
        return float(stats.t.sf((self.mean - value) / self.se, self.df))


def two_way_mean(x) -> TwoWayMean:
    """The grand mean of an (R curves x n items) matrix, each curve a random draw of prompts
    and each item a random validation example, with the standard error of the crossed
    random-effects model x_ri = mu + a_r + b_i + e_ri:

        Var(mean) = s_a^2 / R + s_b^2 / n + s_e^2 / (R n) = (MS_R + MS_I - MS_E) / (R n)

    from the two-way ANOVA mean squares (rows, items, residual), floored at MS_E / (R n) so
    that a negative variance-component estimate never shrinks it below the residual's share.
    Degrees of freedom: Satterthwaite's for that combination of mean squares. With one curve
    (R = 1) it is the items' standard error of the mean (n - 1 df)."""
    x = np.asarray(x, dtype=float)
    if x.ndim != 2 or x.shape[1] < 2:
        raise ValueError(f"two_way_mean: an (R x n >= 2) matrix, got shape {x.shape}")
    r, n = x.shape
    mean = float(x.mean())
    if r == 1:
        return TwoWayMean(mean, float(x.std(ddof=1) / np.sqrt(n)), float(n - 1))
    row_m, col_m = x.mean(axis=1, keepdims=True), x.mean(axis=0, keepdims=True)
    ms_r = n * float(((row_m - mean) ** 2).sum()) / (r - 1)
    ms_i = r * float(((col_m - mean) ** 2).sum()) / (n - 1)
    df_e = (r - 1) * (n - 1)
    ms_e = float(((x - row_m - col_m + mean) ** 2).sum()) / df_e
    combo = ms_r + ms_i - ms_e
    if combo <= ms_e:  # the floor: residual variance only
        combo, df = ms_e, float(df_e)
    else:
        df = combo**2 / (ms_r**2 / (r - 1) + ms_i**2 / (n - 1) + ms_e**2 / df_e)
    return TwoWayMean(mean, float(np.sqrt(combo / (r * n))), float(df))
