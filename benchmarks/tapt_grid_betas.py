"""The tapt study's beta for the 8 main configurations (boost and bias, the authors' model)
fitted with backend "evalsci" (`evalsci compare`'s function, evalsci.compare.fit.sample_cells
on evalsci.compare.grid), against the recorded paper-scale run's posteriors.

    EVALSCI_MIRROR=../shared/released OMP_NUM_THREADS=1 python benchmarks/tapt_grid_betas.py \
        [--configs m50_n50 ...] [--comparisons bias boost] [--out FILE.csv] [--smoke]

Each fit is the workflow's own: `evalsci.studies.tapt.posteriors.fit_one` with the default
preset's `tapt.bayes` (the paper preset does not change it: 4 chains x 1,000 draws after 500
tuning steps, seed 123, target acceptance 0.9, the convergence checks and their refits) and
the posterior predictive, under the portable pins as a workflow job. The reference is the
recorded paper-scale run rendered in docs/tapt.md (block tapt_paper_beta_posteriors: PyMC's
NUTS on the reparametrised bambi model; beta's posterior mean and 89% HDI to 3 decimals).
Printed per fit: ours (mean, sd, 89% HDI, bulk ESS, divergences, draws per chain, checks,
CPU-s) beside the reference, and whether our posterior mean lies inside the reference's 89%
HDI; last line `within: <k> of <n>`. `--smoke`: m100_n500 bias with 2 chains x 100 draws after 100, no refit, checks relaxed.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAIN = [f"m{m}_n{n}" for m in (50, 100) for n in (50, 100, 200, 500)]


def reference() -> dict[tuple[str, str], tuple[float, float, float]]:
    """(config, comparison) -> (mean, hdi low, hdi high) of the recorded paper-scale run."""
    text = (ROOT / "docs/tapt.md").read_text()
    block = text.split("<!-- generated:tapt_paper_beta_posteriors:start -->")[1].split(
        "<!-- generated:tapt_paper_beta_posteriors:end -->"
    )[0]
    row = re.compile(
        r"^\| (\S+) \| (bias|boost) \| authors \| ([-+\d.]+) \[([-+\d.]+), ([-+\d.]+)\] \|", re.M
    )
    return {(c, k): (float(a), float(lo), float(hi)) for c, k, a, lo, hi in row.findall(block)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--configs", nargs="+", default=MAIN)
    ap.add_argument("--comparisons", nargs="+", default=["bias", "boost"])
    ap.add_argument("--out", type=Path)
    ap.add_argument("--smoke", action="store_true")
    args = ap.parse_args()

    from evalsci.pipeline.determinism import apply_portable

    env = dict(os.environ)
    if apply_portable(True, env) and env != os.environ:
        os.execve(sys.executable, [sys.executable, *sys.argv], env)

    import dataclasses

    import pandas as pd

    from evalsci.studies.tapt import data, posteriors
    from evalsci.studies.tapt.settings import resolved_settings

    mirror = Path(os.environ.get("EVALSCI_MIRROR", ROOT.parent / "shared/released"))
    files = data.released_files(mirror / "kddubey-pretrain-on-test")
    acc_all = data.load_accuracies(files)
    bayes = resolved_settings(bayes={"backend": "evalsci"}).bayes
    ref = reference()
    if args.smoke:
        args.configs, args.comparisons = ["m100_n500"], ["bias"]
    rows = []
    for config in args.configs:
        acc = acc_all[acc_all["config"] == config]
        for comparison in args.comparisons:
            settings, thresholds = bayes.sampler(1, comparison)
            if args.smoke:  # the wiring, not convergence: 200 draws cannot pass the checks
                settings = dataclasses.replace(settings, chains=2, draws=100, tune=100)
                thresholds = dataclasses.replace(
                    thresholds, max_r_hat=10, max_r_hat_nuisance=10, min_ess_bulk=0
                )
            cpu = time.process_time()
            r = posteriors.fit_one(
                acc,
                comparison,
                "authors",
                settings=settings,
                thresholds=thresholds,
                on_failure="warn",
                max_draws=settings.draws if args.smoke else bayes.max_draws,
            )
            s = dict(r.summary, cpu_seconds=time.process_time() - cpu)
            mean, lo, hi = ref[(config, comparison)]
            s.update(ref_mean=mean, ref_low=lo, ref_high=hi, within=lo <= s["mean"] <= hi)
            rows.append(s)
            print(
                f"{config} {comparison}: ours {s['mean']:+.4f} (sd {s['sd']:.4f}) "
                f"[{s['hdi_5.5']:+.4f}, {s['hdi_94.5']:+.4f}] ess {s['ess_bulk']:.0f} "
                f"div {s['divergences']} draws {s['draws_per_chain']} checks "
                f"{'pass' if s['diagnostics_ok'] else 'FAIL'} {s['cpu_seconds']:.1f} CPU-s | "
                f"recorded {mean:+.3f} [{lo:+.3f}, {hi:+.3f}] | "
                f"{'within' if s['within'] else 'OUTSIDE'}",
                flush=True,
            )
    t = pd.DataFrame(rows)
    if args.out:
        t.to_csv(args.out, index=False)
    print(f"within: {int(t['within'].sum())} of {len(t)}")


if __name__ == "__main__":
    main()
