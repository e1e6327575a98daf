"""Exact tests of two systems' 0/1 outcomes: one implementation for `evalsci compare`'s
cross-check and `evalsci audit --compare`'s paired tests.

- `sign_test(a_only, b_only)`: McNemar's exact test on the discordant items of two systems
  on the same items (a right and b wrong: a_only; the reverse: b_only), i.e. the two-sided
  binomial sign test, p = P(|X - d/2| >= |a_only - d/2|) for X ~ Binomial(d, 1/2),
  d = a_only + b_only: scipy.stats.binomtest's two-sided p-value. Across tasks, the same test
  on the numbers of tasks each system wins is the exact sign test of the median difference.
- `fisher_test(y_a, n_a, y_b, n_b)`: Fisher's exact test of two proportions on different items
  (two-sided, scipy.stats.fisher_exact: the sum of the hypergeometric probabilities no larger
  than the observed table's). Conditional on the margins, so it keeps its level whatever the
  common accuracy.
"""

from __future__ import annotations

import numpy as np


def sign_test(a_only, b_only) -> np.ndarray:
    """Exact two-sided sign test (McNemar's exact test) on discordant counts, vectorised:
    2 P(X <= min) for X ~ Binomial(a + b, 1/2), capped at 1 (the distribution is symmetric, so
    this is the sum of the probabilities no larger than the observed one; binomtest's rule);
    1 where there is no discordant item."""
    from scipy.stats import binom

    a = np.asarray(a_only, dtype=np.int64)
    b = np.asarray(b_only, dtype=np.int64)
    d = a + b
    with np.errstate(invalid="ignore"):
        p = np.minimum(1.0, 2.0 * binom.cdf(np.minimum(a, b), d, 0.5))
    return np.where(d == 0, 1.0, p)


def fisher_test(y_a, n_a, y_b, n_b) -> np.ndarray:
    """Fisher's exact two-sided test of y_a / n_a against y_b / n_b, per entry."""
    from scipy.stats import fisher_exact

    out = [
        fisher_exact([[ya, na - ya], [yb, nb - yb]]).pvalue
        for ya, na, yb, nb in zip(
            np.asarray(y_a, np.int64).tolist(),
            np.asarray(n_a, np.int64).tolist(),
            np.asarray(y_b, np.int64).tolist(),
            np.asarray(n_b, np.int64).tolist(),
            strict=True,
        )
    ]
    return np.minimum(1.0, np.asarray(out, dtype=float))
