"""Invalid input raises ValueError naming the argument and value; accuracies round to counts."""

from __future__ import annotations

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
