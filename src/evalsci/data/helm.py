"""HELM-Lite (v1.0.0) run directories: per-instance binary success of LLMs.

A HELM run directory `<runs>/<run name>/` holds, among others:
- `scenario_state.json`: `{"request_states": [{"instance": {"id", "split", "input": {"text"}},
  "request": {"prompt", "model", "temperature"}, "result": {"completions": [{"text"}]}}, ...]}`;
- `display_predictions.json`: `[{"instance_id", "stats": {<metric>: value, ...}}, ...]`.

As the authors' loader does, the success metric of a run is the LAST key of the first
prediction's `stats` (exact_match, quasi_exact_match, math_equiv_chain_of_thought,
final_number_exact_match ...); only binary metrics are kept. The wrapper HELM puts around
prompts for chat models ("Here are some input-output examples ..." / "Please provide the output
to this last example ...") is removed so that every LLM has the same prompt; LLMs are joined on
(prompt, split, question) and only the `test` split is kept.

The run list the paper used is `experiments/download_helm/helm_lite.csv` of
LoryPack/ReferenceInstancesPredictability (bundle `helm_lite_runs`); the run directories
themselves (about 10 GB) come from HELM's public bucket and are not part of the offline data.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from evalsci.data.checked import read_csv, read_json

__all__ = [
    "KEPT_SCENARIOS",
    "DROPPED_SCENARIOS",
    "HELM_LITE_OOD",
    "kept_datasets",
    "read_run_list",
    "select_runs",
    "read_helm_run",
    "cleanup_prompt",
    "load_helm_lite",
]


class HelmError(ValueError):
    """A HELM run directory is malformed or its metric is not binary (names the run)."""


# Scenario -> kept subscenarios (Appendix A.1 of the paper; the authors' `possible_scenarios`).
# A subscenario is matched as a substring of the run name; the legalbench ones end with ","
# so that e.g. "proa," does not match other subsets.
KEPT_SCENARIOS: dict[str, list[str]] = {
    "commonsense": ["commonsense"],
    "gsm": ["gsm"],
    "med_qa": ["med_qa"],
    "legalbench": [
        "abercrombie,",
        "function_of_decision_section,",
        "proa,",
        "international_citizenship_questions,",
    ],
    "math": ["counting_and_probability", "number_theory", "prealgebra", "precalculus"],
    "mmlu": [
        "abstract_algebra",
        "college_chemistry",
        "computer_security",
        "econometrics",
        "us_foreign_policy",
    ],
}
# Dropped, with the paper's reason.
DROPPED_SCENARIOS: dict[str, str] = {
    "legalbench/corporate_lobbying": "incoherent number of few-shot examples across LLMs",
    "math/algebra": "incoherent number of few-shot examples across LLMs",
    "math/geometry": "incoherent number of few-shot examples across LLMs",
    "math/intermediate_algebra": "incoherent number of few-shot examples across LLMs",
    "narrative_qa": "non-binary metric (f1 score)",
    "natural_qa": "non-binary metric (f1 score)",
    "wmt_14": "non-binary metric (BLEU)",
}
# OOD splits of Table 2 (test datasets; train and validation come from the rest).
HELM_LITE_OOD: dict[str, list[str]] = {
    "OOD_1": ["math", "gsm", "mmlu/abstract_algebra"],
    "OOD_2": ["legalbench"],
    "OOD_3": [
        "commonsense",
        "med_qa",
        "mmlu/college_chemistry",
        "mmlu/computer_security",
        "mmlu/econometrics",
        "mmlu/us_foreign_policy",
    ],
}

_PREFIX = (
    "Here are some input-output examples. Read the examples carefully to figure out the "
    "mapping. The output of the last example is not given, and your job is to figure out "
    "what it is.\n\n"
)
_SUFFIX = (
    "\n\nPlease provide the output to this last example. It is critical to follow the "
    "format of the preceding outputs!"
)


def read_run_list(path: str | Path) -> pd.DataFrame:
    """The authors' `helm_lite.csv` (columns Run, Model, Groups, Adapter method, Subject / Task)."""
    df = read_csv(path, HelmError, index_col=0)
    need = {"Run", "Model"}
    if not need <= set(df.columns):
        raise HelmError(f"{path}: expected columns {sorted(need)}, got {list(df.columns)}")
    return df


def _dataset_name(scenario: str, sub: str) -> str:
    sub = sub.rstrip(",")
    return scenario if sub == scenario else f"{scenario}/{sub}"


def kept_datasets() -> list[str]:
    """The datasets of the kept runs ('<scenario>' or '<scenario>/<subscenario>'): what an
    OOD split of a `helm` collection holds out."""
    return sorted(_dataset_name(s, sub) for s, subs in KEPT_SCENARIOS.items() for sub in subs)


def _dataset_of(run: str) -> str | None:
    """'<scenario>/<subscenario>' of a kept run name, or None if the run is not kept."""
    scenario = run.split(":")[0]
    if scenario not in KEPT_SCENARIOS:
        return None
    for sub in KEPT_SCENARIOS[scenario]:
        if sub in run:
            return _dataset_name(scenario, sub)
    return None


def select_runs(run_list: pd.DataFrame, llms: Sequence[str] | None = None) -> pd.DataFrame:
    """Runs of the kept (sub)scenarios (and `llms`, if given), with a `dataset` column."""
    df = run_list.copy()
    df["dataset"] = df["Run"].map(_dataset_of)
    df = df[df["dataset"].notna()]
    if llms is not None:
        df = df[df["Model"].isin(llms)]
    return df.reset_index(drop=True)


def cleanup_prompt(prompt: str) -> str:
    """Remove the instruction wrapper HELM adds around prompts for chat models."""
    return prompt.split(_PREFIX)[-1].split(_SUFFIX)[0]


def read_helm_run(run_dir: str | Path) -> pd.DataFrame:
    """One run directory -> instance_id, split, question, prompt, model, success (0/1)."""
    run_dir = Path(run_dir)
    for name in ("scenario_state.json", "display_predictions.json"):
        if not (run_dir / name).is_file():
            raise HelmError(f"{run_dir}: not a HELM run directory ({run_dir / name} missing)")
    state = read_json(run_dir / "scenario_state.json", HelmError)
    preds = read_json(run_dir / "display_predictions.json", HelmError)
    if not preds:
        raise HelmError(f"{run_dir}/display_predictions.json: empty")
    metric = list(preds[0]["stats"])[-1]  # the authors: the useful metric is the last one
    rows = []
    for rs in state["request_states"]:
        inst, req = rs["instance"], rs["request"]
        rows.append(
            {
                "instance_id": inst["id"],
                "split": inst["split"],
                "question": inst["input"]["text"],
                "prompt": cleanup_prompt(req["prompt"]),
                "model": req["model"],
            }
        )
    df = pd.DataFrame(rows).set_index("instance_id")
    score = pd.Series({p["instance_id"]: p["stats"][metric] for p in preds}, name="success")
    values = set(score.unique())
    if not values <= {0, 1}:
        raise HelmError(f"{run_dir}: metric {metric!r} is not binary (values {sorted(values)[:5]})")
    n = len(df)
    df = df.join(score, how="inner")
    if len(df) != n:
        raise HelmError(f"{run_dir}: {n - len(df)} request states have no prediction")
    df["success"] = df["success"].astype(int)
    df["metric"] = metric
    return df.reset_index()


def load_helm_lite(
    runs_dir: str | Path, run_list: pd.DataFrame, llms: Sequence[str]
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Load the kept runs of `llms` into the normalised `assessors` tables.

    Returns (instances, success, coverage) like `evals_logs.load_evals_collection`: instances
    (instance_id, dataset, text = the cleaned prompt, question), success (0/1 per LLM, test
    split, instances every LLM covers) and coverage (per dataset and LLM: n_instances,
    n_missing). Duplicate prompts within a run are dropped, as the authors do.
    """
    runs = select_runs(run_list, llms)
    runs_dir = Path(runs_dir)
    inst, succ, cov = [], [], []
    for dataset, group in runs.groupby("dataset", sort=True):
        merged = None
        for _, r in group.iterrows():
            df = read_helm_run(runs_dir / r["Run"])
            df = df.drop_duplicates(subset=["prompt"])
            df = df[["prompt", "split", "question", "success"]].rename(
                columns={"success": r["Model"]}
            )
            merged = (
                df
                if merged is None
                else merged.merge(df, on=["prompt", "split", "question"], how="outer")
            )
        merged = merged[merged["split"] == "test"].reset_index(drop=True)
        have = [m for m in llms if m in merged.columns]
        for m in llms:
            cov.append(
                {
                    "dataset": dataset,
                    "llm": m,
                    "n_instances": len(merged),
                    "n_missing": int(merged[m].isna().sum()) if m in merged else len(merged),
                }
            )
        if len(have) < len(llms):
            continue  # some LLM has no run for this dataset: reported in coverage, not used
        merged = merged[merged[list(llms)].notna().all(axis=1)].reset_index(drop=True)
        ids = [f"{dataset}/{i}" for i in range(len(merged))]
        inst.append(
            pd.DataFrame(
                {
                    "instance_id": ids,
                    "dataset": dataset,
                    "text": merged["prompt"],
                    "question": merged["question"],
                }
            )
        )
        s = merged[list(llms)].astype(int)
        s.insert(0, "instance_id", ids)
        succ.append(s)
    if not inst:
        raise HelmError(f"no kept HELM-Lite dataset has runs for every LLM under {runs_dir}")
    return pd.concat(inst, ignore_index=True), pd.concat(succ, ignore_index=True), pd.DataFrame(cov)
