"""The `mc_icl` block of docs/mc_icl.md: the summary table rendered from result files
(registered in evalsci/pipeline/doc_blocks.yaml, written by rule docs_tables)."""

from __future__ import annotations

import pandas as pd

from evalsci.tables import markdown_table


def _share(share: float, prompts: int) -> str:
    """A share of one-shot prompts with its exact (Clopper-Pearson) 95% interval: the prompts
    are a sample of the trials' possible first demonstrations."""
    from scipy.stats import binomtest

    k = round(share * prompts)
    ci = binomtest(k, prompts).proportion_ci(0.95, "exact")
    return f"{k} of {prompts} [{100 * ci.low:.0f}%, {100 * ci.high:.0f}%]"


def summary(paths) -> str:
    """docs/mc_icl.md's table: the summary's columns as a reader scans them (3 decimals)."""
    from evalsci.studies.mc_icl.params import DATASET_NAMES

    s = pd.read_csv(paths["summary"])
    f = "{:.3f}".format
    rows = [
        {
            "model": r.model,
            "dataset": DATASET_NAMES.get(r.dataset, r.dataset),
            "n": r.n,
            "zero-shot": f(r.zero_shot),
            "one-shot mean (min-max)": f"{f(r.one_shot_mean)} ({f(r.one_shot_min)}-{f(r.one_shot_max)})",
            "one-shot below zero-shot [95% CI]": _share(
                r.one_shot_below_zero_shot, r.one_shot_prompts
            ),
            "k = K mean": f(r.k_max_mean),
            "best k (acc)": f"{r.best_k} ({f(r.best_k_accuracy)})",
            "best prompt": f(r.best_prompt),
            "random": f(r.random),
            "max random best k / best prompt": f"{f(r.max_random_best_k)} / {f(r.max_random_best_prompt)}",
        }
        for r in s.itertuples()
    ]
    return markdown_table(pd.DataFrame(rows))
