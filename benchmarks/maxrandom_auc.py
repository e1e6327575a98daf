"""Time and memory of the max random AUC (expected max and one tail) at real test-set sizes.

Each size runs in a fresh process (cold caches; peak RSS is that process's). The sizes past the
exact-integer range use the tilted Fourier inversion (`evalsci.maxrandom.mann_whitney_tilted`),
whose every cdf value carries a computed relative error bound <= 1e-9. The speedup line
compares it, at 250 x 250, with the cheapest exact method of the small-size path (the
Gaussian binomial coefficient in exact integers, or the float recursion), in the same run, and
checks that both agree:

    .venv/bin/python benchmarks/maxrandom_auc.py            # ~1-3 min, most of it 10,000 x 10,000
    .venv/bin/python benchmarks/maxrandom_auc.py --smoke    # 40 x 40 only (CI)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

SIZES = [(250, 250), (1_000, 1_000), (60, 3_000), (10_000, 10_000)]
T = [1, 2, 10, 100, 10_000, 1e12]

CHILD = r"""
import json, resource, sys, time
import numpy as np
from evalsci.maxrandom import max_random_auc, max_random_auc_tail, max_order
from evalsci.maxrandom import auc
m, n, mode = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
T = json.loads(sys.argv[4])
w0, c0 = time.perf_counter(), time.process_time()
if mode == "exact":  # the small-size exact path forced at this size
    dist = auc.MannWhitneyCounts(m, n)
    e = max_order.expected_max_count(dist, np.array(T, dtype=float)) / (m * n)
    tail = None
else:
    e = max_random_auc(m, n, T)
    w1, c1 = time.perf_counter(), time.process_time()
    u = int(round(0.6 * m * n))  # P(max of 10 >= AUC 0.6)
    tail = max_random_auc_tail(u, m, n, 10)
w2, c2 = time.perf_counter(), time.process_time()
out = {"expected_max": [float(x) for x in e], "tail_0.6_t10": tail,
       "wall_s": w2 - w0, "cpu_s": c2 - c0,
       "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
if mode != "exact":
    out.update(wall_expected_s=w1 - w0, cpu_expected_s=c1 - c0)
print(json.dumps(out))
"""


def run(m: int, n: int, mode: str) -> dict:
    res = subprocess.run(
        [sys.executable, "-c", CHILD, str(m), str(n), mode, json.dumps(T)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(res.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--smoke", action="store_true", help="one size, 40 x 40, and its exact check (CI)"
    )
    sizes = [(40, 40)] if ap.parse_args().smoke else SIZES
    print(f"t = {T}")
    print(
        "| n_pos x n_neg | expected max AUC (t = 10, 1e12) | P(max of 10 >= AUC 0.6) "
        "| wall s (expected / total) | CPU s (expected / total) | peak RSS MB |"
    )
    print("| --- | --- | --- | --- | --- | --- |")
    fast = {}
    for m, n in sizes:
        r = run(m, n, "tilted")
        fast[(m, n)] = r
        e = r["expected_max"]
        print(
            f"| {m:,} x {n:,} | {e[2]:.8f}, {e[5]:.8f} | {r['tail_0.6_t10']:.6g} "
            f"| {r['wall_expected_s']:.2f} / {r['wall_s']:.2f} "
            f"| {r['cpu_expected_s']:.2f} / {r['cpu_s']:.2f} | {r['peak_rss_mb']:.0f} |"
        )
    m, n = sizes[0]
    ex = run(m, n, "exact")
    rel = max(
        abs(a / b - 1)
        for a, b in zip(fast[(m, n)]["expected_max"], ex["expected_max"], strict=True)
    )
    print(
        f"exact small-size path at {m} x {n}: {ex['cpu_s']:.2f} CPU s, "
        f"{ex['peak_rss_mb']:.0f} MB; max relative difference {rel:.2g}"
    )
    if rel > 2e-9:
        print("DISAGREE", file=sys.stderr)
        return 1
    print(f"speedup: {ex['cpu_s'] / fast[(m, n)]['cpu_expected_s']:.0f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
