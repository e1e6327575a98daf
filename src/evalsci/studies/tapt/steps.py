"""The functions the tapt rules run (workflow/rules/tapt*.smk, through workflow/scripts/call.py):
each takes its rule's named inputs, outputs and params (paths from the study's plan,
evalsci.studies.tapt.plan; settings from its settings object, evalsci.studies.tapt.settings),
reads and checks its inputs, and writes its outputs atomically."""

from __future__ import annotations

import dataclasses
import json
import logging
from pathlib import Path

import pandas as pd

from evalsci import reference
from evalsci.data.checked import read_checked
from evalsci.pipeline.jobs import atomic_path, configure_threads
from evalsci.stats import bayes as stats_bayes
from evalsci.studies.tapt import data, meta, permutation, posteriors, table1  # figures: lazily
from evalsci.studies.tapt.columns import SLICE_COLUMNS, SUMMARY_COLUMNS
from evalsci.studies.tapt.settings import Bayes, Meta, Pca, Permutation, Simulate, Training
from evalsci.studies.tapt.training.settings import RunSettings
from evalsci.tables import write_table

log = logging.getLogger(__name__)


def write_accuracies(files: list[str], out: str, released: bool = False) -> None:
    acc = data.load_accuracies(files, released=released)
    log.info(
        "%d accuracies rows from %d files; configurations %s",
        len(acc),
        len(files),
        data.config_order(acc["config"]),
    )
    with atomic_path(out) as tmp:
        acc.to_csv(tmp, index=False)


def make_accuracies(
    accuracies: str, bundle: str | None = None, files: list[str] | None = None
) -> None:
    """Rule tapt_accuracies: the released bundle's accuracies.csv files (`bundle`), or the
    recompute rules' (`files`), as one long table."""
    released = files is None
    write_accuracies(
        data.released_files(bundle) if released else list(files), accuracies, released=released
    )


def load(acc_path: str, config: str | None = None) -> pd.DataFrame:
    acc = data.read_table(acc_path)
    if config is not None:
        acc = acc[acc["config"] == config]
        if acc.empty:
            raise ValueError(f"{acc_path}: no accuracies for configuration {config!r}")
    return acc


def make_table1(accuracies: str, table) -> None:
    t = table1.table1(load(accuracies))
    write_table(t, table, floatfmt=".4f")


def task_level(acc: pd.DataFrame) -> pd.DataFrame:
    """Section 7: per task, the boost and bias averaged with equal weight over every
    (m, n, LM) of the main experiment (mean of the per-cell means)."""
    d = table1.differences(acc[acc["family"] == "main"])
    cells = d.groupby(["dataset", "m", "n", "lm"])[["boost", "bias"]].mean()
    out = cells.groupby("dataset").mean().reset_index()
    return out.sort_values("bias", ignore_index=True)


def make_task_level(accuracies: str, table) -> None:
    t = task_level(load(accuracies))
    ref = reference.load("tapt")["conclusions"]
    log.info(
        "tasks with boost < 0: %s (paper: %s)",
        list(t.loc[t["boost"] < 0, "dataset"]),
        ref["task_boost_negative"]["tasks"],
    )
    log.info(
        "tasks with bias > 0: %d, < 0: %d (paper 12, 13); max |bias| %.4f",
        (t["bias"] > 0).sum(),
        (t["bias"] < 0).sum(),
        t["bias"].abs().max(),
    )
    write_table(t, table, floatfmt=".4f")


def make_differences_figures(accuracies: str, configs: list[str], figures) -> None:
    """One figure (PDF + PNG, in `figures` in config order) per configuration."""
    # imported here: matplotlib and scipy.stats cost ~1 s of every job that imports steps
    from evalsci.studies.tapt import figures as plots

    outputs = list(figures)
    per = len(outputs) // len(configs)
    if per * len(configs) != len(outputs):
        raise ValueError(f"{len(outputs)} outputs for {len(configs)} configurations")
    acc = load(accuracies)
    for i, config in enumerate(configs):
        one = acc[acc["config"] == config]
        if one.empty:
            raise ValueError(f"{accuracies}: no accuracies for configuration {config!r}")
        plots.plot_differences(one, outputs[i * per : (i + 1) * per])


def make_permutation(accuracies: str, tests, summary, settings: Permutation, seed: int) -> None:
    """Per-task paired permutation tests (eqs. 9-10), BH across the tasks of a configuration."""
    alpha = settings.alpha
    t = permutation.permutation_tests(
        load(accuracies), seed=seed, n_resamples=settings.n_resamples, alpha=alpha
    )
    order = {c: i for i, c in enumerate(data.config_order(t["config"]))}
    t = t.sort_values(
        ["config", "lm", "comparison", "alternative", "dataset"],
        key=lambda s: s.map(order) if s.name == "config" else s,
        ignore_index=True,
    )
    write_table(t, tests, floatfmt=".4f")
    write_table(permutation.permutation_summary(t, alpha), summary, floatfmt=".4f")


def fit(
    accuracies: str,
    summary: list[str],
    draws: list[str],
    diagnostics: list[str],
    config: str,
    variant: str,
    comparisons,
    bayes: Bayes,
    count_rule: str,
    threads: int,
) -> None:
    """Rule tapt_fit: the Section 6 model for one configuration and variant, each comparison
    in turn (`summary`, `draws`, `diagnostics`: one file per comparison, in their order)."""
    # each NUTS chain is one process of one thread; `threads` chains run at once
    configure_threads(1)
    for i, comparison in enumerate(comparisons):
        make_fit(
            accuracies,
            config,
            comparison,
            variant,
            bayes=bayes,
            count_rule=count_rule,
            cores=threads,
            summary_out=summary[i],
            draws_out=draws[i],
            diagnostics_out=diagnostics[i],
        )


def make_fit(
    acc_path: str,
    config: str,
    comparison: str,
    variant: str,
    *,
    bayes: Bayes,
    count_rule: str,
    cores: int,
    summary_out: str,
    draws_out: str,
    diagnostics_out: str,
) -> None:
    settings, thresholds = bayes.sampler(cores, comparison)
    result = posteriors.fit_one(
        load(acc_path, config),
        comparison,
        variant,
        settings=settings,
        thresholds=thresholds,
        counts=count_rule,
        on_failure=bayes.on_failure,
        max_draws=bayes.max_draws,
        noncentred_contrast=bayes.noncentred(comparison),
    )
    with atomic_path(summary_out) as tmp:
        tmp.write_text(json.dumps(result.summary, indent=1) + "\n")
    with atomic_path(draws_out) as tmp:
        result.draws.to_csv(tmp, index=False, compression="gzip")
    with atomic_path(diagnostics_out) as tmp:
        result.diagnostics.to_csv(tmp, index=False)


def make_beta_table(summaries: list[str], table) -> None:
    rows = [json.loads(Path(p).read_text()) for p in summaries]
    t = pd.DataFrame(rows)
    missing = [c for c in SUMMARY_COLUMNS if c not in t.columns]
    if missing:
        raise ValueError(f"fit summaries lack {missing}")
    order = {c: i for i, c in enumerate(data.config_order(t["config"]))}
    t = t.sort_values(
        ["variant", "config", "comparison"],
        key=lambda s: s.map(order) if s.name == "config" else s,
        ignore_index=True,
    )
    write_table(t[list(SUMMARY_COLUMNS)], table, floatfmt=".4f")


def _read_draws(paths: list[str]) -> pd.DataFrame:
    frames = []
    for p in paths:
        # .../fits/{config}/{comparison}_{variant}.draws.csv.gz
        comparison, variant = Path(p).name.split(".")[0].split("_", 1)
        d = read_checked(p, ["chain", "draw", "beta"])
        frames.append(d.assign(config=Path(p).parent.name, comparison=comparison, variant=variant))
    return pd.concat(frames, ignore_index=True)


# Experiment family -> its paper figure in the artefact registry (src/evalsci/pipeline/artefacts.yaml),
# which gives the figure's title. The packing variant has no figure in the paper.
FAMILY_FIGURES = {
    "main": "tapt.figure2",
    "overtraining": "tapt.figure3",
    "zero_shot": "tapt.figure4",
}


def family_title(family: str) -> str:
    from evalsci.pipeline import artefacts

    if family in FAMILY_FIGURES:
        return artefacts.figure_title(FAMILY_FIGURES[family], "002")
    return "Zero-shot with packing (Section 9)"


def make_posterior_figure(draws: list[str], family: str, ppd, beta) -> None:
    """Posterior predictive average differences (Figs. 2-4) and posteriors of beta of one
    experiment family, authors' model variant."""
    from evalsci.studies.tapt import figures

    d = _read_draws(draws)
    d = d[d["variant"] == "authors"]
    figures.plot_posterior_predictive(d, ppd, title=family_title(family))
    figures.plot_posterior_predictive(
        d, beta, column="beta", title=f"Posterior of beta: {family} (authors' model)"
    )


def make_meta_slices(
    accuracies: str,
    slices: str,
    config: str,
    settings: Meta,
    bayes: Bayes,
    count_rule: str,
    seed: int,
    threads: int,
) -> None:
    """Rule tapt_meta_slices: Section 10 fits to unreplicated slices of one configuration
    (`threads` worker processes, one thread each)."""
    configure_threads(1)
    out = meta.run_meta(
        load(accuracies, config),
        n_slices=settings.n_slices,
        seed=seed,
        draws=bayes.draws,
        tune=settings.tune,
        workers=threads,
        counts=count_rule,
        backend=bayes.meta_backend,
        target_accept=settings.target_accept,
    )
    bad = out["divergences"] > bayes.max_divergences
    if bad.any():
        msg = f"{config}: {int(bad.sum())} of {len(out)} meta-analysis slices had divergences"
        if bayes.on_failure == "error":
            raise stats_bayes.DiagnosticsError(msg)
        log.warning(msg)
    with atomic_path(slices) as tmp:
        out.to_csv(tmp, index=False)


def make_meta_table(slices: list[str], settings: Meta, table, figure) -> None:
    from evalsci.studies.tapt import figures

    thresholds = settings.thresholds
    frames = pd.concat([read_checked(p, SLICE_COLUMNS) for p in slices], ignore_index=True)
    t = meta.meta_table(frames, thresholds)
    ref = {row[0]: row[3] for row in reference.load("tapt")["conclusions"]["meta_analysis"]["rows"]}
    t["p_outside_paper"] = t["config"].map(ref)
    write_table(t, table, floatfmt=".3f")
    figures.plot_meta_ecdf(frames, thresholds, figure)


# Appendix E.1 and G -------------------------------------------------------------------------
def make_prior_predictive(
    accuracies: str, table, figure, settings: Simulate, config: str, seed: int, count_rule: str
) -> None:
    """Rule tapt_make_prior_predictive: Figure 7, on the design of configuration `config`
    (the plan's choice: Plan.prior_predictive_config)."""
    from evalsci.studies.tapt import hierarchical, simulate

    long = hierarchical.long_format(load(accuracies, config), "bias", count_rule)
    pp = simulate.prior_predictive(long, draws=settings.prior_draws, seed=seed)
    summary = simulate.prior_summary(pp)
    summary.insert(0, "config", config)
    write_table(summary, table, floatfmt=".3f")
    simulate.plot_prior_predictive(pp, figure)


def make_recovery(table, figure, settings: Simulate, bayes: Bayes, seed: int, threads: int) -> None:
    """Rule tapt_make_recovery: Figure 8 (`threads` chains at once, one thread each)."""
    from evalsci.studies.tapt import simulate

    configure_threads(1)
    sampler, thresholds = bayes.sampler(threads)
    sampler = dataclasses.replace(sampler, target_accept=settings.target_accept)
    # config tapt.simulate: by default the paper's m = 100, n = 200 design
    design = simulate.design(
        n_lms=settings.n_lms, n_tasks=settings.n_tasks, n_pairs=settings.n_subsamples, n=settings.n
    )
    t = simulate.recovery(
        design,
        {"null": 0.0, "non-null": settings.beta_nonnull},
        seed=seed,
        settings=sampler,
        thresholds=thresholds,
        max_draws=bayes.max_draws,
    )
    write_table(t, table, floatfmt=".4f")
    simulate.plot_recovery(t, figure)
    if not t["covered"].all():
        # An 89% interval misses 11% of the time by design: report, do not fail.
        log.warning("the 89%% HDI missed the true beta:\n%s", t.to_string())


def make_pca(table, figure, settings: Pca) -> None:
    from evalsci.studies.tapt import pca

    t = pca.pca_experiment(n_trials=settings.n_trials)
    write_table(t, table, floatfmt=".5f")
    pca.plot_pca(t, figure)


# The recompute path (workflow/rules/tapt_recompute.smk) ------------------------------------
def train_shard(
    data_files,
    glue,
    checkpoint,
    accuracies: str,
    predictions: str,
    metrics: str,
    settings: RunSettings,
    lm_models: dict,
    device: str,
    cpu_dtype: str,
    revision: str | None,
    m: str,
    n: str,
    i: str,
    threads: int,
) -> None:
    """Rules tapt_train_shard and tapt_zero_shot_shard: one subsample of one run (`settings`:
    the run's, Training.run_settings; its LM type's method selects pretraining + classifier or
    (Q)LoRA zero-shot). `data_files`: the dataset's local files, `glue`: the GLUE bundle, either
    empty where the dataset comes from elsewhere; `checkpoint`: the model's files made by a
    workflow rule (an input so that the shard waits for them)."""
    configure_threads(threads)
    from evalsci.data.hf_classification import load_frame
    from evalsci.studies.tapt.training.shards import ShardPaths, run_shard

    del checkpoint
    frame = load_frame(
        settings.dataset,
        data_files=data_files or None,
        glue_root=glue or None,
        revision=revision,
    )
    run_shard(
        settings,
        frame,
        m=int(m),
        n=int(n),
        i=int(i),
        paths=ShardPaths(accuracies, predictions, metrics),
        lm_models=lm_models,
        device=device,
        cpu_dtype=cpu_dtype,
    )


def train_merge(
    shard_accuracies: list[str],
    shard_predictions: list[str],
    shard_metrics: list[str],
    accuracies: str,
    subsamples: str,
    predictions: str,
    metrics: str,
) -> None:
    """Rule tapt_train_merge: the author's accuracies.csv (one row per subsample) and its
    companions from the shards of one run."""
    from evalsci.studies.tapt.training.shards import RUN_FILES, ShardPaths, merge

    out_dir = Path(accuracies).parent
    given = {"accuracies": accuracies, "subsamples": subsamples}
    given.update(predictions=predictions, metrics=metrics)
    wrong = [k for k, p in given.items() if Path(p) != out_dir / RUN_FILES[k]]
    if wrong:  # merge writes the author's layout; the plan names the same files
        raise ValueError(f"tapt_train_merge: {wrong} are not the run's files in {out_dir}")
    shards = [
        ShardPaths(a, p, m)
        for a, p, m in zip(shard_accuracies, shard_predictions, shard_metrics, strict=True)
    ]
    merge(shards, out_dir)


def train_manifest(accuracies: list[str], manifest: str, training: Training) -> None:
    """Rule tapt_train_manifest: every accuracies.csv of the configured runs, checked."""
    from evalsci.studies.tapt.training.shards import write_manifest

    write_manifest([dataclasses.asdict(r) for r in training.runs], accuracies, manifest)
