"""Entry points of the tapt workflow rules (workflow/scripts/tapt_*.py call these).

Each function reads its inputs, checks them, and writes its outputs atomically; the settings
come from the `tapt` config section (see config.yaml)."""

from __future__ import annotations

import dataclasses
import json
import logging
from pathlib import Path

import pandas as pd

from evalsci import reference
from evalsci.data.checked import read_checked
from evalsci.pipeline.jobs import atomic_path
from evalsci.stats import bayes
from evalsci.studies.tapt import data, meta, permutation, posteriors, table1  # figures: lazily
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


def accuracies(bundle: str | None, files: list[str] | None, out: str) -> None:
    """Rule tapt_accuracies: the released bundle's accuracies.csv files (`bundle`), or the
    recompute rules' (`files`), as one long table."""
    released = files is None
    write_accuracies(
        data.released_files(bundle) if released else list(files), out, released=released
    )


def load(acc_path: str, config: str | None = None) -> pd.DataFrame:
    acc = data.read_table(acc_path)
    if config is not None:
        acc = acc[acc["config"] == config]
        if acc.empty:
            raise ValueError(f"{acc_path}: no accuracies for configuration {config!r}")
    return acc


def make_table1(acc_path: str, outputs) -> None:
    t = table1.table1(load(acc_path))
    write_table(t, outputs, floatfmt=".4f")


def task_level(acc: pd.DataFrame) -> pd.DataFrame:
    """Section 7: per task, the boost and bias averaged with equal weight over every
    (m, n, LM) of the main experiment (mean of the per-cell means)."""
    d = table1.differences(acc[acc["family"] == "main"])
    cells = d.groupby(["dataset", "m", "n", "lm"])[["boost", "bias"]].mean()
    out = cells.groupby("dataset").mean().reset_index()
    return out.sort_values("bias", ignore_index=True)


def make_task_level(acc_path: str, outputs) -> None:
    t = task_level(load(acc_path))
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
    write_table(t, outputs, floatfmt=".4f")


def make_differences_figures(acc_path: str, configs: list[str], outputs) -> None:
    """One figure (PDF + PNG, in `outputs` in config order) per configuration."""
    # imported here: matplotlib and scipy.stats cost ~1 s of every job that imports steps
    from evalsci.studies.tapt import figures

    outputs = list(outputs)
    per = len(outputs) // len(configs)
    if per * len(configs) != len(outputs):
        raise ValueError(f"{len(outputs)} outputs for {len(configs)} configurations")
    acc = load(acc_path)
    for i, config in enumerate(configs):
        one = acc[acc["config"] == config]
        if one.empty:
            raise ValueError(f"{acc_path}: no accuracies for configuration {config!r}")
        figures.plot_differences(one, outputs[i * per : (i + 1) * per])


def make_permutation(
    acc_path: str, tests_out, summary_out, *, seed: int, n_resamples: int, alpha: float
) -> None:
    tests = permutation.permutation_tests(
        load(acc_path), seed=seed, n_resamples=n_resamples, alpha=alpha
    )
    order = {c: i for i, c in enumerate(data.config_order(tests["config"]))}
    tests = tests.sort_values(
        ["config", "lm", "comparison", "alternative", "dataset"],
        key=lambda s: s.map(order) if s.name == "config" else s,
        ignore_index=True,
    )
    write_table(tests, tests_out, floatfmt=".4f")
    write_table(permutation.permutation_summary(tests, alpha), summary_out, floatfmt=".4f")


def sampler_settings(
    cfg: dict, cores: int, comparison: str | None = None
) -> tuple[bayes.SamplerSettings, bayes.Thresholds]:
    """NUTS settings and checks from config `tapt.bayes`; `comparison` picks the mass matrix
    adaptation (`variance_mass_matrix`: the comparisons adapted from draw variances)."""
    variance = comparison is not None and comparison in cfg["variance_mass_matrix"]
    settings = bayes.SamplerSettings(
        backend=cfg["backend"],
        chains=cfg["chains"],
        draws=cfg["draws"],
        tune=cfg["tune"],
        seed=cfg["seed"],
        cores=max(1, cores),
        low_rank=cfg["low_rank"],
        grad_mass_matrix=not variance,
        target_accept=cfg["target_accept"],
    )
    thresholds = bayes.Thresholds(
        max_r_hat=cfg["max_r_hat"],
        max_r_hat_nuisance=cfg["max_r_hat_nuisance"],
        min_ess_bulk=cfg["min_ess_bulk"],
        max_divergences=cfg["max_divergences"],
    )
    return settings, thresholds


def noncentred_contrast(cfg: dict, comparison: str) -> bool:
    """Whether `comparison`'s fits sample the task x treatment contrast non-centred
    (config `tapt.bayes.noncentred_contrast`; evalsci.studies.tapt.reparam)."""
    return comparison in cfg["noncentred_contrast"]


def make_fit(
    acc_path: str,
    config: str,
    comparison: str,
    variant: str,
    *,
    bayes_cfg: dict,
    count_rule: str,
    cores: int,
    summary_out: str,
    draws_out: str,
    diagnostics_out: str,
) -> None:
    settings, thresholds = sampler_settings(bayes_cfg, cores, comparison)
    result = posteriors.fit_one(
        load(acc_path, config),
        comparison,
        variant,
        settings=settings,
        thresholds=thresholds,
        counts=count_rule,
        on_failure=bayes_cfg["on_failure"],
        max_draws=bayes_cfg["max_draws"],
        noncentred_contrast=noncentred_contrast(bayes_cfg, comparison),
    )
    with atomic_path(summary_out) as tmp:
        tmp.write_text(json.dumps(result.summary, indent=1) + "\n")
    with atomic_path(draws_out) as tmp:
        result.draws.to_csv(tmp, index=False, compression="gzip")
    with atomic_path(diagnostics_out) as tmp:
        result.diagnostics.to_csv(tmp, index=False)


BETA_COLUMNS = (
    "config",
    "comparison",
    "variant",
    "mean",
    "sd",
    "hdi_5.5",
    "hdi_94.5",
    "r_hat",
    "ess_bulk",
    "divergences",
)


def make_beta_table(summaries: list[str], outputs) -> None:
    rows = [json.loads(Path(p).read_text()) for p in summaries]
    t = pd.DataFrame(rows)
    missing = [c for c in posteriors.SUMMARY_COLUMNS if c not in t.columns]
    if missing:
        raise ValueError(f"fit summaries lack {missing}")
    order = {c: i for i, c in enumerate(data.config_order(t["config"]))}
    t = t.sort_values(
        ["variant", "config", "comparison"],
        key=lambda s: s.map(order) if s.name == "config" else s,
        ignore_index=True,
    )
    cols = [*BETA_COLUMNS, *(c for c in posteriors.SUMMARY_COLUMNS if c not in BETA_COLUMNS)]
    write_table(t[cols], outputs, floatfmt=".4f")


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


def make_posterior_figure(draw_files: list[str], family: str, ppd_out, beta_out) -> None:
    """Posterior predictive average differences (Figs. 2-4) and posteriors of beta of one
    experiment family, authors' model variant."""
    from evalsci.studies.tapt import figures

    d = _read_draws(draw_files)
    d = d[d["variant"] == "authors"]
    figures.plot_posterior_predictive(d, ppd_out, title=family_title(family))
    figures.plot_posterior_predictive(
        d, beta_out, column="beta", title=f"Posterior of beta: {family} (authors' model)"
    )


def make_meta_slices(
    acc_path: str,
    config: str,
    *,
    n_slices: int,
    seed: int,
    workers: int,
    count_rule: str,
    bayes_cfg: dict,
    out: str,
    target_accept: float,
    tune: int,
) -> None:
    slices = meta.run_meta(
        load(acc_path, config),
        n_slices=n_slices,
        seed=seed,
        draws=bayes_cfg["draws"],
        tune=tune,
        workers=workers,
        counts=count_rule,
        backend=bayes_cfg["backend"],
        target_accept=target_accept,
    )
    bad = slices["divergences"] > bayes_cfg["max_divergences"]
    if bad.any():
        msg = f"{config}: {int(bad.sum())} of {len(slices)} meta-analysis slices had divergences"
        if bayes_cfg["on_failure"] == "error":
            raise bayes.DiagnosticsError(msg)
        log.warning(msg)
    with atomic_path(out) as tmp:
        slices.to_csv(tmp, index=False)


def make_meta_table(slice_files: list[str], thresholds: dict, table_out, figure_out) -> None:
    from evalsci.studies.tapt import figures

    slices = pd.concat(
        [read_checked(p, meta.SLICE_COLUMNS) for p in slice_files], ignore_index=True
    )
    t = meta.meta_table(slices, thresholds)
    ref = {row[0]: row[3] for row in reference.load("tapt")["conclusions"]["meta_analysis"]["rows"]}
    t["p_outside_paper"] = t["config"].map(ref)
    write_table(t, table_out, floatfmt=".3f")
    figures.plot_meta_ecdf(slices, thresholds, figure_out)


# Appendix E.1 and G -------------------------------------------------------------------------
PRIOR_PREDICTIVE_CONFIG = "m100_n200"  # the paper's Figure 7 design


def make_prior_predictive(
    acc_path: str, *, draws: int, seed: int, count_rule: str, table_out, figure_out
) -> None:
    from evalsci.studies.tapt import hierarchical, simulate

    acc = load(acc_path)
    config = (
        PRIOR_PREDICTIVE_CONFIG
        if PRIOR_PREDICTIVE_CONFIG in set(acc["config"])
        else data.config_order(acc["config"])[0]
    )
    long = hierarchical.long_format(acc[acc["config"] == config], "bias", count_rule)
    pp = simulate.prior_predictive(long, draws=draws, seed=seed)
    summary = simulate.prior_summary(pp)
    summary.insert(0, "config", config)
    write_table(summary, table_out, floatfmt=".3f")
    simulate.plot_prior_predictive(pp, figure_out)


def make_recovery(
    *,
    n_subsamples: int,
    beta_nonnull: float,
    seed: int,
    bayes_cfg: dict,
    cores: int,
    table_out,
    figure_out,
    target_accept: float,
) -> None:
    from evalsci.studies.tapt import simulate

    settings, thresholds = sampler_settings(bayes_cfg, cores)
    settings = dataclasses.replace(settings, target_accept=target_accept)
    # The m = 100, n = 200 design: 2 LM types x 25 tasks x subsamples, n = 200.
    design = simulate.design(n_lms=2, n_tasks=25, n_pairs=n_subsamples, n=200)
    t = simulate.recovery(
        design,
        {"null": 0.0, "non-null": beta_nonnull},
        seed=seed,
        settings=settings,
        thresholds=thresholds,
        max_draws=bayes_cfg["max_draws"],
    )
    write_table(t, table_out, floatfmt=".4f")
    simulate.plot_recovery(t, figure_out)
    if not t["covered"].all():
        # An 89% interval misses 11% of the time by design: report, do not fail.
        log.warning("the 89%% HDI missed the true beta:\n%s", t.to_string())


def make_pca(*, n_trials: int, table_out, figure_out) -> None:
    from evalsci.studies.tapt import pca

    t = pca.pca_experiment(n_trials=n_trials)
    write_table(t, table_out, floatfmt=".5f")
    pca.plot_pca(t, figure_out)
