"""The column schemas of the files the `tapt` study reads and writes, in one place: the
fine-tuning accuracies (a shard's, the normalised long table, the hierarchical model's
input), Table 1, the posterior summaries, the meta-analysis slices, the permutation tests, the PCA
and the recovery tables."""

from __future__ import annotations

ACCURACY_COLUMNS = ("base", "extra", "test", "majority", "num_classes", "majority_all")

# Columns of the normalised long table (results/tapt/data/accuracies.csv).
TABLE_COLUMNS = (
    "config",
    "family",
    "m",
    "n",
    "lm",
    "dataset",
    "subsample",
    *ACCURACY_COLUMNS,
)

TABLE1_COLUMNS = ("m", "n", "lm", "boost_mean", "bias_mean", "boost_paper", "bias_paper")

SHARD_COLUMNS = ("subsample", *ACCURACY_COLUMNS, "random_state", "train_size", "seconds")

LONG_COLUMNS = ("lm_type", "dataset", "pair", "method", "num_correct", "num_test")

# Table beta_posteriors' leading columns (the posterior of each comparison)
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

# A fit's summary (fits/*.json): the beta table's columns, then the fit's diagnostics
SUMMARY_COLUMNS = (
    *BETA_COLUMNS,
    "mcse_mean",
    "ppd_mean",
    "ppd_hdi_5.5",
    "ppd_hdi_94.5",
    "n_rows",
    "backend",
    "draws_per_chain",
    "intercept_r_hat",
    "intercept_ess_bulk",
    "diagnostics_ok",
)

SLICE_COLUMNS = (
    "config",
    "comparison",
    "slice",
    "mean",
    "sd",
    "hdi_5.5",
    "hdi_94.5",
    "ess_bulk",
    "divergences",
)

# the exact tails of a sign-flip test: P(<), P(=), P(>) of the observed statistic (spread)
TAIL_COLUMNS = ("below", "on", "above")

META_COLUMNS = ("config", "threshold", "p_outside", "n_slices")

PERMUTATION_COLUMNS = (
    "config",
    "m",
    "n",
    "lm",
    "dataset",
    "comparison",
    "alternative",
    "n_subsamples",
    "n_resamples",
    "mean_diff",
    "p_value",
    "p_adjusted",
    "significant",
)

PCA_COLUMNS = ("effective_rank", "n", "n_trials", "bias_mean", "bias_se", "boost_mean", "boost_se")

RECOVERY_COLUMNS = (
    "scenario",
    "beta_true",
    "mean",
    "sd",
    "hdi_5.5",
    "hdi_94.5",
    "covered",
    "r_hat",
    "ess_bulk",
    "divergences",
    "n_rows",
)
