"""Few-shot BIG-bench inference jobs of the `baselines` study: shards and their assembly.

The grid (which cells, which shard files, which prompts) is `recompute_grid`. The workflow
(workflow/rules/baselines_recompute.smk) calls three functions here:

- `run_shard(...)`: one inference job = prompts [start, stop) of one (model, task, shots)
  cell; every prompt is its own resumable sub-shard (`resumable`), so a killed job
  redoes only the prompts it had not finished; writes the per-option rows of its prompts;
- `assemble_cell(...)`: the shards of one cell -> the authors' per-example CSV
  (`<Model>_<task>_<K>-shot.csv.gz`) and the per-option file beside it
  (`<Model>_<task>_<K>-shot.options.csv.gz`);
- `write_aggregated(...)`: every cell -> `aggregated-results.json` ({key: [per-prompt
  accuracy]} in Prompt ID order), as the authors released it.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from evalsci.lm.icl import authors_table, evaluate_prompt, prompt_accuracies
from evalsci.pipeline.jobs import atomic_path
from evalsci.studies.baselines.recompute_grid import RecomputeSettings, cell_key, prompt_plans
from evalsci.studies.baselines.resumable import read_shards, run_shards, write_frame

log = logging.getLogger(__name__)


def scorer_for(model, tok, s: RecomputeSettings, batch: Mapping[str, Any], progress=True):
    from evalsci.lm.scoring import Scorer

    return Scorer(
        model,
        tok,
        option_tokens=s.option_tokens,
        max_length=s.max_length,
        token_budget=int(batch.get("token_budget", 1024)),
        cache_budget=int(batch.get("cache_budget", 65536)),
        progress=progress,
    )


def run_shard(
    *,
    model: str,
    spec: Mapping[str, Any],
    task: str,
    shots: int,
    start: int,
    stop: int,
    bigbench_dir: str | Path,
    idxs_dir: str | Path,
    per_example_dir: str | Path | None,
    settings: RecomputeSettings,
    lm: Mapping[str, Any],
    seed: int,
    out: str | Path,
    work_dir: str | Path,
) -> dict:
    """Score prompts [start, stop) of one cell; write their per-option rows to `out`.

    Prompt results are kept in `work_dir` (one file per prompt) until the shard is
    complete, so a rerun after a kill resumes there. Returns scoring statistics.
    """
    from evalsci.data.bigbench import load_task, subsample_positions
    from evalsci.lm.load import load_model
    from evalsci.lm.placement import placement

    s = settings
    examples = load_task(task, bigbench_dir)
    subsample = subsample_positions(task, idxs_dir)
    plans = prompt_plans(model, task, shots, len(examples), subsample, s, per_example_dir, seed)
    plans = plans[start:stop]
    where = placement(lm, spec)
    device, kind, dtype = where.device, where.kind, where.dtype
    plan_desc = {
        "model": model,
        "spec": dict(spec),
        "task": task,
        "shots": shots,
        "device": kind,
        "dtype": dtype,
        "option_tokens": s.option_tokens,
        "max_length": s.max_length,
        "n_examples": len(examples),
        "prompts": {p.prompt_id: list(p.demos) for p in plans},
    }
    keys = [f"prompt-{p.prompt_id:04d}" for p in plans]
    by_key = dict(zip(keys, plans, strict=True))
    state: dict[str, Any] = {}

    def compute(key: str) -> pd.DataFrame:
        if "scorer" not in state:  # load the model only if some prompt is left to do
            t0 = time.perf_counter()
            m, tok = load_model(spec, device=device, dtype=dtype)
            log.info(
                "loaded %s on %s (%s) in %.1f s", model, device, m.dtype, time.perf_counter() - t0
            )
            state["scorer"] = scorer_for(m, tok, s, where.batch)
        return evaluate_prompt(
            state["scorer"], examples, by_key[key], subsample, desc=f"{task} {shots}-shot {key}"
        )

    t0 = time.perf_counter()
    files = run_shards(
        keys,
        compute,
        work_dir,
        plan=plan_desc,
        desc=f"{cell_key(model, task, shots)} prompts {start}-{stop}",
    )
    df = read_shards(work_dir, keys)
    write_frame(df, out)
    for f in files:
        f.unlink(missing_ok=True)
    stats = state["scorer"].stats.as_dict() if "scorer" in state else {}
    stats["seconds_total"] = time.perf_counter() - t0
    if stats.get("forward_tokens"):
        stats["tokens_per_s"] = stats["forward_tokens"] / max(stats["seconds"], 1e-9)
    log.info("shard %s: %s", out, json.dumps(stats))
    return stats


def assemble_cell(
    shards: Sequence[str | Path], per_example_out: str | Path, options_out: str | Path
) -> pd.DataFrame:
    """The shards of one cell -> the authors' per-example CSV and the per-option file."""
    options = pd.concat(
        [pd.read_csv(f, keep_default_na=False, na_values=[""]) for f in shards], ignore_index=True
    )
    options = options.sort_values(["Prompt ID", "Position", "Option index"], kind="mergesort")
    per_example = authors_table(options)
    write_frame(options, options_out)
    write_frame(per_example, per_example_out)
    return per_example


def write_aggregated(per_example: Mapping[str, str | Path], out: str | Path) -> dict:
    """{cell key: per-prompt accuracies} from the per-example CSVs, as aggregated-results.json."""
    agg = {}
    for key, path in per_example.items():
        df = pd.read_csv(path, usecols=["Prompt ID", "Correct prediction"])
        agg[key] = prompt_accuracies(df)
    with atomic_path(out) as tmp:
        tmp.write_text(json.dumps(agg))
    return agg
