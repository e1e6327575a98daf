"""Paired permutation (sign-flip) tests, seeded.

`paired_mean_test` is scipy's `permutation_test` with `permutation_type="samples"` and the
mean paired difference as statistic: under H0 the two members of each pair are exchangeable,
so every pair's difference keeps or flips its sign with probability 1/2. With few pairs
(2**n_pairs <= n_resamples) scipy enumerates all sign patterns and the p-value is exact.

Speed: with more pairs, scipy draws each resample's sign flips through `Generator.permuted` on
an index array and re-indexes both samples per resample, which took 70 s of the tapt DAG's
2,000 tests. `_random_sign_flips` makes the same draws directly (one uint32 per pair and
resample; PCG64, the `default_rng` generator) and the null distribution is the same integer sum
divided by the same count, so the p-values are scipy's, bit for bit
(`tests/test_stats_permutation.py` compares them over seeds, sizes and alternatives). Any other
generator state goes through scipy itself.
"""

from __future__ import annotations

import numpy as np


def _mean_diff(x, y, axis=-1):
    return np.mean(x - y, axis=axis)


def paired_mean_test(
    x,
    y,
    *,
    alternative: str = "greater",
    n_resamples: int = 10_000,
    rng: int | np.random.Generator | None = None,
) -> tuple[float, float]:
    """Test H0: E[x - y] = 0 for paired samples; returns (mean difference, p-value).

    alternative "greater" is H1: E[x - y] > 0 (the paper's eq. 10 with x = acc_test,
    y = acc_extra). The Monte Carlo p-value scipy returns counts the observed statistic
    among the resamples, so it is never 0.
    """
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(
            f"paired samples must be 1-d and of equal length, got {x.shape}, {y.shape}"
        )
    if len(x) < 2:
        raise ValueError("a paired permutation test needs at least 2 pairs")
    rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    if 2 ** len(x) > n_resamples and alternative in ("greater", "less", "two-sided"):
        flips = _random_sign_flips(rng, n_resamples, len(x))
        if flips is not None:
            return float(np.mean(x - y)), _monte_carlo_pvalue(x - y, flips, alternative)
    from scipy import stats  # here: scipy.stats costs ~0.5 s of every importing job's start

    res = stats.permutation_test(
        (x, y),
        _mean_diff,
        permutation_type="samples",
        vectorized=True,
        alternative=alternative,
        n_resamples=n_resamples,
        rng=rng,
    )
    return float(np.mean(x - y)), float(res.pvalue)


def _random_sign_flips(rng: np.random.Generator, n_resamples: int, n_pairs: int):
    """(n_resamples, n_pairs) booleans, True where scipy's "samples" permutation swaps a pair.

    scipy (`_pairings_permutations_gen`) calls `rng.permuted` on rows [0, 1]; numpy's
    Fisher-Yates draws one bounded integer j in {0, 1} per row from the low bit of the next
    uint32 (PCG64 splits each 64-bit output into its low, then its high half) and swaps iff
    j == 0. Returns None (use scipy) unless the generator is a PCG64 with no buffered half.
    """
    bitgen = rng.bit_generator
    state = bitgen.state
    if state.get("bit_generator") != "PCG64" or state.get("has_uint32"):
        return None
    m = n_resamples * n_pairs
    raw = bitgen.random_raw((m + 1) // 2)
    halves = np.empty(2 * len(raw), np.uint64)
    halves[0::2] = raw & 0xFFFFFFFF
    halves[1::2] = raw >> 32
    if m % 2:  # numpy keeps the unused high half for the next uint32
        state = bitgen.state
        state["has_uint32"], state["uinteger"] = 1, int(halves[-1])
        bitgen.state = state
    return (halves[:m] & 1).reshape(n_resamples, n_pairs) == 0


def _monte_carlo_pvalue(diff: np.ndarray, flips: np.ndarray, alternative: str) -> float:
    """scipy's Monte Carlo p-value of the mean difference under the given sign flips."""
    observed = np.mean(diff)
    null = np.where(flips, -diff, diff).sum(axis=-1) / len(diff)  # = np.mean over the pairs
    gamma = abs(np.finfo(float).eps * 100 * observed)
    greater = (np.count_nonzero(null >= observed - gamma) + 1) / (len(flips) + 1)
    less = (np.count_nonzero(null <= observed + gamma) + 1) / (len(flips) + 1)
    # scipy's two-sided p: twice the smaller one-sided p of the same resamples
    p = {"greater": greater, "less": less, "two-sided": 2 * min(greater, less)}[alternative]
    return float(np.clip(p, 0.0, 1.0))


def sign_flip_law(diff) -> tuple[np.ndarray, int]:
    """The exact null law of the sign-flip statistic sum(+-d_i) for integer differences d:
    (probabilities of the sums -T..T, T = sum |d_i|). Each pair keeps or flips its sign with
    probability 1/2 independently, so the law is the convolution of the pairs' two-point
    laws; float64 arithmetic, relative error about 1e-13 (tested against enumeration)."""
    d = np.asarray(diff)
    if d.ndim != 1 or not np.array_equal(d, np.round(d)):
        raise ValueError("sign_flip_law: the differences must be a 1-d array of integers")
    d = np.abs(d.astype(np.int64))
    total = int(d.sum())
    law = np.zeros(2 * total + 1)
    law[total] = 1.0
    for k in d[d > 0]:
        k = int(k)
        law = 0.5 * (np.roll(law, k) + np.roll(law, -k))  # the support never wraps: |sum| <= T
    return law, total


def sign_flip_tails(diff) -> tuple[float, float, float]:
    """(P(S < s), P(S = s), P(S > s)) under the exact sign-flip null, s the observed sum of
    the integer differences: the limits, as resamples grow, of scipy's Monte Carlo test."""
    law, total = sign_flip_law(diff)
    s = int(np.sum(np.asarray(diff).astype(np.int64))) + total
    return float(law[:s].sum()), float(law[s]), float(law[s + 1 :].sum())


def monte_carlo_pvalues(tails, n_resamples: int, size: int, rng) -> dict[str, np.ndarray]:
    """`size` draws of scipy's Monte Carlo p-values at `n_resamples` (what `paired_mean_test`
    returns under `size` different seeds), from the exact tails (P(<), P(=), P(>)) of one test:
    the resamples fall below, on and above the observed statistic as a multinomial, and
    scipy's p-values are (count + 1) / (n_resamples + 1) for each side, the two-sided one
    twice the smaller."""
    rng = np.random.default_rng(rng)
    below, on, above = rng.multinomial(n_resamples, np.clip(tails, 0, None), size=size).T
    greater = (on + above + 1) / (n_resamples + 1)
    less = (below + on + 1) / (n_resamples + 1)
    return {
        "greater": greater,
        "less": less,
        "two-sided": np.clip(2 * np.minimum(greater, less), 0.0, 1.0),
    }
