"""Time one real hierarchical fit of the tapt study with PyMC's NUTS and with our default.

    EVALSCI_MIRROR=../shared/released .venv/bin/python benchmarks/bayes_fit.py \
        [--config m100_n500] [--comparison bias] [--cores 2]

Both fits use the same bambi model, priors, data, 4 chains x 1,000 draws and seed. "pymc" is
the authors' setup (bambi's default non-centred parametrisation, PyMC's NUTS, 500 tuning
steps). "fast" is the workflow's own fit, `evalsci.studies.tapt.posteriors.fit_one` with
config.yaml `tapt.bayes` (nutpie, diagonal mass matrix, 1,000 tuning steps, task effects
sampled centred, the convergence checks, and a refit with twice the draws when a check
fails), so it does at least as many iterations as the PyMC run it is timed against. Each
time is the whole call (model build and compilation included; PyMC reuses pytensor's on-disk
compilation cache after its first run, nutpie's numba compilation is redone every time).
Printed: both times, the posterior mean and sd of beta from each, their MCSEs, whether the
means agree within Monte Carlo error (|difference| < 3 x combined MCSE), and last
`speedup: <ratio>x`.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--config", default="m100_n500")
    ap.add_argument("--comparison", default="bias", choices=["boost", "bias"])
    ap.add_argument("--cores", type=int, default=2)
    args = ap.parse_args()

    from evalsci.stats import bayes
    from evalsci.studies.tapt import data, hierarchical, posteriors, steps

    mirror = Path(os.environ.get("EVALSCI_MIRROR", Path(__file__).parents[2] / "shared/released"))
    files = [f for f in data.released_files(mirror / "kddubey-pretrain-on-test")
             if data.config_name(*(lambda m, n, lm, d: (lm, m, n))(*data.parse_path(f)))
             == args.config]
    if not files:
        raise SystemExit(f"no released accuracies for configuration {args.config!r}")
    acc = data.load_accuracies(files)
    long = hierarchical.long_format(acc, args.comparison)
    beta = hierarchical.beta_name(args.comparison)
    print(f"{args.config} {args.comparison}: {len(long)} rows, formula "
          f"{hierarchical.formula(long['lm_type'].nunique())}")

    # pymc: the authors' setup, one fit. fast: the workflow's own procedure, exactly as rule
    # tapt_fit runs it (config.yaml tapt.bayes: nutpie, checks, and a refit with more draws
    # when a check fails), so any refit is inside the timed call.
    bayes_cfg = yaml.safe_load((ROOT / "config.yaml").read_text())["tapt"]["bayes"]
    fast_settings, thresholds = steps.sampler_settings(bayes_cfg, args.cores)
    results = {}

    start = time.perf_counter()
    idata = bayes.fit(hierarchical.build(long),
                      bayes.SamplerSettings(backend="pymc", cores=args.cores))
    s = bayes.summarize(idata, beta)
    s.update(draws_per_chain=idata.posterior.sizes["draw"],
             divergences=bayes.divergences(idata))
    results["pymc"] = (time.perf_counter() - start, s)

    start = time.perf_counter()
    fit = posteriors.fit_one(acc, args.comparison, "authors", settings=fast_settings,
                             thresholds=thresholds, ppd=False, on_failure="warn",
                             max_draws=bayes_cfg["max_draws"])
    results["fast"] = (time.perf_counter() - start, fit.summary)

    for name, (seconds, s) in results.items():
        backend = "pymc" if name == "pymc" else fast_settings.backend
        print(f"{name:>5} ({backend}): {seconds:7.1f} s  beta mean {s['mean']:+.5f} "
              f"sd {s['sd']:.5f} mcse {s['mcse_mean']:.5f} r_hat {s['r_hat']:.3f} "
              f"ess_bulk {s['ess_bulk']:.0f} divergences {s['divergences']} "
              f"draws/chain {s['draws_per_chain']}")

    (t_slow, a), (t_fast, b) = results["pymc"], results["fast"]
    mc = np.hypot(a["mcse_mean"], b["mcse_mean"])
    same = abs(a["mean"] - b["mean"]) < 3 * mc
    print(f"difference of means {a['mean'] - b['mean']:+.5f} (3 x combined MCSE {3 * mc:.5f}): "
          f"{'same posterior within MC error' if same else 'DIFFERENT'}; "
          f"sd ratio {b['sd'] / a['sd']:.3f}")
    print(f"speedup: {t_slow / t_fast:.1f}x")


if __name__ == "__main__":
    main()
