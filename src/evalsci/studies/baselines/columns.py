"""The column schemas of the files the `baselines` study reads and writes, in one place: the
held-out data, Tables 1 and 2. The authors' per-example CSV schema is
`evalsci.lm.icl.PER_EXAMPLE_COLUMNS`, owned there because our own inference writes it."""

from __future__ import annotations

HELDOUT_COLUMNS = (
    "Dataset",
    "Model",
    "Number of shots",
    "Split number",
    "Above max random on train",
    "Above standard random on train",
    "Max random F",
    "Standard random F",
    "Above standard random on test",
)

TABLE1_COLUMNS = [
    "dataset",
    "n",
    "model",
    "shots",
    "t",
    "max_val_acc",
    "standard_baseline",
    "max_baseline",
    "verdict",
]

TABLE2_COLUMNS = [
    "dataset",
    "n",
    "model",
    "nf4_model",
    "shots",
    "t",
    "standard_baseline",
    "max_baseline",
    "max_val_acc_full",
    "verdict_full",
    "max_val_acc_nf4",
    "verdict_nf4",
    "verdict_changed",
    "identical_predictions",
    "mean_acc_full",
    "mean_acc_nf4",
]
