"""Time evalsci.maxrandom.max_random_baseline against the reference package in one run.

The reference is PyPI `max-random-baseline` 0.1.1 (the paper authors' implementation: Hong's
DFT Poisson-binomial cdf, then eq. 9 summed over every k). Both get the same (n, p, t); the
script checks they agree and prints one timing line per setting and, last, the speedup at
n = 10,000 (binomial, p = 1/2, t = 200, the paper's t):

    .venv/bin/python benchmarks/maxrandom.py            # ~30 s, most of it the reference
    .venv/bin/python benchmarks/maxrandom.py --smoke    # the two smallest settings (CI)
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import time

import max_random_baseline as reference

import evalsci.maxrandom as eb
from evalsci.maxrandom import max_random_baseline

SETTINGS = [  # (n, p, t); the last one is the headline
    (100, 0.5, 200),
    (1_000, 0.25, 200),
    (1_000, {2: 500, 4: 500}, 200),
    (10_000, {2: 5_000, 4: 5_000}, 200),
    (10_000, 0.5, 200),
]
RTOL = 1e-8  # the reference's DFT cdf is itself off by ~5e-10 relative at n = 10,000


def best_of(f, min_time: float, max_reps: int = 10_000) -> float:
    """Median seconds per call, repeating until `min_time` has elapsed (at least once)."""
    times: list[float] = []
    start = time.perf_counter()
    while not times or (time.perf_counter() - start < min_time and len(times) < max_reps):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def ours_cold(n, p, t) -> float:
    """One call with the distribution cache cleared: what a first call costs."""
    eb._cached_distribution.cache_clear()
    return max_random_baseline(n, p, t)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--smoke", action="store_true", help="the two smallest settings, timed once (CI)"
    )
    smoke = ap.parse_args().smoke
    ratio = float("nan")
    ok = True
    for n, p, t in SETTINGS[:2] if smoke else SETTINGS:
        ref_p = float(p) if not isinstance(p, dict) else p  # the reference needs a float
        ours_v = max_random_baseline(n, p, t)
        ref_v = reference.max_random_baseline(n, ref_p, t)
        agree = abs(ours_v - ref_v) <= RTOL * abs(ref_v)
        ok &= agree
        t_ours = best_of(functools.partial(ours_cold, n, p, t), min_time=0 if smoke else 0.5)
        t_ref = best_of(
            functools.partial(reference.max_random_baseline, n, ref_p, t),
            min_time=0 if smoke else 1.0,
        )
        ratio = t_ref / t_ours
        label = "dict" if isinstance(p, dict) else f"p={p}"
        print(
            f"n={n:>6} {label:<22} t={t}: ours {t_ours * 1e3:9.3f} ms  reference "
            f"{t_ref * 1e3:10.1f} ms  ratio {ratio:9.0f}x  values {ours_v:.12f} "
            f"{ref_v:.12f} {'agree' if agree else 'DISAGREE'}",
            flush=True,
        )
    print(f"speedup: {ratio:.0f}x")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
