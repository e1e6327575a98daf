"""Open LLM Leaderboard v2 instance-level 0/1 results, as PredictaBoard releases them.

Layout (Kinds-of-Intelligence-CFI/PredictaBoard):
- `llm_data/llm_performance_data/<Benchmark>[__<subtask>]_results.csv`: one row per model run,
  columns `model, timestamp` then one 0/1 column per item id;
- `train_and_evaluate_assessors/data/open-llm-leaderboard-v2/<bench>[_<subtask>]_prompts.csv`:
  columns `id, prompt, target` (present for every benchmark but MMLU-Pro).

Some models have two runs (rows); like the authors (`drop_duplicates(subset="model",
keep="last")`) we keep the last row. Items need a prompt for instance features, so MMLU-Pro
(no prompts released) is left out; `load_leaderboard` reports every model's coverage and keeps
only the models present in every kept benchmark.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from evalsci.data.checked import read_csv

__all__ = [
    "BENCHMARKS",
    "LEADERBOARD_BENCHMARKS",
    "discover_pairs",
    "read_results",
    "read_runs",
    "load_leaderboard",
]

RESULTS_DIR = "llm_data/llm_performance_data"
PROMPTS_DIR = "train_and_evaluate_assessors/data/open-llm-leaderboard-v2"

# prompt-file prefix -> (results-file prefix, dataset name used for the OOD splits)
BENCHMARKS: dict[str, tuple[str, str]] = {
    "bbh": ("Big-Bench-Hard", "BBH"),
    "math": ("MATH-LvL-5", "MATH"),
    "musr": ("MuSR", "MuSR"),
    "ifeval": ("IFEVAL", "IFEval"),
}
# Every benchmark's results-file prefix, MMLU-Pro included (results, no prompts): the runs
# `evalsci.studies.assessors.lomo` validates `evalsci reference` on
LEADERBOARD_BENCHMARKS = {
    "BBH": "Big-Bench-Hard",
    "MuSR": "MuSR",
    "MMLU-Pro": "MMLU-Pro",
    "MATH": "MATH-LvL-5",
}
# Subtasks whose prompt and results files are named differently upstream.
_SUBTASK_ALIASES = {("math", "algebra_hard"): "beginner_algebra_hard"}


class LeaderboardError(ValueError):
    """A leaderboard file is malformed (names the file)."""


def discover_pairs(root: str | Path, name: Callable[[str], str] = lambda p: p) -> list[dict]:
    """Match every prompts file under `root` with its results file.

    `name(path)` maps an upstream relative path to the stored one (the released bundle keeps
    every PredictaBoard file gzipped: pass `lambda p: local_name("predictaboard", p)`).
    Returns dicts with keys dataset, subtask, prompts (path), results (path).
    """
    root = Path(root)
    pdir = root / PROMPTS_DIR
    pairs = []
    files = sorted(pdir.glob("*_prompts.csv*"))
    if not files:
        raise FileNotFoundError(f"no *_prompts.csv files in {pdir}")
    for f in files:
        stem = re.sub(r"_prompts\.csv(\.gz)?$", "", f.name)
        prefix, _, sub = stem.partition("_")
        if prefix not in BENCHMARKS:
            raise LeaderboardError(
                f"{f}: unknown benchmark prefix {prefix!r}; known {list(BENCHMARKS)}"
            )
        res_prefix, dataset = BENCHMARKS[prefix]
        sub_res = _SUBTASK_ALIASES.get((prefix, sub), sub)
        res_rel = f"{RESULTS_DIR}/{res_prefix}{'__' + sub_res if sub_res else ''}_results.csv"
        res = root / name(res_rel)
        if not res.is_file():
            raise FileNotFoundError(f"results file for {f.name} missing: {res}")
        pairs.append({"dataset": dataset, "subtask": sub or prefix, "prompts": f, "results": res})
    return pairs


def read_runs(path: str | Path) -> pd.DataFrame:
    """A results CSV with every run kept: columns model, timestamp, then one column per item
    id (0/1 as numbers, NaN where a run lacks the item). `read_results` keeps one run per model."""
    df = read_csv(path, LeaderboardError)
    if list(df.columns[:2]) != ["model", "timestamp"]:
        raise LeaderboardError(
            f"{path}: expected columns 'model, timestamp, <item ids>...', got {list(df.columns[:3])}"
        )
    items = df.columns[2:]
    # every cell 0, 1 or empty (not run); the first other value is named with its row and item
    text = [c for c in items if not pd.api.types.is_numeric_dtype(df[c])]
    if text:
        df[text] = df[text].apply(pd.to_numeric, errors="coerce").where(df[text].notna())
    vals = df[items].to_numpy(dtype=float)
    bad = ~(np.isnan(vals) | (vals == 0) | (vals == 1))
    if text:  # a cell that was text and is now NaN was not a number
        raw = pd.read_csv(path, usecols=text, dtype=str)  # the file again, for the message
        cols = [items.get_loc(c) for c in text]
        bad[:, cols] |= raw.notna().to_numpy() & np.isnan(vals[:, cols])
    if bad.any():
        i, j = map(int, np.argwhere(bad)[0])
        shown = pd.read_csv(path, usecols=[items[j]], dtype=str).iloc[i, 0]
        raise LeaderboardError(
            f"{path}: column {items[j]!r}, row {i + 1} (model "
            f"{df['model'].iloc[i]!r}): {shown!r} is not 0 or 1"
        )
    return df


def read_results(path: str | Path) -> pd.DataFrame:
    """A results CSV -> models x item ids (0/1), one row per model (last run kept)."""
    return (
        read_runs(path)
        .drop_duplicates(subset="model", keep="last")
        .set_index("model")
        .drop(columns="timestamp")
    )


def load_leaderboard(
    root: str | Path, name: Callable[[str], str] = lambda p: p, models: list[str] | None = None
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Load every benchmark that has prompts into the normalised `assessors` tables.

    Returns (instances, success, coverage):
    - instances: instance_id ("<dataset>/<subtask>/<id>"), dataset (BBH, MATH, MuSR, IFEval),
      subtask, text (the prompt);
    - success: instance_id plus one 0/1 column per model that covers every kept item (or the
      given `models`, which must);
    - coverage: per (dataset, subtask, model): n_items, n_missing (NaN or absent).
    """
    inst, blocks, cov = [], [], []
    for pair in discover_pairs(root, name):
        prompts = read_csv(pair["prompts"], LeaderboardError)
        if not {"id", "prompt"} <= set(prompts.columns):
            raise LeaderboardError(
                f"{pair['prompts']}: expected columns id, prompt; got {list(prompts.columns)}"
            )
        res = read_results(pair["results"])
        ids = prompts["id"].astype(str)
        unknown = sorted(set(ids) - set(res.columns))
        if unknown:
            raise LeaderboardError(f"{pair['results']}: no results for prompt ids {unknown[:5]}")
        iid = pair["dataset"] + "/" + pair["subtask"] + "/" + ids
        inst.append(
            pd.DataFrame(
                {
                    "instance_id": iid.values,
                    "dataset": pair["dataset"],
                    "subtask": pair["subtask"],
                    "text": prompts["prompt"].astype(str).values,
                }
            )
        )
        block = res[ids.tolist()].T
        block.index = iid.values
        blocks.append(block)
        for m in res.index:
            cov.append(
                {
                    "dataset": pair["dataset"],
                    "subtask": pair["subtask"],
                    "model": m,
                    "n_items": len(ids),
                    "n_missing": int(res.loc[m, ids.tolist()].isna().sum()),
                }
            )
    instances = pd.concat(inst, ignore_index=True)
    success = pd.concat(blocks, axis=0, join="outer")
    coverage = pd.DataFrame(cov)
    complete = success.columns[success.notna().all(axis=0)]
    if models is not None:
        lacking = [m for m in models if m not in complete]
        if lacking:
            raise LeaderboardError(
                f"models lacking some kept items, or unknown (see coverage): {lacking}; the "
                f"{len(complete)} models with every kept item: {sorted(complete)}"
            )
        complete = pd.Index(models)
    success = success[list(complete)].astype(int)
    success.index.name = "instance_id"
    return instances, success.reset_index(), coverage
