"""Collections of instance-level results the `assessors` study runs on.

A collection is normalised into three tables (`results/assessors/<collection>/data/`):
`instances.csv.gz` (instance_id, dataset, text), `success.csv.gz` (instance_id and one 0/1
column per LLM) and `coverage.csv` (what each LLM covers, and the gaps).

Loaders by config `loader`:
- `evals_logs`: OpenAI evals logs `<root>/<task>/<llm>.jsonl` (the offline stand-in
  `cfi_ground_truth`, and KindsOfReasoning's `2_results` when downloaded);
- `leaderboard`: Open LLM Leaderboard v2 results as PredictaBoard releases them;
- `helm`: HELM-Lite run directories plus the authors' run list.
"""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pandas as pd

from evalsci.data.checked import binary, read_csv, require_columns
from evalsci.data.evals_logs import load_evals_collection
from evalsci.data.helm import load_helm_lite, read_run_list
from evalsci.data.leaderboard import load_leaderboard

from .settings import Collection

__all__ = ["load_collection", "read_instances", "read_success", "subsample_instances"]

log = logging.getLogger(__name__)


def subsample_instances(instances: pd.DataFrame, n: int | None, seed: int) -> pd.DataFrame:
    """At most `n` instances, the same fraction of every dataset (deterministic)."""
    if not n or n >= len(instances):
        return instances
    rng = np.random.default_rng(seed)
    frac = n / len(instances)
    keep = []
    for _, g in instances.groupby("dataset", sort=True):
        k = max(1, int(round(frac * len(g))))
        keep.append(np.sort(rng.choice(g.index.to_numpy(), size=k, replace=False)))
    return instances.loc[np.sort(np.concatenate(keep))].reset_index(drop=True)


def load_collection(
    collection: Collection, root: str | Path, seed: int, run_list: str | Path | None = None
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(instances, success, coverage) of `collection` read from `root`."""
    name, loader = collection.name, collection.loader
    llms = collection.llms.all()
    root = Path(root)
    if loader == "evals_logs":
        tasks = list(collection.datasets or ()) or sorted(
            p.name for p in root.iterdir() if p.is_dir()
        )
        inst, succ, cov = load_evals_collection(root, tasks, llms)
    elif loader == "leaderboard":
        from evalsci.data.released import local_name

        inst, succ, cov = load_leaderboard(root, lambda p: local_name("predictaboard", p))
        cov = cov.rename(columns={"model": "llm"})
        missing = [m for m in llms if m not in succ.columns]
        if missing:
            known = sorted(c for c in succ.columns if c != "instance_id")
            raise KeyError(
                f"{name}: configured LLMs unknown or lacking some items (see "
                f"coverage): {missing}; the {len(known)} LLMs with every item: {known}"
            )
        succ = succ[["instance_id", *llms]]
    elif loader == "helm":
        if run_list is None:
            raise ValueError(f"{name}: the helm loader needs the run list (bundle helm_lite_runs)")
        inst, succ, cov = load_helm_lite(root, read_run_list(run_list), llms)
    else:
        raise ValueError(f"{name}: unknown loader {loader!r}; use evals_logs, leaderboard or helm")
    inst = inst[["instance_id", "dataset", "text"]]
    inst = subsample_instances(inst, collection.max_instances, seed)
    succ = succ.set_index("instance_id").loc[inst["instance_id"]].reset_index()
    if succ[llms].isna().any().any():
        raise ValueError(f"{name}: missing success values after the coverage filter")
    log.info(
        "%s: %d instances, %d LLMs, datasets %s",
        name,
        len(inst),
        len(llms),
        inst["dataset"].value_counts().to_dict(),
    )
    return inst.reset_index(drop=True), succ, cov


def read_instances(path) -> pd.DataFrame:
    """A collection's `instances.csv.gz`, checked (names the file)."""
    df = read_csv(
        path, dtype={"instance_id": str, "dataset": str, "text": str}, keep_default_na=False
    )
    require_columns(df, ("instance_id", "dataset", "text"), path)
    return df


def read_success(path) -> pd.DataFrame:
    """A collection's `success.csv.gz` indexed by instance_id, every value 0 or 1 (else an
    error naming the file, column and row)."""
    df = read_csv(path, dtype={"instance_id": str})
    require_columns(df, ("instance_id",), path)
    for col in df.columns.drop("instance_id"):  # 0/1 only: 2, 0.5, "abc" named with the row
        df[col] = binary(df, col, path).astype(int)
    return df.set_index("instance_id")
