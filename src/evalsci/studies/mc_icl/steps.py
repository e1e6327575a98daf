"""The functions the study's rules run, one per rule (workflow/rules/mc_icl.smk, through the
one adapter workflow/scripts/call.py): each takes its rule's named inputs, outputs and params
as keyword arguments, paths in, files out (tests/test_rule_calls.py holds the names to the
rules). The inference itself is in `shards.py`."""

from __future__ import annotations

import json
import logging

import pandas as pd

from evalsci.pipeline.jobs import atomic_path
from evalsci.studies.mc_icl.params import McIclSettings

log = logging.getLogger(__name__)


def shard(
    scores,
    params: McIclSettings,
    seed: int,
    spec,
    lm,
    model: str,
    dataset: str,
    mc_icl_run: str,
    checkpoint=None,
    glue=None,
    sets=None,
) -> None:
    """Rule mc_icl_shard: per-example, per-choice log-likelihoods of one trial (or one selected
    set). `checkpoint`: the model's files (the spec says how to load them); `glue`: the bundle
    of an offline dataset; `sets`: the selected sets of a set run."""
    from .shards import run_shard

    del checkpoint  # an input so that the shard reruns when the model changes
    run_shard(
        model,
        spec,
        dataset,
        mc_icl_run,
        params,
        seed,
        scores,
        glue_root=glue,
        sets_path=sets,
        lm=lm,
    )


def maxrandom_requests(requests, params: McIclSettings, seed: int) -> None:
    """Rule mc_icl_maxrandom_requests: the (n, labels, t) of every selection of Figures 1-4."""
    from evalsci.maxrandom.requests import write_requests

    from .maxrandom_requests import requests as build

    df = write_requests(build(list(params.datasets), params, seed), requests)
    print(df.to_string())


def make_accuracy_tables(
    scores, baselines, accuracy, summary, findings, params: McIclSettings
) -> None:
    """Rule mc_icl_make_accuracy_tables: accuracy_by_k.csv, the summary table and the
    Section 5.1 findings (findings.csv: each a stated test, or why this run cannot test it)."""
    score_paths, baselines_path, accuracy_out, summary_out = scores, baselines, accuracy, summary
    from evalsci.tables import write_table

    from .figures import read_baselines
    from .findings import findings as find
    from .scores import accuracy_by_k, read_scores
    from .summary import summary as summarise
    from .templates import num_choices

    sc = read_scores(score_paths)
    acc = accuracy_by_k(sc)
    with atomic_path(accuracy_out) as tmp:
        acc.to_csv(tmp, index=False)
    table = summarise(acc, read_baselines(baselines_path), params.num_eval)
    write_table(table, summary_out)
    print(table.to_string())
    found = find(sc, {d: num_choices(d) for d in params.datasets})
    with atomic_path(findings) as tmp:
        found.to_csv(tmp, index=False)
    print(found[["model", "dataset", "finding", "outcome"]].to_string())


def selection(scores, glue, values, sets, params: McIclSettings, seed: int, dataset: str) -> None:
    """Rule mc_icl_selection: Section 5.2 values, Z-scores and the high/low/random sets.
    `glue`: the bundle of an offline dataset, or none."""
    score_paths, glue_root, values_out, sets_out = scores, glue, values, sets
    from .scores import read_scores
    from .selection import example_values, passed, random_set, select
    from .shards import load_data

    size, z = params.selection.set_size, params.selection.z_threshold
    values = example_values(read_scores(score_paths))
    sets = select(values, size, z)
    if min(len(sets["high"]), len(sets["low"])) < size:
        log.warning(
            "fewer than %d examples pass |Z| > %g (%s); filling up with the next most extreme ones",
            size,
            z,
            {k: len(v) for k, v in sets.items()},
        )
        sets = select(values, size, z, fill=True)
    sets["passed_threshold"] = {s: passed(values, sets[s], z, s) for s in ("high", "low")}
    train, _ = load_data(dataset, glue_root or None)
    sets["random"] = random_set([e["idx"] for e in train], size, seed, dataset)
    with atomic_path(values_out) as tmp:
        values.to_csv(tmp, index=False)
    with atomic_path(sets_out) as tmp:
        tmp.write_text(json.dumps(sets, indent=1) + "\n")
    print(values.to_string(), sets, sep="\n")


def make_figure(accuracy, baselines, figure, params: McIclSettings, n) -> None:
    """Rule mc_icl_make_figure: Figure n (1, 2, 3, 5-20) from the accuracy table."""
    accuracy_path, baselines_path, outputs, n = accuracy, baselines, figure, int(n)
    from . import figures
    from .params import one_shot_figures, trial_figures
    from .scores import check_accuracy

    acc = check_accuracy(pd.read_csv(accuracy_path), accuracy_path)
    base = figures.read_baselines(baselines_path)
    if n == 1:
        figures.figure1(acc, base, list(params.models), list(params.datasets), outputs)
    elif n == 2 or n in trial_figures(params):
        d = params.figure2_dataset if n == 2 else trial_figures(params)[n]
        figures.permutation_curves(acc, base, list(params.models), d, 0, outputs)
    elif n == 3 or n in one_shot_figures(params):
        d = params.figure3_dataset if n == 3 else one_shot_figures(params)[n]
        figures.one_shot(acc, base, list(params.models), d, outputs)
    else:
        raise ValueError(f"figure {n}: its dataset is not in config mc_icl.datasets")


def figure4_data(scores, sets, accuracy) -> None:
    """Rule mc_icl_figure4_data: accuracy of the Section 5.2 set runs (`sets`: the selected
    sets, an input so that a new selection reruns it; the scores record their set)."""
    score_paths, accuracy_out = scores, accuracy
    del sets
    from .scores import accuracy_by_set, read_scores

    acc = accuracy_by_set(read_scores(score_paths))
    with atomic_path(accuracy_out) as tmp:
        acc.to_csv(tmp, index=False)
    print(acc.groupby(["model", "dataset", "set", "k"])["accuracy"].agg(["mean", "std"]))


def make_figure4(accuracy, baselines, figure) -> None:
    """Rule mc_icl_make_figure4: high/low/random sets with the max random baseline."""
    accuracy_path, baselines_path, outputs = accuracy, baselines, figure
    from . import figures

    acc = pd.read_csv(accuracy_path)
    figures.figure4(acc, figures.read_baselines(baselines_path), outputs)
