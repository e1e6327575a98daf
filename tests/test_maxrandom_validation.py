"""Invalid input raises ValueError naming the argument and value; accuracies round to counts."""

from __future__ import annotations

import math

import numpy as np
import pytest

from evalsci.maxrandom import (
    correct_count,
    max_cdf,
    max_pmf,
    max_random_auc,
    max_random_baseline,
    max_random_tail,
    standard_tail,
)


@pytest.mark.parametrize(
    "args,match",
    [
        ((0, 0.5, 10), r"n must be an integer >= 1, got n=0"),
        ((-3, 0.5, 10), r"n=-3"),
        ((10.5, 0.5, 10), r"n=10.5"),
        ((10, 0.0, 10), r"p must be a probability in \(0, 1\], got p=0.0"),
        ((10, 1.5, 10), r"p=1.5"),
        ((10, -0.1, 10), r"p=-0.1"),
        ((10, 0.5, 0), r"t must be an integer >= 1.*t=0"),
        ((10, 0.5, [5, 0.5]), r"t=0.5"),
        ((10, 0.5, 2.5), r"t=2.5"),
        ((10, 0.5, float("nan")), r"t=nan"),
        ((10, [0.5] * 9, 10), r"per-example p has length 9, but n=10"),
        ((10, [0.5] * 9 + [0.0], 10), r"p\[9\]=0.0"),
        ((10, {0: 10}, 10), r"number of labels must be an integer >= 1, got labels=0"),
        ((10, {2: 4, 3: 5}, 10), r"sum to 9 examples, but n=10"),
        ((10, {2: -1, 3: 11}, 10), r"must be an integer >= 0"),
        ((10, "0.5", 10), r"p must be a float, a sequence"),
    ],
)
def test_invalid_input_raises(args, match):
    with pytest.raises(ValueError, match=match):
        max_random_baseline(*args)


def test_invalid_input_everywhere():
    with pytest.raises(ValueError, match="n="):
        max_pmf(0, 0.5, 1)
    with pytest.raises(ValueError, match="t="):
        max_cdf(10, 0.5, 0)
    with pytest.raises(ValueError, match="p="):
        standard_tail(3, 10, 2.0)
    with pytest.raises(ValueError, match="n_pos must be an integer >= 1, got n_pos=0"):
        max_random_auc(0, 5, 3)
    with pytest.raises(ValueError, match="n_neg"):
        max_random_auc(5, 2.5, 3)
    with pytest.raises(ValueError, match="accuracy must be a number in"):
        correct_count(1.2, 100)


def test_float_correct_raises_and_points_to_correct_count():
    """Tail functions take integer counts: a non-integer float raises (we never floor)."""
    with pytest.raises(ValueError, match=r"correct must be an integer count.*correct_count"):
        max_random_tail(0.29 * 100, 100, 0.25, 10)
    with pytest.raises(ValueError, match="correct=0.62"):
        max_random_tail(0.62, 100, 0.5, 10)
    with pytest.raises(ValueError, match="correct"):
        max_random_tail([62, 61.5], 100, 0.5, 10)
    # integer-valued floats are counts
    assert max_random_tail(62.0, 100, 0.5, 10) == max_random_tail(62, 100, 0.5, 10)


def test_rounding_not_flooring():
    assert 0.29 * 100 == pytest.approx(29) and int(0.29 * 100) == 28  # the trap
    assert correct_count(0.29, 100) == 29
    assert isinstance(correct_count(0.29, 100), int)
    acc = np.arange(201) / 200  # every exact accuracy on n = 200
    np.testing.assert_array_equal(correct_count(acc, 200), np.arange(201))
    # accuracies measured on another n still map to the nearest count
    assert correct_count(0.333, 100) == 33 and correct_count(0.336, 100) == 34
    # the tail at a rounded count differs from the floored one
    assert max_random_tail(correct_count(0.29, 100), 100, 0.25, 1) < max_random_tail(
        28, 100, 0.25, 1
    )


def test_out_of_range_counts_are_errors():
    # 0 correct is certain; a count outside 0..n means the count or n is wrong (issue 13)
    assert max_random_tail(0, 10, 0.5, 3) == 1.0
    for bad in (-2, 11, [5, 11]):
        with pytest.raises(ValueError, match="correct must be a count in 0..n"):
            max_random_tail(bad, 10, 0.5, 3)


def test_scalar_and_array_returns():
    assert isinstance(max_random_baseline(10, 0.5, 3), float)
    v = max_random_baseline(10, 0.5, np.array([[1, 2], [3, 4]]))
    assert v.shape == (2, 2) and np.all(np.diff(v.ravel()) > 0)
    assert isinstance(max_random_tail(5, 10, 0.5, 3), float)
    assert max_random_tail([5, 6, 7], 10, 0.5, 3).shape == (3,)
    assert max_random_tail(np.array([[5], [6]]), 10, 0.5, [1, 3, 9]).shape == (2, 3)


def test_import_is_light():
    import subprocess
    import sys

    code = (
        "import sys, evalsci.maxrandom; "
        "bad = [m for m in ('pandas', 'torch', 'sklearn') if m in sys.modules]; "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize(
    "n,match",
    [
        (-5, r"n must be an integer >= 1, got n=-5"),
        (0, r"n=0"),
        (2.5, r"n=2.5"),
        (True, r"n=True"),
        ("10", r"n='10'"),
    ],
)
def test_count_distribution_validates_n(n, match):
    """Issue 25: count_distribution(-5, 0.5) had mean -2.5 and NaN probabilities, and n = 2.5
    a mean of 1.25; it is public, so it checks n like every other public function."""
    from evalsci.maxrandom import count_distribution

    with pytest.raises(ValueError, match=match):
        count_distribution(n, 0.5)
    with pytest.raises(ValueError, match="p must be a probability"):
        count_distribution(10, 1.5)
    assert count_distribution(10.0, 0.5).mean == 5.0  # an integer-valued float is a count


def test_auc_tail_rejects_counts_outside_the_range_of_u():
    """u is a Mann-Whitney count, 0..n_pos*n_neg; outside it the AUC is outside [0, 1], so
    the count or the sizes are wrong (the exact and the tilted distributions alike)."""
    from evalsci.maxrandom import max_random_auc_tail

    assert max_random_auc_tail(0, 10, 10, 5) == 1.0
    # the top count is allowed: U = 100 needs every positive above every negative
    top = -math.expm1(5 * math.log1p(-1 / math.comb(20, 10)))
    assert max_random_auc_tail(100, 10, 10, 5) == pytest.approx(top, rel=1e-12)
    for n_pos, n_neg in ((10, 10), (400, 400)):  # exact / tilted distribution of U
        top = n_pos * n_neg
        for bad in (-3, top + 1, [5, top + 7]):
            with pytest.raises(
                ValueError,
                match=rf"u must be a count in 0..n_pos\*n_neg, got u=-?\d+ with n_pos\*n_neg={top}",
            ):
                max_random_auc_tail(bad, n_pos, n_neg, 5)


def test_tilted_u_distribution_rejects_out_of_range_arguments():
    """Its lower-half methods refused out-of-range U with a bare assert (gone under -O) or
    answered for U < 0; sizes < 1 gave a distribution with n = 0 or negative."""
    from evalsci.maxrandom.mann_whitney_tilted import MannWhitneyTilted

    for n_pos, n_neg, name in ((0, 5, "n_pos=0"), (5, -3, "n_neg=-3"), (2.5, 4, "n_pos=2.5")):
        with pytest.raises(ValueError, match=name):
            MannWhitneyTilted(n_pos, n_neg)
    d = MannWhitneyTilted(400, 400)
    for xs in ([-1], [d.half + 1], [5, d.n + 5]):
        with pytest.raises(
            ValueError, match=r"Mann-Whitney lower cdf at U=-?\d+ .*must lie in 0\.\.79999"
        ):
            d.log_cdf_lower(np.array(xs))
    for lo, hi in ((-2, 3), (5, d.n)):
        with pytest.raises(ValueError, match=r"pmf range U=.* must lie in 0\.\.80000"):
            d.log_pmf_range(lo, hi)
