"""Released many-model results -> one runs table per source.

A *run* is one score a reader might be shown: one leaderboard submission on one task, one
model's best instruction paraphrase, one prompt of an ICL experiment, one LLM on one dataset.
Runs of the same task row share t, the number of tries the comparison selects from:

  source                   task                 run              t_kind       t
  open_llm_leaderboard_v2  BBH/web_of_lies ...  leaderboard row  runs         rows in the file
                                                one per model    models       distinct models
  mizrahi_paraphrases      BBH|BBL/<task>       model            paraphrases  paraphrases
  baselines_prompts        <task>, model, shots prompt           prompts      the paper's t
  openai_evals             <dataset>            LLM              llms         14

Columns: source, task, model, shots, run, t_kind, t, n, labels (JSON {choices: items}),
correct (count, for the tail p-values), accuracy (correct / n where the source has 0/1 items;
the released accuracy otherwise). Every baseline comes from the maxrandom rule.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np
import pandas as pd

from evalsci.data.checked import read_csv
from evalsci.data.leaderboard import RESULTS_DIR, discover_pairs, read_runs
from evalsci.data.released import local_name

from .choices import MMLU_PRO_OPTIONS, OUT_OF_SCOPE, item_choices
from .columns import RUN_COLUMNS
from .records import labels_of

log = logging.getLogger(__name__)

SOURCES = ("open_llm_leaderboard_v2", "mizrahi_paraphrases", "baselines_prompts", "openai_evals")


def labels_json(labels: dict) -> str:
    """{options: items} as the runs tables store it (sorted JSON)."""
    return json.dumps({str(k): int(v) for k, v in sorted(labels.items())}, sort_keys=True)


def runs_frame(rows: list[dict]) -> pd.DataFrame:
    """Rows -> a runs table (RUN_COLUMNS); accuracy defaults to correct / n."""
    df = pd.DataFrame(rows, columns=RUN_COLUMNS)
    df["accuracy"] = df["accuracy"].fillna(df["correct"] / df["n"])
    for c in ("t", "n", "correct"):
        df[c] = df[c].astype(int)
    return df


# --- Open LLM Leaderboard v2 ------------------------------------------------------------


def _leaderboard_task_runs(task: str, runs: pd.DataFrame, choices: np.ndarray) -> list[dict]:
    """Rows for both t kinds of one task: every run (t = rows), the last run per model
    (t = models; the bundle's repeated runs of a model are mostly identical rows)."""
    items = runs.iloc[:, 2:].to_numpy(dtype=float)
    kinds = {
        "runs": np.arange(len(runs)),
        "models": np.flatnonzero(~runs["model"].duplicated(keep="last").to_numpy()),
    }
    rows = []
    for kind, idx in kinds.items():
        for i in idx:
            answered = ~np.isnan(items[i])
            n = int(answered.sum())
            if n == 0:
                continue
            rows.append(
                {
                    "source": SOURCES[0],
                    "task": task,
                    "model": runs["model"].iloc[i],
                    "shots": pd.NA,
                    "run": f"{runs['model'].iloc[i]}@{runs['timestamp'].iloc[i]}",
                    "t_kind": kind,
                    "t": len(idx),
                    "n": n,
                    "labels": labels_json(labels_of(choices[answered])),
                    "correct": int(items[i][answered].sum()),
                    "accuracy": np.nan,
                }
            )
    return rows


def leaderboard_runs(root: str | Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(runs, out_of_scope) from the PredictaBoard bundle directory."""
    root = Path(root)
    name = lambda p: local_name("predictaboard", p)  # noqa: E731 (the bundle keeps files gzipped)
    rows, skipped = [], []
    for pair in discover_pairs(root, name):
        bench, sub = pair["dataset"], pair["subtask"]
        runs = read_runs(pair["results"])
        if bench in ("MATH", "IFEval"):
            key = "MATH-LvL-5" if bench == "MATH" else "IFEval"
            skipped.append(
                {
                    "task": f"{key}/{sub}" if bench == "MATH" else key,
                    "runs": len(runs),
                    "reason": OUT_OF_SCOPE[key],
                }
            )
            continue
        prompts = read_csv(pair["prompts"])  # names the file on any failure
        ids = prompts["id"].astype(str).tolist()
        missing = sorted(set(ids) - set(runs.columns[2:]))
        if missing:
            raise ValueError(f"{pair['results']}: no results for prompt ids {missing[:5]}")
        k = np.asarray(item_choices(bench, sub, prompts["prompt"].astype(str).tolist(), ids))
        runs = runs[["model", "timestamp", *ids]]
        rows += _leaderboard_task_runs(f"{bench}/{sub}", runs, k)
    mmlu = root / name(f"{RESULTS_DIR}/MMLU-Pro_results.csv")
    runs = read_runs(mmlu)
    rows += _leaderboard_task_runs("MMLU-Pro", runs, np.full(runs.shape[1] - 2, MMLU_PRO_OPTIONS))
    log.info("leaderboard: %d run rows, %d tasks out of scope", len(rows), len(skipped))
    return runs_frame(rows), pd.DataFrame(skipped, columns=["task", "runs", "reason"])


# --- the 14 OpenAI LLMs of the evals logs -----------------------------------------------

# The instruction in each dataset's system prompt names the answers (evals logs, cfi bundle).
EVALS_ANSWERS = {
    "causal_judgment": ("yes", "no"),
    "commonsense_qa_2": ("yes", "no"),
    "moral_permissibility": ("yes", "no"),
    "neubaroco": ("entailment", "neutral", "contradiction"),
}


def evals_runs(root: str | Path) -> pd.DataFrame:
    from evalsci.data.evals_logs import load_evals_collection, read_evals_log

    root = Path(root) / "raw_results" if (Path(root) / "raw_results").is_dir() else Path(root)
    rows = []
    for task, answers in EVALS_ANSWERS.items():
        llms = sorted(p.stem for p in (root / task).glob("*.jsonl"))
        if not llms:
            raise FileNotFoundError(f"no evals logs under {root / task}")
        expected = {
            str(e).strip().lower()
            for e in read_evals_log(root / task / f"{llms[0]}.jsonl").expected
        }
        if expected != set(answers):
            raise ValueError(
                f"{root / task}: expected answers {sorted(expected)}, the instruction "
                f"names {sorted(answers)}"
            )
        _, success, _ = load_evals_collection(root, [task], llms)
        n = len(success)
        for llm in llms:
            rows.append(
                {
                    "source": SOURCES[3],
                    "task": task,
                    "model": llm,
                    "shots": pd.NA,
                    "run": llm,
                    "t_kind": "llms",
                    "t": len(llms),
                    "n": n,
                    "labels": labels_json({len(answers): n}),
                    "correct": int(success[llm].sum()),
                    "accuracy": np.nan,
                }
            )
    return runs_frame(rows)
