"""The `mc_icl` block of docs/mc_icl.md: the summary table rendered from result files
(registered in evalsci/pipeline/doc_blocks.yaml, written by rule docs_tables)."""

from __future__ import annotations

import pandas as pd

from evalsci.claims.render import study_block
from evalsci.tables import markdown_table


def claims(paths) -> str:
    """docs/mc_icl.md: the study's claims ledger (input `claims`), rows as it holds them."""
    return study_block(paths)


def _share(share: float, prompts: int) -> str:
    """A share of one-shot prompts with its exact (Clopper-Pearson) 95% interval: the prompts
    are a sample of the trials' possible first demonstrations."""
    from scipy.stats import binomtest

    k = round(share * prompts)
    ci = binomtest(k, prompts).proportion_ci(0.95, "exact")
    return f"{k} of {prompts} [{100 * ci.low:.0f}%, {100 * ci.high:.0f}%]"


def summary(paths, share: bool = True) -> str:
    """docs/mc_icl.md's table: the summary's columns as a reader scans them (3 decimals).
    `share`: with the share of one-shot prompts below zero-shot and its interval (the recorded
    CPU run's block leaves it out: its findings test each one-shot prompt instead)."""
    from evalsci.studies.mc_icl.params import DATASET_NAMES

    s = pd.read_csv(paths["summary"])
    f = "{:.3f}".format
    rows = []
    for r in s.itertuples():
        row = {
            "model": r.model,
            "dataset": DATASET_NAMES.get(r.dataset, r.dataset),
            "n": r.n,
            "zero-shot": f(r.zero_shot),
            "one-shot mean (min-max)": f"{f(r.one_shot_mean)} ({f(r.one_shot_min)}-{f(r.one_shot_max)})",
        }
        if share:
            row["one-shot below zero-shot [95% CI]"] = _share(
                r.one_shot_below_zero_shot, r.one_shot_prompts
            )
        rows.append(
            row
            | {
                "k = K mean": f(r.k_max_mean),
                "best k (acc)": f"{r.best_k} ({f(r.best_k_accuracy)})",
                "best prompt": f(r.best_prompt),
                "random": f(r.random),
                "max random best k / best prompt": f"{f(r.max_random_best_k)} / {f(r.max_random_best_prompt)}",
            }
        )
    return markdown_table(pd.DataFrame(rows))


#: the findings' names as the docs print them (paper 004, Section 5.1)
FINDING_LABELS = {
    "plateau": "averaged curve: most of the gain by k = 8, then a plateau",
    "erratic": "single curves keep changing after k = 8",
    "erratic_after_4": "single curves keep changing after k = 4",
    "late_best": "a curve's best k lies after k = 8",
    "one_shot_below": "some one-shot prompts below zero-shot",
    "one_shot_above": "some one-shot prompts above zero-shot",
    "one_shot_depends": "one-shot accuracy depends on the example",
}


def findings(paths) -> str:
    """The Section 5.1 findings of a run: each finding's test outcome, the verdict the one rule
    gives it (evalsci.stats.agreement, through mc_icl.claims.verdict_of) and, where the run
    cannot test it, the measured reason."""
    from evalsci.studies.mc_icl.claims import verdict_of
    from evalsci.studies.mc_icl.params import DATASET_NAMES

    f = pd.read_csv(paths["findings"], keep_default_na=False)
    rows = []
    for r in f.to_dict("records"):
        v = verdict_of([r])
        rows.append(
            {
                "dataset": f"{r['model']}, {DATASET_NAMES.get(r['dataset'], r['dataset'])} "
                f"(n = {r['n']}, {r['curves']} curves, K = {r['K']})",
                "finding (Sec. 5.1)": FINDING_LABELS.get(r["finding"], r["finding"]),
                "ours": r["ours"] or "-",
                "uncertainty": r["uncertainty"] or "-",
                "test": r["test"] or "-",
                "outcome": r["outcome"],
                "verdict": v.verdict.replace("_", " "),
                "why untestable": r["reason"] or "-",
            }
        )
    return markdown_table(pd.DataFrame(rows))


def cpu_run(paths) -> str:
    """The recorded CPU-scale run (preset cpu): what its shards cost, its summary and its
    findings."""
    from evalsci import runrecord
    from evalsci.studies.mc_icl.claims import SHARD_GROUP, node_cost

    rec = runrecord.load(paths["record"])
    found = pd.read_csv(paths["findings"], keep_default_na=False)
    shards = [j for g, j in rec["benchmarked_jobs"].items() if g.startswith(SHARD_GROUP)]
    cpu, wall = sum(j["cpu_s"] for j in shards), sum(j["wall_s"] for j in shards)
    cost = (
        f"The inference ({sum(j['jobs'] for j in shards)} shard(s), Snakemake's benchmark): "
        f"{cpu:,.0f} CPU-s in {wall:,.0f} s of wall time, {node_cost(rec, found):.0f} CPU-s per "
        f"prompt of n = {int(found['n'].iloc[0])} validation examples (model loading "
        "included).\n\n"
    )
    return cost + summary(paths, share=False) + "\n" + findings(paths)
