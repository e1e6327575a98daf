"""OpenAI `evals` logs (`oaieval --record_path`): per-instance success of LLMs.

The KindsOfReasoning collection of the `assessors` paper (Pacchiardi et al.) and its offline
stand-in `cfi_ground_truth` store one JSON-lines log per (task, LLM) at
`<root>/<task>/<llm>.jsonl`. Each log holds a `spec` line, a `final_report` line and, per
sample, a `sampling` event (prompt, sampled output) and a `match` event (expected answer).

As the paper does, success is *recomputed* from the sampled output and ignores evals' own
`correct` flag (which neither strips nor lowercases): the expected answer must occur in the
output at a word boundary, after strip, lowercase and NBSP removal (`answer_matches`).

Chat models store the prompt as a message list (system, user); completion models store one
string "<system>\\nUser: <user>\\nAssistant:". Both reduce to the same user message, which is
the key that joins LLMs (outer join, duplicate prompts dropped), exactly as the authors' loader.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

import pandas as pd

__all__ = [
    "answer_matches",
    "read_evals_log",
    "load_evals_task",
    "load_evals_collection",
    "read_registry_samples",
    "KINDS_OF_REASONING_TAGS",
    "KINDS_OF_REASONING_OOD",
    "kinds_of_reasoning_evals",
    "ood_test_datasets",
]


class EvalsLogError(ValueError):
    """An evals log is malformed (names the file and line)."""


def answer_matches(expected: str | int, sampled: str) -> bool:
    """The paper's success criterion: `expected` occurs in `sampled` at a word boundary.

    Both are stripped, lowercased and have non-breaking spaces replaced by spaces; an integer
    expected answer is compared as its decimal string.
    """
    if isinstance(expected, bool) or not isinstance(expected, (str, int)):
        raise EvalsLogError(f"expected answer is neither a string nor an integer: {expected!r}")
    exp = (
        expected.strip().lower().replace("\u00a0", " ")
        if isinstance(expected, str)
        else str(expected)
    )
    out = sampled.strip().lower().replace("\u00a0", " ")
    return re.search(r"(^|\b)" + re.escape(exp) + r"(\b|$|\s)", out) is not None


def _split_prompt(prompt) -> tuple[str, str]:
    """(system prompt, user message) of a chat message list or a completion-style string."""
    if isinstance(prompt, list):
        if len(prompt) < 2 or prompt[0].get("role") != "system":
            raise EvalsLogError(f"chat prompt without a system and a user message: {prompt!r:.200}")
        return prompt[0]["content"], prompt[1]["content"]
    if isinstance(prompt, str):
        # The few-shot part, if any, sits between the system prompt and the last "User:" turn.
        system = prompt.split("\nUser: ")[0]
        user = prompt.split("\nUser: ")[-1].split("\nAssistant:")[0]
        return system, user
    raise EvalsLogError(f"prompt is neither a message list nor a string: {prompt!r:.200}")


def _lines(path: Path):
    """(line number, line) of the non-empty lines of a JSONL file; a file that cannot be read
    (missing, not UTF-8, changed after its bundle was verified) fails naming it."""
    from evalsci.data.released import ReleasedDataError, verify_file

    try:
        verify_file(path)
        with open(path, encoding="utf-8") as fh:
            lines = [(i, line) for i, line in enumerate(fh, 1) if line.strip()]
    except ReleasedDataError as e:
        raise EvalsLogError(str(e)) from None
    except (OSError, UnicodeDecodeError) as e:
        raise EvalsLogError(f"cannot read {path}: {type(e).__name__}: {e}") from e
    return lines


def read_evals_log(path: str | Path) -> pd.DataFrame:
    """One evals log -> one row per sample.

    Columns: sample_id, prompt (the user message), system_prompt, expected, sampled, success
    (0/1, recomputed with `answer_matches`), correct_evals (evals' own flag, for reference).
    """
    path = Path(path)
    sampling: dict[str, dict] = {}
    match: dict[str, dict] = {}
    for lineno, line in _lines(path):
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as e:
            raise EvalsLogError(f"{path}:{lineno}: not JSON ({e})") from e
        kind = rec.get("type")
        if kind not in ("sampling", "match"):
            continue  # spec, final_report and other events
        sid = rec.get("sample_id")
        if sid is None or "data" not in rec:
            raise EvalsLogError(f"{path}:{lineno}: {kind} event without sample_id/data")
        (sampling if kind == "sampling" else match)[sid] = rec["data"]
    if not sampling:
        raise EvalsLogError(f"{path}: no sampling events (is this an oaieval --record_path log?)")
    missing = sorted(set(sampling) ^ set(match))
    if missing:
        raise EvalsLogError(
            f"{path}: samples without both sampling and match events: {missing[:5]}"
        )
    rows = []
    for sid, s in sampling.items():
        m = match[sid]
        system, user = _split_prompt(s["prompt"])
        sampled = m.get("sampled")
        if sampled is None:  # older logs keep the output only in the sampling event
            sampled = (
                s["sampled"][0] if isinstance(s.get("sampled"), list) else s.get("sampled", "")
            )
        rows.append(
            {
                "sample_id": sid,
                "prompt": user,
                "system_prompt": system,
                "expected": m["expected"],
                "sampled": sampled,
                "success": int(answer_matches(m["expected"], sampled)),
                "correct_evals": bool(m.get("correct", False)),
            }
        )
    return pd.DataFrame(rows)


def load_evals_task(
    root: str | Path, task: str, llms: Sequence[str]
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Join the logs of `llms` on one task by prompt (the authors' loader).

    Returns (instances, coverage): instances has columns prompt, system_prompt and one
    `Success_<llm>` column per LLM (NaN where an LLM lacks the prompt); coverage has one row per
    LLM with the number of samples, of duplicate prompts dropped, and of joined prompts it lacks.
    """
    root = Path(root)
    merged: pd.DataFrame | None = None
    cov = []
    for llm in llms:
        path = root / task / f"{llm}.jsonl"
        if not path.is_file():
            known = sorted(f.name.removesuffix(".jsonl") for f in (root / task).glob("*.jsonl"))
            raise FileNotFoundError(
                f"evals log missing: {path} (task {task!r}, LLM {llm!r}); "
                f"LLMs with logs for this task: {known}"
            )
        df = read_evals_log(path)
        dup = df.duplicated(subset=["prompt"])
        df = df.loc[~dup, ["prompt", "system_prompt", "success"]].rename(
            columns={"success": f"Success_{llm}"}
        )
        cov.append(
            {"task": task, "llm": llm, "n_samples": int(len(dup)), "n_duplicates": int(dup.sum())}
        )
        if merged is None:
            merged = df
        else:
            merged = merged.merge(df.drop(columns="system_prompt"), on="prompt", how="outer")
    assert merged is not None
    coverage = pd.DataFrame(cov)
    coverage["n_missing"] = [int(merged[f"Success_{llm}"].isna().sum()) for llm in llms]
    # A prompt only some LLMs have gets its system prompt from whichever log had it first.
    merged["system_prompt"] = merged["system_prompt"].ffill().bfill()
    return merged.reset_index(drop=True), coverage


def load_evals_collection(
    root: str | Path, tasks: Iterable[str], llms: Sequence[str]
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Load several tasks into the normalised tables every `assessors` step reads.

    Returns (instances, success, coverage):
    - instances: instance_id ("<task>/<n>"), dataset (the task), text (f"{system} {prompt}",
      the text the paper embeds), prompt, system_prompt;
    - success: instance_id plus one 0/1 column per LLM, only instances every LLM covers
      (the paper drops rows where any considered LLM is NaN);
    - coverage: per (task, LLM) counts, including `n_missing` prompts the LLM lacks.
    """
    inst, succ, covs = [], [], []
    for task in tasks:
        df, cov = load_evals_task(root, task, llms)
        covs.append(cov)
        cols = [f"Success_{llm}" for llm in llms]
        df = df[df[cols].notna().all(axis=1)].reset_index(drop=True)
        ids = [f"{task}/{i}" for i in range(len(df))]
        inst.append(
            pd.DataFrame(
                {
                    "instance_id": ids,
                    "dataset": task,
                    "text": df["system_prompt"] + " " + df["prompt"],
                    "prompt": df["prompt"],
                    "system_prompt": df["system_prompt"],
                }
            )
        )
        s = df[cols].astype(int)
        s.columns = list(llms)
        s.insert(0, "instance_id", ids)
        succ.append(s)
    return (
        pd.concat(inst, ignore_index=True),
        pd.concat(succ, ignore_index=True),
        pd.concat(covs, ignore_index=True),
    )


def read_registry_samples(path: str | Path) -> pd.DataFrame:
    """An evals registry `samples.jsonl` (KindsOfReasoning prompts) -> system_prompt, prompt, ideal.

    These are the prompts the LLMs were run on; joining them with a results log by prompt tells
    which registry samples a log covers.
    """
    rows = []
    for lineno, line in _lines(Path(path)):
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as e:
            raise EvalsLogError(f"{path}:{lineno}: not JSON ({e})") from e
        if "input" not in rec or "ideal" not in rec:
            raise EvalsLogError(f"{path}:{lineno}: sample without 'input' and 'ideal'")
        inp = rec["input"]
        if isinstance(inp, list):
            system = next((m["content"] for m in inp if m.get("role") == "system"), "")
            user = [m["content"] for m in inp if m.get("role") == "user"]
            prompt = user[-1] if user else ""
        else:
            system, prompt = "", str(inp)
        ideal = rec["ideal"][0] if isinstance(rec["ideal"], list) else rec["ideal"]
        rows.append({"system_prompt": system, "prompt": prompt, "ideal": ideal})
    return pd.DataFrame(rows)


# KindsOfReasoning: the kinds of reasoning each eval tests (the authors' `load_reasoning`), and
# the out-of-distribution splits: an eval goes to the test split if ANY of its tags is held out.
KINDS_OF_REASONING_TAGS: dict[str, list[str]] = {
    "formal_fallacies_syllogisms_negation": ["logical_reasoning"],
    "logical_args": ["logical_reasoning", "common_sense"],
    "babi_task_16": ["inductive_reasoning"],
    "logiqav2-logical-reasoning-plus": ["deductive_reasoning"],
    "wanli": ["deductive_reasoning"],
    "alpha_nli": ["abductive_reasoning"],
    "reclor-logical-reasoning-plus": [
        "abductive_reasoning",
        "deductive_reasoning",
        "inductive_reasoning",
    ],
    "crass_ai": ["counterfactual_reasoning"],
    "cause_and_effect_one_sentence": ["causal_reasoning"],
    "cause_and_effect_two_sentences": ["causal_reasoning"],
    "fantasy_reasoning": ["causal_reasoning"],
    "goal_step_wikihow_goal_inference": ["causal_reasoning"],
    "goal_step_wikihow_step_inference": ["causal_reasoning"],
    "goal_step_wikihow_step_ordering": ["causal_reasoning"],
    "copa": ["causal_reasoning", "world_knowledge"],
    "cosmos_qa": ["causal_reasoning", "world_knowledge"],
    "ropes": ["causal_reasoning", "world_knowledge"],
    "anli": ["causal_reasoning", "world_knowledge"],
    "emoji_movie": ["analogical_reasoning", "world_knowledge"],
    "abstract_narrative_understanding_9_distractors": ["analogical_reasoning"],
    "abstract_narrative_understanding_99_distractors": ["analogical_reasoning"],
    "odd_one_out": ["analogical_reasoning"],
    "metaphor_boolean": ["analogical_reasoning"],
    "geometric_shapes": ["spatial_reasoning"],
    "space_nli": ["spatial_reasoning"],
    **{
        f"arithmetic_{d}_digit_{op}": ["arithmetic"]
        for d in range(1, 6)
        for op in ("addition", "subtraction", "multiplication", "division")
    },
}

KINDS_OF_REASONING_OOD: dict[str, list[str]] = {
    "OOD_1": ["arithmetic"],
    "OOD_2": ["causal_reasoning"],
    "OOD_3": [
        "logical_reasoning",
        "deductive_reasoning",
        "inductive_reasoning",
        "spatial_reasoning",
        "abductive_reasoning",
        "counterfactual_reasoning",
        "analogical_reasoning",
    ],
    "OOD_4": ["world_knowledge", "common_sense"],
}


def kinds_of_reasoning_evals() -> list[str]:
    """The evals (tasks) of KindsOfReasoning, in the authors' order."""
    return list(KINDS_OF_REASONING_TAGS)


def ood_test_datasets(split: str) -> list[str]:
    """KindsOfReasoning evals in the test split of OOD split `split` (e.g. "OOD_1")."""
    if split not in KINDS_OF_REASONING_OOD:
        raise KeyError(
            f"unknown KindsOfReasoning OOD split {split!r}; known: {list(KINDS_OF_REASONING_OOD)}"
        )
    held = set(KINDS_OF_REASONING_OOD[split])
    return [e for e, tags in KINDS_OF_REASONING_TAGS.items() if held & set(tags)]
