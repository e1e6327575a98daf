"""The far tails of the count distributions, against exact rational arithmetic.

A Poisson binomial's cdf and sf must be relative-exact (1e-9 asked, about 1e-12 reached) down
to the smallest normal double and never 0 above it (issue 45: the convolution's truncation
lost 6e-6 near 1e-196 and gave 0 below about 1e-202). The reference is the exact pmf: the
binomial groups' terms C(m, j) (L - 1)^(m - j) / L^m as Python integers over one common
denominator, convolved exactly, summed exactly, and rounded once (`Fraction` -> float is
correctly rounded).
"""

from __future__ import annotations

import sys
from fractions import Fraction
from math import comb

import numpy as np
import pytest

from evalsci.maxrandom import standard_lower_tail, standard_tail
from evalsci.maxrandom.binomial import BinomialCounts
from evalsci.maxrandom.poisson_binomial import count_distribution

TINY = sys.float_info.min  # the smallest normal double, 2.2e-308
REL = 1e-9


def exact_pmf(groups: dict[int, int]) -> tuple[list[int], int]:
    """Numerators of P(X = j), j = 0..n, over one denominator: X is the sum of independent
    Binomial(m, 1 / L) for each {L: m}."""
    pmf, den = [1], 1
    for labels, m in groups.items():
        g = [comb(m, j) * (labels - 1) ** (m - j) for j in range(m + 1)]
        new = [0] * (len(pmf) + m)
        for i, a in enumerate(pmf):
            for j, b in enumerate(g):
                new[i + j] += a * b
        pmf, den = new, den * labels**m
    return pmf, den


def exact_tails(groups):
    """(P(X <= k), P(X > k)) for k = 0..n, each rounded once from its exact value."""
    pmf, den = exact_pmf(groups)
    total = sum(pmf)
    assert total == den
    cdf, acc = [], 0
    for v in pmf:
        acc += v
        cdf.append(acc)
    return (
        np.array([float(Fraction(c, den)) for c in cdf]),
        np.array([float(Fraction(den - c, den)) for c in cdf]),
    )


GROUPS = {2: 900, 4: 300, 5: 200}  # n = 1400: both tails fall below the smallest normal


@pytest.fixture(scope="module")
def exact():
    return exact_tails(GROUPS)


def _check(got: np.ndarray, want: np.ndarray) -> None:
    normal = want >= TINY
    rel = np.abs(got[normal] - want[normal]) / want[normal]
    assert rel.max() < REL, (rel.max(), int(np.argmax(rel)))
    assert np.all(got[normal] > 0)


def test_poisson_binomial_tails_exact_down_to_the_smallest_normal(exact):
    n = sum(GROUPS.values())
    cdf, sf = count_distribution(n, GROUPS).cdf_sf(np.arange(n + 1))
    want_cdf, want_sf = exact
    # the test reaches the far tail on both sides, 1e-250 included
    assert want_sf[want_sf > 0].min() < TINY and want_cdf.min() < TINY
    assert np.any((want_sf > 1e-251) & (want_sf < 1e-249))
    assert np.any((want_cdf > 1e-251) & (want_cdf < 1e-249))
    _check(cdf, want_cdf)
    _check(sf, want_sf)


def test_poisson_binomial_p_values_at_1e_250(exact):
    """The audit's p-values (P(X >= correct) and P(X <= correct)) where the exact value is
    about 1e-250: the scalar path the judge takes, one count at a time."""
    n = sum(GROUPS.values())
    want_cdf, want_sf = exact
    with np.errstate(divide="ignore"):  # log10(0) = -inf beyond the double range: not picked
        k_up = int(np.argmin(np.abs(np.log10(want_sf) + 250)))  # P(X > k_up) ~ 1e-250
        k_lo = int(np.argmin(np.abs(np.log10(want_cdf) + 250)))  # P(X <= k_lo) ~ 1e-250
    got = standard_tail(k_up + 1, n, GROUPS)
    assert abs(got - want_sf[k_up]) <= REL * want_sf[k_up]
    got = standard_lower_tail(k_lo, n, GROUPS)
    assert abs(got - want_cdf[k_lo]) <= REL * want_cdf[k_lo]


@pytest.mark.parametrize(("n", "labels"), [(2000, 2), (1000, 4)])
def test_binomial_far_tail_exact(n, labels):
    """One group (Boost's incomplete beta through scipy): exact down to the smallest normal."""
    want_cdf, want_sf = exact_tails({labels: n})
    cdf, sf = BinomialCounts(n, 1 / labels).cdf_sf(np.arange(n + 1))
    _check(cdf, want_cdf)
    _check(sf, want_sf)
