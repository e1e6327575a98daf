"""Argument checks shared by the public functions (clear ValueErrors naming the argument)."""

from __future__ import annotations

import numbers

import numpy as np

#: the largest count taken: every integer up to 2^53 is exact in a float64
MAX_EXACT_COUNT = 2**53


def check_n(n) -> int:
    """n: number of examples, an integer >= 1."""
    if isinstance(n, bool) or not isinstance(n, numbers.Real) or isinstance(n, complex):
        raise ValueError(f"n must be an integer >= 1, got n={n!r}")
    if not float(n).is_integer() or n < 1:
        raise ValueError(f"n must be an integer >= 1, got n={n!r}")
    return int(n)


def _numeric(x, name: str, what: str) -> np.ndarray:
    """x as a float array; booleans and strings raise (np.asarray(True, float) is 1.0 and
    np.asarray("10", float) is 10.0, which would let a typo through as a number)."""
    try:
        raw = np.asarray(x)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be {what}, got {name}={x!r}") from None
    mixed = (
        not isinstance(x, np.ndarray)
        and raw.ndim > 0
        and any(
            isinstance(v, (bool, np.bool_, str, bytes)) for v in np.asarray(x, dtype=object).flat
        )
    )
    if raw.dtype.kind not in "iuf" or mixed:  # [10, True] is an int array to numpy
        raise ValueError(
            f"{name} must be {what} (not {type(x).__name__} of {raw.dtype.name}), got {name}={x!r}"
        )
    return raw.astype(float)


def check_t(t) -> tuple[np.ndarray, bool]:
    """t: number of random classifiers, integer-valued >= 1 (scalar or array, floats like 1e12
    allowed; booleans and strings are not numbers here). Returns (float array, is_scalar)."""
    scalar = np.ndim(t) == 0
    arr = _numeric(t, "t", "an integer >= 1 (or an array of them)")
    bad = ~np.isfinite(arr) | (arr < 1) | (arr != np.floor(arr))
    if np.any(bad):
        first = float(arr[bad].flat[0] if arr.ndim else arr)
        raise ValueError(f"t must be an integer >= 1 (or an array of them), got t={first!r}")
    return arr, scalar


def check_counts(correct, name: str = "correct") -> tuple[np.ndarray, bool]:
    """An integer count of correct answers (scalar or array). Integer-valued floats (62.0) are
    accepted; any other float raises: convert an accuracy with `correct_count(accuracy, n)`,
    which rounds (flooring 0.29 * 100 = 28.999... would give 28, not 29)."""
    scalar = np.ndim(correct) == 0
    arr = _numeric(correct, name, "an integer count")
    bad = ~np.isfinite(arr) | (arr != np.floor(arr))
    if np.any(bad):
        first = float(arr[bad].flat[0] if arr.ndim else arr)
        raise ValueError(
            f"{name} must be an integer count of correct answers, got {name}={first!r}; "
            "convert an accuracy with evalsci.maxrandom.correct_count(accuracy, n), which rounds"
        )
    huge = np.abs(arr) > MAX_EXACT_COUNT
    if np.any(huge):  # past 2^53 a float is no exact count, and past 2^63 int64 wraps
        first = float(arr[huge].flat[0] if arr.ndim else arr)
        raise ValueError(f"{name} must be a count of at most 2^53, got {name}={first:.6g}")
    return arr.astype(np.int64), scalar


def check_counts_within(
    correct: np.ndarray, n: int, name: str = "correct", n_name: str = "n"
) -> None:
    """A count of correct answers out of n lies in 0..n (P(X >= n + 1) = 0 is no answer: the
    count or n is wrong). `n_name` says what n is in the message (e.g. "n_pos*n_neg")."""
    bad = (correct < 0) | (correct > n)
    if np.any(bad):
        first = int(correct[bad].flat[0] if correct.ndim else correct)
        where = f"with n={n}" if n_name == "n" else f"with {n_name}={n}"
        raise ValueError(f"{name} must be a count in 0..{n_name}, got {name}={first} {where}")


def check_probability(p, what: str = "p") -> float:
    if isinstance(p, bool) or not isinstance(p, numbers.Real):
        raise ValueError(f"{what} must be a probability in (0, 1], got {what}={p!r}")
    p = float(p)
    if not (0.0 < p <= 1.0):
        raise ValueError(f"{what} must be a probability in (0, 1], got {what}={p!r}")
    return p
