"""The seed-to-seed spread of tapt Section 8's p-value summaries at the paper's 10,000
resamples, measured over real seeds, against the exact law the claims ledger uses.

    EVALSCI_MIRROR=../shared/released .venv/bin/python benchmarks/tapt_seed_spread.py \
        [--seeds 100] [--resamples 10000] [--partners m100_n50,...] [--smoke]

For each seed, every overtraining task's bias test (two-sided, scipy's default) and footnote
4's boost test (H1 boost < 0, gpt2_epochs_2_m50_n50) run through `paired_mean_test`, seeded as
rule tapt_make_permutation_tests seeds them (`permutation.test_seed(seed, ...)`; `--partners`
limits the partner configurations, default all), then:
- BH's smallest adjusted p of m50_n50's 25 tasks, and of m50_n50 pooled with each other
  overtraining configuration (50 tasks): Section 8's "all p-values > 0.5" per hypothesis;
- the count of footnote 4's raw p-values below 0.05 ("16 of 25").
Printed per statistic: the real seeds' mean, SD and share <= 0.5 (or the count's law), the
same from 10,000 draws of the exact law (`evalsci.studies.tapt.spread`), and the CPU seconds
per seed (one thread).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))


def cpu_seconds() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=100)
    ap.add_argument("--resamples", type=int, default=10_000)
    ap.add_argument("--partners", default="", help="e.g. m100_n50 (default: every other)")
    ap.add_argument("--smoke", action="store_true", help="3 seeds at 1,000 resamples")
    args = ap.parse_args()
    if args.smoke:
        args.seeds, args.resamples = 3, 1000

    from evalsci.stats.permutation import paired_mean_test
    from evalsci.studies.tapt import data, permutation, spread
    from evalsci.studies.tapt.hierarchical import num_correct

    mirror = Path(os.environ.get("EVALSCI_MIRROR", REPO.parent / "shared" / "released"))
    root = mirror / "kddubey-pretrain-on-test/analysis/accuracies_gpt2_epochs_2"
    acc = data.load_accuracies(sorted(root.glob("*/*/*/*/accuracies.csv")))
    first = "gpt2_epochs_2_m50_n50"
    configs = sorted(acc["config"].unique())
    if args.partners:
        configs = [first] + [f"gpt2_epochs_2_{p}" for p in args.partners.split(",")]
        acc = acc[acc["config"].isin(configs)]
    groups = [
        (key, g.sort_values("subsample"))
        for key, g in acc.groupby(["config", "lm", "n", "dataset"], sort=True)
    ]

    def p(config, lm, n, dataset, g, comparison, alternative, seed):
        control, treatment = {"bias": ("extra", "test"), "boost": ("base", "extra")}[comparison]
        rng = np.random.default_rng(
            permutation.test_seed(seed, config, lm, dataset, comparison, alternative)
        )
        return paired_mean_test(
            num_correct(g[treatment], n),
            num_correct(g[control], n),
            alternative=alternative,
            n_resamples=args.resamples,
            rng=rng,
        )[1]

    stats: dict[str, list[float]] = {}
    families: dict[str, list[str]] = {f"{first} two-sided": [first]}
    start, t0 = cpu_seconds(), time.time()
    for seed in range(args.seeds):
        two = {c: [] for c in configs}
        count = 0
        for (config, lm, n, dataset), g in groups:
            two[config].append(p(config, lm, n, dataset, g, "bias", "two-sided", seed))
            if config == first:
                count += p(config, lm, n, dataset, g, "boost", "less", seed) < 0.05
        stats.setdefault(f"{first} two-sided", []).append(spread.bh_min(np.array(two[first]))[0])
        for c in configs:
            if c != first:
                both = np.array(two[first] + two[c])
                families[f"{first} + {c} two-sided"] = [first, c]
                stats.setdefault(f"{first} + {c} two-sided", []).append(spread.bh_min(both)[0])
        stats.setdefault("footnote 4 count", []).append(count)
    cpu, wall = cpu_seconds() - start, time.time() - t0
    print(
        f"{args.seeds} seeds x {args.resamples:,} resamples: {cpu:,.0f} CPU-s "
        f"({cpu / args.seeds:.1f} per seed), {wall:,.0f} s wall"
    )
    tails = spread.task_tails(acc, "bias")
    for name, values in stats.items():
        v = np.array(values, float)
        if name == "footnote 4 count":
            bt = spread.task_tails(acc[acc["config"] == first], "boost")
            q = spread.crossing_probability(bt, "less", 0.05, args.resamples)
            pmf = spread.count_law(q)
            law = {k: round(x, 3) for k, x in enumerate(pmf) if x > 0.001}
            real = {int(k): round(float(np.mean(v == k)), 3) for k in np.unique(v)}
            print(
                f"{name}: real {real}, SD {v.std(ddof=1):.3f}; law {law}, "
                f"SD {np.sqrt((q * (1 - q)).sum()):.3f}"
            )
            continue
        fam = families[name]
        law = spread.bh_min_draws(
            tails[tails["config"].isin(fam)].sort_values(["config", "dataset"]),
            "two-sided",
            args.resamples,
            10_000,
            seed=[1],
        )
        print(
            f"{name}: real mean {v.mean():.3f} SD {v.std(ddof=1):.3f} <=0.5 "
            f"{np.mean(v <= 0.5):.2f}; law mean {law.mean():.3f} SD {law.std(ddof=1):.3f} "
            f"<=0.5 {np.mean(law <= 0.5):.2f}"
        )


if __name__ == "__main__":
    main()
