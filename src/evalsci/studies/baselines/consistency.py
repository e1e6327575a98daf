"""Do the per-example CSVs reproduce aggregated-results.json? And the data's quirks.

For every experiment: the per-prompt mean of `Correct prediction` must equal the 200
aggregated accuracies (compared as sorted lists: the prompt order differs). Along the way
each file is described (prompts, distinct example IDs, demonstration sets) so that the
quirks of the released data can be confirmed from the data itself:
  - merged subtask examples: `Example ID` is the index *within a subtask*, so examples of
    different subtasks with the same index became one "example" (fewer distinct IDs per
    prompt than the evaluated n); the expected count follows from the subsample positions
    and the subtask sizes of the task JSONs;
  - duplicated prompts: 200 prompts were run even where fewer distinct 1-shot
    demonstrations exist (N < 200);
  - prompts evaluated on a different example set (Llama-2-7b winowhy 1-shot);
  - OLMo-7B-Instruct ~ OLMo-7B: nearly identical per-example losses and correctness.
"""

from __future__ import annotations

from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd

from evalsci.data.bigbench_meta import SUBSAMPLE
from evalsci.data.checked import read_json
from evalsci.pipeline.progress import progress_bar
from evalsci.studies.baselines.load import BaselinesDataError, read_per_example
from evalsci.studies.baselines.settings import INSTRUCT_OF, Cell, display_size, eval_size

TOLERANCE = 1e-9
LOSS_CLOSE = 0.02  # |loss difference| counted as "the same" between two models


def subtask_sizes(bigbench: str | Path, task: str) -> list[int] | None:
    """Example counts of a task's subtasks in alphabetical order (the order of the HF
    'default' split), or None for a task without subtasks."""
    base = Path(bigbench) / "benchmark_tasks" / task
    subs = sorted(d for d in base.iterdir() if d.is_dir()) if base.is_dir() else []
    if not subs:
        return None
    return [len(read_json(d / "task.json", BaselinesDataError)["examples"]) for d in subs]


def within_subtask_ids(positions, sizes: list[int]) -> np.ndarray:
    """Split positions of the concatenated subtasks -> index within their subtask."""
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    positions = np.asarray(positions)
    which = np.searchsorted(np.cumsum(sizes), positions, side="right")
    return positions - starts[which]


def expected_distinct_ids(task: str, sizes: list[int] | None, subsample) -> int | None:
    """Distinct `Example ID`s per prompt implied by the subtask structure (large tasks:
    the fixed subsample; None where it depends on each prompt's demonstrations)."""
    if sizes is None:
        return None
    if subsample is None:
        return None
    return len(set(within_subtask_ids(subsample, sizes).tolist()))


def describe(cell: Cell, path, accs: np.ndarray) -> tuple[dict, pd.DataFrame]:
    """Check one file against its aggregated accuracies; returns (row, slim frame)."""
    df = read_per_example(path)
    per_prompt = df.groupby("Prompt ID")["Correct prediction"].mean().to_numpy()
    ours, theirs = np.sort(per_prompt), np.sort(np.asarray(accs, float))
    same_len = len(ours) == len(theirs)
    diff = float(np.max(np.abs(ours - theirs))) if same_len else float("nan")
    ids_per_prompt = df.groupby("Prompt ID")["Example ID"].agg(frozenset)
    modal, _ = Counter(ids_per_prompt).most_common(1)[0]
    sizes = df.groupby("Prompt ID").size()
    demos = df.groupby("Prompt ID")["Demonstration IDs in prompt"].first()
    row = {
        "config": cell.key,
        "model": cell.model,
        "task": cell.task,
        "shots": cell.shots,
        "match": "yes" if same_len and diff <= TOLERANCE else "no",
        "max_abs_diff": diff,
        "prompts": len(per_prompt),
        "prompts_aggregated": len(theirs),
        "rows": len(df),
        "eval_n": eval_size(cell.task, cell.shots),
        "examples_per_prompt_min": int(sizes.min()),
        "examples_per_prompt_max": int(sizes.max()),
        "distinct_example_ids": int(df["Example ID"].nunique()),
        "distinct_demo_sets": int(demos.nunique()),
        # Only tasks with a fixed 200-example subsample should evaluate one example set;
        # in smaller tasks each prompt's demonstrations are left out of its evaluation.
        "prompts_other_example_set": int(sum(s != modal for s in ids_per_prompt))
        if display_size(cell.task) >= SUBSAMPLE
        else 0,
    }
    slim = df[
        [
            "Demonstration IDs in prompt",
            "Example ID",
            "Loss of correct answer",
            "Correct prediction",
        ]
    ].drop_duplicates(["Demonstration IDs in prompt", "Example ID"])
    return row, slim


def _notes(row: dict, expected_ids: int | None) -> str:
    notes = []
    if row["match"] == "no":
        notes.append(
            f"MISMATCH: per-prompt means differ from aggregated (max |diff| "
            f"{row['max_abs_diff']:.3g}; {row['prompts']} vs {row['prompts_aggregated']} prompts)"
        )
    if row["examples_per_prompt_max"] < row["eval_n"]:
        msg = (
            f"merged subtask IDs: {row['examples_per_prompt_min']}-"
            f"{row['examples_per_prompt_max']} distinct Example IDs per prompt of n={row['eval_n']}"
        )
        if expected_ids is not None:
            msg += f" (subtask structure implies {expected_ids})"
        notes.append(msg)
    if row["distinct_demo_sets"] < row["prompts"]:
        notes.append(
            f"duplicated prompts: {row['distinct_demo_sets']} distinct demonstration "
            f"sets among {row['prompts']} prompts"
        )
    if row["prompts_other_example_set"]:
        notes.append(
            f"{row['prompts_other_example_set']} prompt(s) evaluated on a different "
            f"example set ({row['distinct_example_ids']} distinct Example IDs in file)"
        )
    return "; ".join(notes)


def _pair_stats(a: pd.DataFrame, b: pd.DataFrame) -> dict:
    j = a.merge(b, on=["Demonstration IDs in prompt", "Example ID"], suffixes=("_a", "_b"))
    if j.empty:
        return {"pairs": 0, "loss_close": float("nan"), "same_correct": float("nan")}
    return {
        "pairs": len(j),
        "loss_close": float(
            (
                np.abs(j["Loss of correct answer_a"] - j["Loss of correct answer_b"]) < LOSS_CLOSE
            ).mean()
        ),
        "same_correct": float((j["Correct prediction_a"] == j["Correct prediction_b"]).mean()),
    }


def check_group(args) -> tuple[list[dict], list[dict]]:
    """All models of one (task, shots): per-file rows and base/instruct pair rows."""
    cells, aggregated, expected_ids = args
    rows, slims = [], {}
    for cell, path in cells:
        row, slim = describe(cell, path, aggregated[cell])
        row["notes"] = _notes(row, expected_ids)
        rows.append(row)
        slims[cell.model] = slim
    pairs = []
    for base, instr in INSTRUCT_OF.items():
        if base in slims and instr in slims:
            c = cells[0][0]
            pairs.append(
                {
                    "task": c.task,
                    "shots": c.shots,
                    "base": base,
                    "instruct": instr,
                    **_pair_stats(slims[base], slims[instr]),
                }
            )
    return rows, pairs


def check_all(
    files: dict[Cell, Path],
    aggregated: dict[Cell, np.ndarray],
    bigbench: str | Path | None,
    subsamples: dict[str, list[int]],
    threads: int = 1,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    missing = [c.key for c in files if c not in aggregated]
    if missing:
        raise ValueError(f"per-example files without aggregated accuracies: {missing[:3]}")
    groups: dict[tuple[str, int], list] = {}
    for cell, path in sorted(files.items()):
        groups.setdefault((cell.task, cell.shots), []).append((cell, path))
    jobs = []
    for (task, _), cells in groups.items():
        sizes = subtask_sizes(bigbench, task) if bigbench else None
        exp = expected_distinct_ids(task, sizes, subsamples.get(task))
        jobs.append((cells, {c: aggregated[c] for c, _ in cells}, exp))
    if threads > 1:
        with ProcessPoolExecutor(threads) as pool:
            results = list(
                progress_bar(pool.map(check_group, jobs), total=len(jobs), desc="per-example check")
            )
    else:
        results = [check_group(j) for j in progress_bar(jobs, desc="per-example check")]
    rows = [r for rs, _ in results for r in rs]
    pairs = [p for _, ps in results for p in ps]
    return pd.DataFrame(rows), pd.DataFrame(pairs)


def pair_summary(pairs: pd.DataFrame) -> pd.DataFrame:
    """Over all tasks and shots, per base/instruct pair: share of joint (prompt, example)
    results with near-identical loss and identical correctness."""
    if pairs.empty:
        return pairs
    w = pairs.assign(lc=pairs.loss_close * pairs.pairs, sc=pairs.same_correct * pairs.pairs)
    g = w.groupby(["base", "instruct"], sort=False)[["pairs", "lc", "sc"]].sum()
    return pd.DataFrame(
        {"pairs": g.pairs, "loss_close": g.lc / g.pairs, "same_correct": g.sc / g.pairs}
    ).reset_index()


def quirks_markdown(checks: pd.DataFrame, pairs: pd.DataFrame) -> str:
    n_match = int((checks.match == "yes").sum())
    lines = [
        "# Per-example results vs aggregated-results.json\n",
        f"{n_match} of {len(checks)} experiments reproduce their 200 aggregated accuracies "
        f"(sorted, |diff| <= {TOLERANCE:g}).\n",
    ]
    bad = checks[checks.match == "no"]
    if len(bad):
        lines.append("Mismatches: " + ", ".join(bad.config) + "\n")
    lines.append("## Quirks found in the data\n")
    merged = checks[checks.examples_per_prompt_max < checks.eval_n]
    if len(merged):
        lines.append("**Merged subtask examples** (`Example ID` is the index within a subtask):")
        for task, d in merged.groupby("task"):
            lines.append(
                f"- {task}: {d.examples_per_prompt_min.min()}-{d.examples_per_prompt_max.max()} "
                f"distinct IDs per prompt, evaluated n = {d.eval_n.min()}-{d.eval_n.max()} "
                f"({len(d)} experiments). {d.notes.iloc[0].split('; ')[0]}"
            )
    dup = checks[checks.distinct_demo_sets < checks.prompts]
    if len(dup):
        lines.append("\n**Duplicated prompts** (fewer distinct demonstration sets than prompts):")
        for (task, shots), d in dup.groupby(["task", "shots"]):
            why = (
                f"only N = {display_size(task)} distinct 1-shot prompts exist; Table 1 uses t = N"
                if display_size(task) < SUBSAMPLE and shots == 1
                else "the same demonstrations drawn again by chance; Table 1 keeps t = 200"
            )
            lines.append(
                f"- {task} {shots}-shot: {d.distinct_demo_sets.min()}-"
                f"{d.distinct_demo_sets.max()} distinct of {d.prompts.max()} prompts ({why})"
            )
    odd = checks[checks.prompts_other_example_set > 0]
    if len(odd):
        lines.append("\n**Prompts on a different example set:**")
        for r in odd.itertuples():
            lines.append(
                f"- {r.config}: {r.prompts_other_example_set} prompt(s); "
                f"{r.distinct_example_ids} distinct Example IDs in the file"
            )
    ps = pair_summary(pairs)
    if len(ps):
        lines.append("\n**Base vs instruction-tuned model on the same (prompt, example):**")
        for r in ps.itertuples():
            lines.append(
                f"- {r.base} vs {r.instruct}: {r.pairs} pairs, "
                f"{100 * r.loss_close:.1f}% losses within {LOSS_CLOSE}, "
                f"{100 * r.same_correct:.1f}% identical correctness"
            )
    return "\n".join(lines) + "\n"
