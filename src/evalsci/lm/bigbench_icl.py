"""Few-shot BIG-bench runs of the `baselines` study: grid, shards, and assembly.

The workflow (workflow/rules/baselines_recompute.smk) calls three functions:

- `run_shard(...)`: one inference job = prompts [start, stop) of one (model, task, shots)
  cell; every prompt is its own resumable sub-shard (`evalsci.lm.shards`), so a killed job
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
import zlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from evalsci.lm.icl import authors_table, evaluate_prompt, prompt_accuracies
from evalsci.lm.prompts import check_plan, random_plans, released_plans
from evalsci.lm.shards import read_shards, run_shards, write_frame
from evalsci.workflow import atomic_path

log = logging.getLogger(__name__)

RELEASED_MODELS = (
    "Llama-2-7b",
    "Alpaca-7b",
    "OLMo-7B",
    "OLMo-7B-Instruct",
    "falcon-7b",
    "falcon-7b-instruct",
)


def settings(section: Mapping[str, Any]) -> dict[str, Any]:
    """The effective recompute settings: `section` is config["baselines"]["recompute"]; the
    grid of its `scale` merged with the scale-independent keys."""
    scale = section.get("scale", "default")
    if scale not in section:
        raise KeyError(
            f"config baselines.recompute.scale = {scale!r}, but there is no "
            f"baselines.recompute.{scale} section"
        )
    out = {k: v for k, v in section.items() if k not in ("default", "full")}
    out.update(section[scale])
    for key in ("models", "tasks", "shots", "prompts"):
        if key not in out:
            raise KeyError(f"config baselines.recompute.{scale} lacks {key!r}")
    return out


def check_models(section: Mapping[str, Any], lm_models: Mapping[str, Any]) -> None:
    """At parse time: every model of the chosen grid is a name in config lm.models, and one
    the file names can carry (`<Model>_<task>_<K>-shot.csv.gz` splits on `_`, so a name with
    `_` or `/` would be read back as another model)."""
    s = settings(section)
    where = f"config baselines.recompute.{section.get('scale', 'default')}.models"
    for m in s["models"]:
        if not isinstance(m, str) or "_" in m or "/" in m:
            raise ValueError(
                f"{where}: model name {m!r} cannot contain '_' or '/' (file names "
                "are <model>_<task>_<shots>-shot); give it another key in lm.models"
            )
        if m not in lm_models:
            raise ValueError(
                f"{where}: unknown model {m!r}; known (config lm.models): {sorted(lm_models)}"
            )


def cells(section: Mapping[str, Any]) -> list[tuple[str, str, int]]:
    """(model, task, shots) of every recomputed experiment, in config order."""
    s = settings(section)
    return [(m, t, int(k)) for m in s["models"] for t in s["tasks"] for k in s["shots"]]


def cell_key(model: str, task: str, shots: int) -> str:
    return f"{model}_{task}_{shots}-shot"


def shard_ranges(prompts: int, per_shard: int) -> list[tuple[int, int]]:
    return [(a, min(a + per_shard, prompts)) for a in range(0, prompts, per_shard)]


def shard_files(
    section: Mapping[str, Any], base: str, model: str, task: str, shots: int | str
) -> list[str]:
    """The shard outputs of one cell under `base` (results/baselines/recompute)."""
    s = settings(section)
    return [
        f"{base}/shards/{model}/{task}/{shots}-shot/prompts-{a:03d}-{b:03d}.csv.gz"
        for a, b in shard_ranges(int(s["prompts"]), int(s.get("prompts_per_shard", 25)))
    ]


def per_example_files(section: Mapping[str, Any], base: str) -> list[str]:
    """The authors'-schema per-example CSV of every recomputed cell under `base`."""
    return [f"{base}/results/{cell_key(*c)}.csv.gz" for c in cells(section)]


def plan_seed(seed: int, task: str, shots: int) -> int:
    """Seed of the random demonstrations of a (task, shots): the same for every model."""
    return (int(seed) * 1_000_003 + zlib.crc32(f"{task}:{shots}".encode())) % (2**32)


def prompt_plans(
    model: str,
    task: str,
    shots: int,
    n_examples: int,
    subsample,
    s: Mapping[str, Any],
    per_example_dir: str | Path | None,
    seed: int,
):
    """The prompts of a cell: the authors' (rebuilt from their CSV) or seeded random ones."""
    prompts = int(s["prompts"])
    if s.get("demonstrations", "released") == "released":
        source = model if model in RELEASED_MODELS else s.get("prompts_of", "OLMo-7B")
        if per_example_dir is None:
            raise ValueError("demonstrations: released needs the srb_per_example bundle")
        base = Path(per_example_dir)
        base = base / "results" if (base / "results").is_dir() else base
        csv = base / f"{cell_key(source, task, shots)}.csv.gz"
        if not csv.exists():
            csv = csv.with_suffix("")  # plain .csv upstream
        plans = released_plans(csv)[:prompts]
        if len(plans) < prompts:
            raise ValueError(f"{csv} has {len(plans)} prompts, config asks for {prompts}")
    else:
        plans = random_plans(n_examples, shots, prompts, subsample, plan_seed(seed, task, shots))
    for p in plans:
        check_plan(p, n_examples, shots, subsample)
    return plans


def scorer_for(model, tok, s: Mapping[str, Any], batch: Mapping[str, Any], progress=True):
    from evalsci.lm.scoring import Scorer

    return Scorer(
        model,
        tok,
        option_tokens=s.get("option_tokens", "authors"),
        max_length=s.get("max_length"),
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
    recompute: Mapping[str, Any],
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
    from evalsci.lm.load import default_device, load_model

    s = settings(recompute)
    examples = load_task(task, bigbench_dir)
    subsample = subsample_positions(task, idxs_dir)
    plans = prompt_plans(model, task, shots, len(examples), subsample, s, per_example_dir, seed)
    plans = plans[start:stop]
    device = lm.get("device", "auto")
    device = default_device() if device == "auto" else device
    kind = "cuda" if device.startswith("cuda") else "cpu"
    dtype = spec.get("dtype") or (lm.get("cpu_dtype", "float32") if kind == "cpu" else None)
    plan_desc = {
        "model": model,
        "spec": dict(spec),
        "task": task,
        "shots": shots,
        "device": kind,
        "dtype": dtype,
        "option_tokens": s.get("option_tokens"),
        "max_length": s.get("max_length"),
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
            state["scorer"] = scorer_for(m, tok, s, lm.get("batch", {}).get(kind, {}))
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
