"""The max random baseline against an independent high-precision computation (mpmath).

The reference builds the binomial (or Poisson-binomial) pmf term by term in 40-digit
arithmetic, sums tails from the top, and evaluates E[max] = sum_k 1 - F(k-1)^t (paper eq. 8-9
rearranged) and P(max >= c) = 1 - F(c-1)^t (eq. 11) at that precision. It shares no code with
evalsci.maxrandom (no scipy, no windows from Bernstein bounds: it sums +-20 sd and beyond).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from evalsci.maxrandom import (
    max_cdf,
    max_pmf,
    max_random_baseline,
    max_random_tail,
    standard_tail,
)
from evalsci.maxrandom.binomial import BinomialCounts
from evalsci.maxrandom.max_order import expected_max_count
from evalsci.maxrandom.poisson_binomial import PoissonBinomialCounts

DPS = 40
REL = 1e-10


def mp_binomial_pmf(n: int, p, zs: float = 20.0) -> dict[int, mpmath.mpf]:
    """pmf on [mean - zs sd - 60, mean + zs sd + 60], by the ratio recurrence from its low end."""
    p = mpmath.mpf(p)
    q = 1 - p
    mu, sd = n * p, mpmath.sqrt(n * p * q)
    lo = max(0, int(mu - zs * sd - 60))
    hi = min(n, int(mu + zs * sd + 60))
    pmf = {lo: mpmath.binomial(n, lo) * p**lo * q ** (n - lo)}
    for k in range(lo, hi):
        pmf[k + 1] = pmf[k] * (n - k) / (k + 1) * p / q
    return pmf


def mp_convolve(a: dict, b: dict) -> dict:
    out: dict[int, mpmath.mpf] = {}
    for i, x in a.items():
        for j, y in b.items():
            out[i + j] = out.get(i + j, mpmath.mpf(0)) + x * y
    return out


def mp_tails(pmf: dict) -> tuple[int, int, dict]:
    """(lo, hi, S) with S[k] = P(X > k), summed from the top."""
    lo, hi = min(pmf), max(pmf)
    S, acc = {}, mpmath.mpf(0)
    for k in range(hi, lo - 1, -1):
        S[k] = acc
        acc += pmf.get(k, 0)
    return lo, hi, S


def mp_tail_max(S: dict, lo: int, hi: int, c: int, t) -> mpmath.mpf:
    """P(max >= c) = 1 - (1 - S(c-1))^t."""
    if c <= lo:
        return mpmath.mpf(1)
    if c - 1 > hi:
        return mpmath.mpf(0)
    s = S[c - 1]
    return mpmath.mpf(1) if s >= 1 else -mpmath.expm1(mpmath.mpf(t) * mpmath.log1p(-s))


def mp_expected_max(pmf: dict, n: int, t) -> mpmath.mpf:
    lo, hi, S = mp_tails(pmf)
    total = mpmath.mpf(lo)  # k = 1..lo: P(max >= k) = 1 - O(e^-200)
    for k in range(lo + 1, hi + 1):
        total += mp_tail_max(S, lo, hi, k, t)
    return total / n


def rel(a, b) -> float:
    return float(abs(mpmath.mpf(a) - b) / abs(b))


@pytest.mark.parametrize(
    "n,p,ts",
    [
        (1, 0.5, [1, 10, 1e12]),
        (7, 0.3, [1, 3, 1e6]),
        (100, 0.5, [1, 10, 200, 1e12]),
        (200, 0.25, [1, 200, 1e9]),
        (10_000, 0.5, [1, 200, 1e12]),
        (1000, 0.001, [1, 1e12]),
        (1_000_000, 0.5, [1, 1e12]),
        (1_000_000, 0.1, [1e6]),
    ],
)
def test_expected_max_binomial_matches_mpmath(n, p, ts):
    with mpmath.workdps(DPS):
        pmf = mp_binomial_pmf(n, p)
        ours = max_random_baseline(n, p, ts)  # vectorised over t
        for t, x in zip(ts, ours, strict=True):
            e = mp_expected_max(pmf, n, t)
            assert rel(x, e) < REL, (n, p, t, x, e)
            assert rel(max_random_baseline(n, p, t), e) < REL  # scalar path


@pytest.mark.parametrize("n,p", [(100, 0.5), (10_000, 0.25), (1_000_000, 0.5)])
def test_tails_match_mpmath(n, p):
    """Standard and max tails (eq. 10-11) across the whole range, including far tails."""
    with mpmath.workdps(DPS):
        pmf = mp_binomial_pmf(n, p)
        lo, hi, S = mp_tails(pmf)
        sd = math.sqrt(n * p * (1 - p))
        cs = sorted({max(lo + 1, min(hi, int(n * p + z * sd))) for z in (-8, -2, 0, 1, 3, 6, 12)})
        ts = np.array([1, 10, 1e4, 1e12])
        ours = max_random_tail(np.array(cs)[:, None], n, p, ts[None, :])
        assert ours.shape == (len(cs), 4)
        for i, c in enumerate(cs):
            assert rel(standard_tail(c, n, p), mp_tail_max(S, lo, hi, c, 1)) < REL
            for j, t in enumerate(ts):
                e = mp_tail_max(S, lo, hi, c, t)
                assert rel(ours[i, j], e) < REL, (c, t, ours[i, j], e)


def test_pmf_cdf_match_mpmath():
    n, p, t = 60, 0.3, 25
    with mpmath.workdps(DPS):
        pmf = mp_binomial_pmf(n, p, zs=100)
        F, acc = {}, mpmath.mpf(0)
        for k in range(n + 1):
            acc += pmf[k]
            F[k] = acc
        ref_cdf = [F[k] ** t for k in range(n + 1)]
        ref_pmf = [F[k] ** t - (F[k - 1] ** t if k else 0) for k in range(n + 1)]
    ours_pmf, ours_cdf = max_pmf(n, p, t), max_cdf(n, p, t)
    assert ours_pmf.shape == ours_cdf.shape == (n + 1,)
    for k in range(n + 1):
        if ref_pmf[k] > 1e-300:
            assert rel(ours_pmf[k], ref_pmf[k]) < 1e-9, k
            assert rel(ours_cdf[k], ref_cdf[k]) < 1e-9, k
    assert abs(ours_pmf.sum() - 1) < 1e-12
    # array t gives one row per t
    assert max_pmf(n, p, [1, t]).shape == (2, n + 1)
    np.testing.assert_allclose(max_pmf(n, p, [1, t])[1], ours_pmf, rtol=1e-14)


def test_poisson_binomial_dict_matches_mpmath():
    """Dict form {labels: examples} = convolution of binomials (paper Appendix A)."""
    labels = {2: 100, 3: 70, 5: 30}
    n = sum(labels.values())
    with mpmath.workdps(DPS):
        pmf = {0: mpmath.mpf(1)}
        for lab, cnt in labels.items():
            pmf = mp_convolve(pmf, mp_binomial_pmf(cnt, mpmath.mpf(1) / lab, zs=1000))
        lo, hi, S = mp_tails(pmf)
        for t in (1, 10, 200, 1e12):
            assert rel(max_random_baseline(n, labels, t), mp_expected_max(pmf, n, t)) < REL
        for c in (60, 100, 140, 180):
            for t in (1, 50):
                assert rel(max_random_tail(c, n, labels, t), mp_tail_max(S, lo, hi, c, t)) < REL


def test_poisson_binomial_convolution_exact_at_one_million():
    """Bin(a, p) * Bin(b, p) = Bin(a + b, p): the convolution path at n = 1e6 reproduces the
    (mpmath-checked) binomial path to 1e-10, for E[max] and for tails deep in both ends."""
    n = 1_000_000
    pb = PoissonBinomialCounts(n, [(0.5, 400_000), (0.5, 600_000)])
    b = BinomialCounts(n, 0.5)
    t = np.array([1.0, 200.0, 1e12])
    np.testing.assert_allclose(expected_max_count(pb, t), expected_max_count(b, t), rtol=REL)
    k = np.array([495_000, 499_000, 500_000, 502_000, 505_000, 510_000])
    for a, e in zip(pb.cdf_sf(k), b.cdf_sf(k), strict=True):
        np.testing.assert_allclose(a, e, rtol=REL)


def test_no_overflow_or_nan_at_extremes():
    for n in (1, 2, 1000, 1_000_000):
        for p in (1e-9, 0.5, 1 - 1e-9, 1.0):
            v = max_random_baseline(n, p, [1, 1e12])
            assert np.all(np.isfinite(v)) and np.all((v >= 0) & (v <= 1))
            assert abs(v[0] - p) < 1e-12
            tails = max_random_tail(np.array([0, 1, n // 2, n]), n, p, 1e12)
            assert np.all(np.isfinite(tails))
    assert max_random_baseline(50, 1.0, 10) == 1.0


def test_poisson_binomial_distinct_per_example_matches_mpmath():
    """All-distinct per-example p (the vectorised Bernoulli-block path plus tree convolution)
    against a 40-digit one-example-at-a-time DP."""
    rng = np.random.default_rng(11)
    ps = rng.uniform(0.02, 0.98, size=150)  # 150 > 2 blocks of 64
    ps[:10] = [0.5, 0.5, 0.25, 0.25, 0.25, 1.0, 1.0, 0.1, 0.1, 0.9]  # some groups too
    n = ps.size
    with mpmath.workdps(DPS):
        pmf = [mpmath.mpf(1)]
        for q in ps:
            q = mpmath.mpf(float(q))
            pmf = [
                (pmf[k] if k < len(pmf) else 0) * (1 - q) + (pmf[k - 1] * q if k else 0)
                for k in range(len(pmf) + 1)
            ]
        pmf = dict(enumerate(pmf))
        lo, hi, S = mp_tails(pmf)
        for t in (1, 30, 1e12):
            assert rel(max_random_baseline(n, ps, t), mp_expected_max(pmf, n, t)) < REL
        for c in (40, 70, 90, 110):
            assert rel(max_random_tail(c, n, ps, 1000), mp_tail_max(S, lo, hi, c, 1000)) < REL


# n = 1023 and 1024: P(X = n) = 2^-1023 and 2^-1024 (subnormal), so t P(X = n) is ~1 at
# t = 1e308 and the top term of the sum is strictly between 0 and 1; n = 2000 puts the whole
# window in the middle of the support. A Poisson binomial and AUC too.
T_MAX = "1e308"
_T_MAX_CODE = """
import json, sys, numpy as np
from evalsci.maxrandom import max_random_baseline, max_random_tail, max_cdf, max_pmf, max_random_auc
t = float(sys.argv[1])
out = {}
for n, p in ((100, 0.5), (1023, 0.5), (1024, 0.5), (2000, 0.5), (2000, 0.25)):
    c = [n // 2, n - 1, n]
    out[f"{n},{p}"] = [max_random_baseline(n, p, t), max_random_tail(c, n, p, t).tolist()]
    max_cdf(n, p, t), max_pmf(n, p, [1.0, t])
out["pb"] = [max_random_baseline(60, {2: 30, 4: 30}, t), 0]
out["auc"] = [max_random_auc(10, 10, t), max_random_auc(300, 300, t)]
print(json.dumps(out))
"""


def test_t_at_the_top_of_the_double_range_is_exact_and_silent():
    """Issue 25: t = 1e308 gave the right value but an overflow warning (t log F overflows to
    -inf where F^t is 0 anyway), an error under `python -W error`. Now silent, and every value
    agrees with 60-digit mpmath; a tail whose single-classifier probability S is below the
    normal double range (S < 2^-1022) is within its documented absolute bound t 2^-1075."""
    import json
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-W", "error", "-c", _T_MAX_CODE, T_MAX],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    t = mpmath.mpf(T_MAX)
    for key, (baseline, tails) in got.items():
        if key in ("pb", "auc"):
            continue
        n, p = int(key.split(",")[0]), float(key.split(",")[1])
        with mpmath.workdps(60):
            pmf = mp_binomial_pmf(n, p, zs=1e9)  # the whole support 0..n
            want = mp_expected_max(pmf, n, t)
            lo, hi, S = mp_tails(pmf)
            want_tails = [mp_tail_max(S, lo, hi, c, t) for c in (n // 2, n - 1, n)]
        assert rel(baseline, want) < 1e-14, (key, baseline, want)
        for c, g, w in zip((n // 2, n - 1, n), tails, want_tails, strict=True):
            if S[c - 1] >= mpmath.mpf(2) ** -1022:  # a normal double: relative accuracy
                assert rel(g, w) < 1e-12, (key, c, g, w)
            else:  # subnormal or 0: the documented absolute bound t * 2^-1075
                assert abs(mpmath.mpf(g) - w) <= t * mpmath.mpf(2) ** -1075, (key, c, g, w)
    # every value above 1 - 1e-300 is 1.0: the limit t -> infinity (the max reaches n)
    assert got["100,0.5"][0] == 1.0 and got["pb"][0] == 1.0 and got["auc"] == [1.0, 1.0]
    assert 0.9 < got["1023,0.5"][0] < 1.0  # 1 - e^(-t 2^-1023) / n: not the limit yet
