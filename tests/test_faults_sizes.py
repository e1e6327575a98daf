"""The fault suite, sizes (issue 47 item 5): small arguments that asked for huge memory or time
(`evalsci baseline --n 1e20` a 754 GiB allocation, `evalsci auc --n-pos 1 --n-neg 1e9` 23 GB
and an OOM kill) are refused before anything is allocated, in one line naming the sizes, in a
fresh process whose peak memory is measured."""

from __future__ import annotations

import pytest

from evalsci.maxrandom import max_random_auc, max_random_baseline
from evalsci.maxrandom.max_order import MAX_TERMS

from conftest import evalsci_peak_rss

#: name -> (evalsci arguments, what the one-line error says)
SIZES = {
    "baseline n = 10^20": (
        ["baseline", "--n", str(10**20), "--p", "0.5", "--t", "10"],
        f"{MAX_TERMS:,}",
    ),
    "baseline labels summing to 10^20": (
        ["baseline", "--n", str(10**20), "--labels", f'{{"2": {10**20}}}', "--t", "10"],
        f"{MAX_TERMS:,} this library evaluates",
    ),
    "tail n = 10^20": (
        ["tail", "--correct", str(10**19), "--n", str(10**20), "--p", "0.5", "--t", "10"],
        "at most 2^53",
    ),
    "auc n_neg = 10^9": (["auc", "--n-pos", "1", "--n-neg", str(10**9), "--t", "10"], "terms"),
    "auc 10^5 x 10^5": (["auc", "--n-pos", str(10**5), "--n-neg", str(10**5), "--t", "3"], "terms"),
}


@pytest.mark.parametrize("what", sorted(SIZES))
def test_a_huge_size_is_refused_in_bounded_memory(what):
    args, needle = SIZES[what]
    run, said, peak_kb = evalsci_peak_rss(args, timeout=120)
    assert run.returncode == 2 and run.stdout == "", (what, run.stdout, run.stderr[-500:])
    assert len(said) == 1 and said[0].startswith(f"evalsci {args[0]}: error: "), said
    assert needle in said[0], said[0]
    assert peak_kb < 1_000_000, f"{what}: peak RSS {peak_kb / 1e6:.1f} GB"


def test_the_largest_sums_still_run_and_stay_exact():
    """Just inside the cap the answer is still computed: n = 10^10 sums ~1e6 terms."""
    v = max_random_baseline(10**10, 0.5, 10)
    # E[max of 10 N(np, np(1-p))] / n = p + sd/n * E[max of 10 standard normals] (1.5388)
    assert v == pytest.approx(0.5 + 1.5387527 * (0.25 / 10**10) ** 0.5, rel=1e-9)
    assert 0.5 < max_random_auc(300, 300, 10) < 0.6
