"""Bulk ESS per second of beta: PyMC's default NUTS (the authors' setup) against ours.

    EVALSCI_MIRROR=../shared/released .venv/bin/python benchmarks/bayes_fit.py \
        [--config m100_n500] [--comparisons bias boost] [--cores 2] [--not-portable] \
        [--model compare|tapt|both] [--backend evalsci|pymc|nutpie] [--smoke]

Two models (`--model`, default both):
- "compare": the model of `evalsci compare` (evalsci.compare.model: the Section 6 model with
  one LM type and no subsamples, tapt's priors) on the configuration's released accuracies
  summed per (dataset, method) cell over LMs and subsamples. "pymc" is the same model as bambi
  builds it, `p(y, n) ~ method + (1|dataset) + (1|dataset:method)` with every prior explicit,
  under PyMC's default NUTS (4 chains x 1,000 draws after 1,000 tuning steps); "ours" is
  `evalsci.compare.fit.sample_cells`, the portable numpy NUTS with its defaults (4 x 500 after
  500), compilation-free. Printed as below; the last line `speedup (compare): <ratio>x`.
- "tapt": the study's own fits, as follows.
`--smoke`: the compare model only, on a 12-task subset, PyMC with 2 chains x 100 draws.

For each comparison (default both, bias and boost) of one configuration, the same bambi
model, priors, data and seed are fitted twice:
- "pymc": the authors' setup: bambi's default non-centred parametrisation, PyMC's NUTS,
  4 chains x 1,000 draws after 500 tuning steps, `cores` worker processes;
- "ours": the workflow's own checked fit, `evalsci.studies.tapt.posteriors.fit_one` with
  the resolved config `tapt.bayes` (its backend as the workflow resolves it: PyMC's NUTS under portable
  arithmetic, the default, whose pins this script sets as the workflow does; nutpie with
  `--not-portable`; `--backend evalsci`: `evalsci compare`'s function on the whole model,
  evalsci.studies.tapt.reparam.GridModel; task effects centred, the comparison's mass matrix
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
    ap.add_argument("--model", choices=("compare", "tapt", "both"), default="both")
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument(
        "--backend",
        choices=("evalsci", "pymc", "nutpie"),
        help="tapt.bayes.backend of 'ours' in the tapt model (default: as the config resolves it)",
    )
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
    from evalsci.studies.tapt import data, hierarchical, posteriors
    from evalsci.studies.tapt.settings import Bayes

    mirror = Path(os.environ.get("EVALSCI_MIRROR", Path(__file__).parents[2] / "shared/released"))
    files = [
        f
        for f in data.released_files(mirror / "kddubey-pretrain-on-test")
        if data.config_name(*(lambda m, n, lm, d: (lm, m, n))(*data.parse_path(f))) == args.config
    ]
    if not files:
        raise SystemExit(f"no released accuracies for configuration {args.config!r}")
    acc = data.load_accuracies(files)
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.smoke:
        args.model = "compare"
    if args.model in ("compare", "both"):
        compare_model(acc, args)
    if args.model == "compare":
        return
    section = dict(full_cfg["tapt"]["bayes"])
    if args.backend:
        section["backend"] = args.backend
    bayes_cfg = Bayes.from_config(section, portable=portable, recompute=False)
    print(f"portable: {portable}; ours: {bayes_cfg.backend}")

    ratios = {}
    for comparison in args.comparisons:
        fast_settings, thresholds = bayes_cfg.sampler(args.cores, comparison)
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
                max_draws=bayes_cfg.max_draws,
                noncentred_contrast=bayes_cfg.noncentred(comparison),
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


def compare_model(acc, args) -> None:
    """PyMC's default NUTS against evalsci.compare's sampler on the same cells and model."""
    import pandas as pd

    from evalsci.compare import model as cmp_model
    from evalsci.compare.fit import FitSettings, sample_cells
    from evalsci.stats import bayes
    from evalsci.studies.tapt import hierarchical

    for comparison in args.comparisons:
        long = hierarchical.long_format(acc, comparison)
        control, treatment = sorted(long["method"].unique())
        cells = long.groupby(["dataset", "method"])[["num_correct", "num_test"]].sum()
        tasks = sorted(long["dataset"].unique())
        if args.smoke:
            tasks = tasks[:12]
        c = cmp_model.Cells(
            tuple(tasks),
            [cells.loc[(t, control), "num_test"] for t in tasks],
            [cells.loc[(t, control), "num_correct"] for t in tasks],
            [cells.loc[(t, treatment), "num_test"] for t in tasks],
            [cells.loc[(t, treatment), "num_correct"] for t in tasks],
        )
        frame = pd.DataFrame(
            [
                {"dataset": t, "method": m, "num_correct": int(y), "num_test": int(n)}
                for t, na, ya, nb, yb in zip(c.tasks, c.n_a, c.y_a, c.n_b, c.y_b, strict=True)
                for m, n, y in ((control, na, ya), (treatment, nb, yb))
            ]
        )
        priors = {
            "Intercept": bayes.PriorSpec("Normal", {"mu": 0.0, "sigma": cmp_model.PRIOR_MU_SD}),
            "method": bayes.PriorSpec("Normal", {"mu": 0.0, "sigma": cmp_model.PRIOR_BETA_SD}),
            "1|dataset": bayes.PriorSpec(
                "Normal",
                {
                    "mu": 0.0,
                    "sigma": bayes.PriorSpec("HalfNormal", {"sigma": cmp_model.PRIOR_SIGMA_U}),
                },
            ),
            "1|dataset:method": bayes.PriorSpec(
                "Normal",
                {
                    "mu": 0.0,
                    "sigma": bayes.PriorSpec("HalfNormal", {"sigma": cmp_model.PRIOR_SIGMA_W}),
                },
            ),
        }
        formula = "p(num_correct, num_test) ~ method + (1|dataset) + (1|dataset:method)"
        size = (100, 100, 2) if args.smoke else (1000, 1000, 4)  # draws, tune, chains
        print(
            f"\ncompare model, {args.config} {comparison}: {len(tasks)} tasks x 2 cells; {formula}"
        )

        def pymc_fit(
            frame=frame, beta=f"method[{treatment}]", formula=formula, priors=priors, size=size
        ):
            model = bayes.build_model(formula, frame, priors)
            idata = bayes.fit(
                model,
                bayes.SamplerSettings(
                    backend="pymc", cores=args.cores, draws=size[0], tune=size[1], chains=size[2]
                ),
            )
            s = bayes.summarize(idata, beta)
            return s["mean"], s["sd"], s["ess_bulk"], s["r_hat"], s["divergences"]

        def our_fit(cells=c):
            import arviz as az

            fit = sample_cells(cells, FitSettings())
            beta = fit.post["beta"]
            return (float(beta.mean()), float(beta.std(ddof=1)),
                    float(az.ess(beta, method="bulk")), fit.diagnostics["beta"][0], fit.divergences)  # fmt: skip

        rate = {}
        res = {}
        for name, fn in (("pymc", pymc_fit), ("ours", our_fit)):
            (mean, sd, ess, r_hat, div), wall, cpu = timed(fn)
            rate[name] = ess / wall
            res[name] = (mean, sd, ess)
            print(
                f"{name:>5}: {wall:7.1f} s wall {cpu:7.1f} CPU-s  beta mean {mean:+.5f} sd {sd:.5f} "
                f"r_hat {r_hat:.3f} ess_bulk {ess:.0f} divergences {div}  ESS/s {rate[name]:.1f} "
                f"(per CPU-s {ess / cpu:.1f})"
            )
        (ma, sa, ea), (mb, sb, eb) = res["pymc"], res["ours"]
        mc = np.hypot(sa / np.sqrt(ea), sb / np.sqrt(eb))
        same = abs(ma - mb) < 3 * mc
        print(
            f"difference of means {ma - mb:+.5f} (3 x combined MCSE {3 * mc:.5f}): "
            f"{'same posterior within MC error' if same else 'DIFFERENT'}; sd ratio {sb / sa:.3f}"
        )
        print(f"speedup (compare, {comparison}): {rate['ours'] / rate['pymc']:.1f}x")


if __name__ == "__main__":
    main()
