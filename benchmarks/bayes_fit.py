"""Bulk ESS per second of beta: PyMC's default NUTS (the authors' setup) against ours.

    EVALSCI_MIRROR=../shared/released .venv/bin/python benchmarks/bayes_fit.py \
        [--config m100_n500] [--comparisons bias boost] [--cores 2] [--not-portable]

For each comparison (default both, bias and boost) of one configuration, the same bambi
model, priors, data and seed are fitted twice:
- "pymc": the authors' setup: bambi's default non-centred parametrisation, PyMC's NUTS,
  4 chains x 1,000 draws after 500 tuning steps, `cores` worker processes;
- "ours": the workflow's own checked fit, `evalsci.studies.tapt.posteriors.fit_one` with
  the resolved config `tapt.bayes` (its backend as the workflow resolves it: PyMC's NUTS under portable
  arithmetic, the default, whose pins this script sets as the workflow does; nutpie with
  `--not-portable`; task effects centred, the comparison's mass matrix
  adaptation from `tapt.bayes.variance_mass_matrix`, the convergence checks, and a refit with twice the draws when a
  check fails, so any refit is inside the timed call).
Each time is the whole call (model build and compilation included; PyMC reuses pytensor's
on-disk compilation cache after its first run, nutpie's numba compilation is redone every
time) in wall-clock seconds, with the CPU seconds (user + sys, this process and its worker
processes) beside it because wall time on a shared machine is unreliable.
Printed per comparison: both times, beta's posterior mean, sd, MCSE and bulk ESS from each,
bulk ESS per wall second and per CPU second, whether the means agree within Monte Carlo error
(|difference| < 3 x combined MCSE) and the sd ratio; last `speedup: <ratio>x`, the smaller of
the comparisons' ratios of bulk ESS per wall second.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def cpu_seconds() -> float:
    """User + sys CPU seconds of this process and its reaped children (PyMC's workers)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def timed(fn):
    wall, cpu = time.perf_counter(), cpu_seconds()
    out = fn()
    return out, time.perf_counter() - wall, cpu_seconds() - cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--config", default="m100_n500")
    ap.add_argument(
        "--comparisons", nargs="+", default=["bias", "boost"], choices=["boost", "bias"]
    )
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument(
        "--not-portable",
        action="store_true",
        help="portable: false (nutpie for 'ours', no kernel pins); default: config.yaml's portable",
    )
    args = ap.parse_args()
    from evalsci.settings import resolved

    full_cfg = resolved()  # config.yaml over the presets and schema defaults, as the workflow
    portable = full_cfg["portable"] and not args.not_portable

    from evalsci.pipeline.determinism import apply_portable

    env = dict(os.environ)
    if apply_portable(portable, env) and env != os.environ:
        # as a workflow job gets them: in the environment at process start (glibc reads its
        # tunables only then; numpy, numba and PyTensor when they load)
        os.execve(sys.executable, [sys.executable, *sys.argv], env)

    from evalsci.stats import bayes
    from evalsci.studies.tapt import data, hierarchical, posteriors, steps, targets

    mirror = Path(os.environ.get("EVALSCI_MIRROR", Path(__file__).parents[2] / "shared/released"))
    files = [
        f
        for f in data.released_files(mirror / "kddubey-pretrain-on-test")
        if data.config_name(*(lambda m, n, lm, d: (lm, m, n))(*data.parse_path(f))) == args.config
    ]
    if not files:
        raise SystemExit(f"no released accuracies for configuration {args.config!r}")
    acc = data.load_accuracies(files)
    bayes_cfg = dict(full_cfg["tapt"]["bayes"])
    bayes_cfg["backend"] = targets.resolve_backend(bayes_cfg, portable)
    print(f"portable: {portable}; ours: {bayes_cfg['backend']}")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")

    ratios = {}
    for comparison in args.comparisons:
        fast_settings, thresholds = steps.sampler_settings(bayes_cfg, args.cores, comparison)
        long = hierarchical.long_format(acc, comparison)
        beta = hierarchical.beta_name(comparison)
        print(
            f"\n{args.config} {comparison}: {len(long)} rows, formula "
            f"{hierarchical.formula(long['lm_type'].nunique())}"
        )

        def pymc_fit(long=long, beta=beta):
            idata = bayes.fit(
                hierarchical.build(long), bayes.SamplerSettings(backend="pymc", cores=args.cores)
            )
            s = bayes.summarize(idata, beta)
            s["draws_per_chain"] = idata.posterior.sizes["draw"]
            return s

        def our_fit(comparison=comparison, settings=fast_settings, thresholds=thresholds):
            return posteriors.fit_one(
                acc,
                comparison,
                "authors",
                settings=settings,
                thresholds=thresholds,
                ppd=False,
                on_failure="warn",
                max_draws=bayes_cfg["max_draws"],
                noncentred_contrast=steps.noncentred_contrast(bayes_cfg, comparison),
            ).summary

        results = {"pymc": timed(pymc_fit), "ours": timed(our_fit)}
        rate = {}
        for name, (s, wall, cpu) in results.items():
            backend = (
                "pymc"
                if name == "pymc"
                else fast_settings.backend
                + ("" if fast_settings.grad_mass_matrix else ", variance mass matrix")
            )
            rate[name] = s["ess_bulk"] / wall
            print(
                f"{name:>5} ({backend}): {wall:7.1f} s wall {cpu:7.1f} CPU-s  beta mean "
                f"{s['mean']:+.5f} sd {s['sd']:.5f} mcse {s['mcse_mean']:.5f} "
                f"r_hat {s['r_hat']:.3f} ess_bulk {s['ess_bulk']:.0f} "
                f"divergences {s['divergences']} draws/chain {s['draws_per_chain']}  "
                f"ESS/s {rate[name]:.1f} (per CPU-s {s['ess_bulk'] / cpu:.1f})"
            )
        (a, *_), (b, *_) = results["pymc"], results["ours"]
        mc = np.hypot(a["mcse_mean"], b["mcse_mean"])
        same = abs(a["mean"] - b["mean"]) < 3 * mc
        ratios[comparison] = rate["ours"] / rate["pymc"]
        cpu_ratio = (b["ess_bulk"] / results["ours"][2]) / (a["ess_bulk"] / results["pymc"][2])
        print(
            f"difference of means {a['mean'] - b['mean']:+.5f} (3 x combined MCSE "
            f"{3 * mc:.5f}): {'same posterior within MC error' if same else 'DIFFERENT'}; "
            f"sd ratio {b['sd'] / a['sd']:.3f}; bulk ESS of beta per second: "
            f"{ratios[comparison]:.1f}x (per CPU-second {cpu_ratio:.1f}x)"
        )

    print(f"\nload average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    worst = min(ratios, key=ratios.get)
    print(f"smallest ratio of bulk ESS of beta per second: {worst}")
    print(f"speedup: {ratios[worst]:.1f}x")


if __name__ == "__main__":
    main()
