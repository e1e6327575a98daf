"""The recompute grid of the `baselines` study: which (model, task, shots) cells, which shard
files, and which prompts each cell scores.

`baselines_recompute.smk` calls these at parse time (`settings`, `check_models`, `cells`,
`shard_files`, `per_example_files`); `shards.run_shard` calls `prompt_plans`.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from evalsci.lm.prompts import check_plan, random_plans, released_plans

RELEASED_MODELS = (
    "Llama-2-7b",
    "Alpaca-7b",
    "OLMo-7B",
    "OLMo-7B-Instruct",
    "falcon-7b",
    "falcon-7b-instruct",
)


def settings(section: Mapping[str, Any]) -> dict[str, Any]:
    """The recompute settings: `section` is the resolved config["baselines"]["recompute"]
    (its grid from the baselines preset, evalsci.settings)."""
    out = dict(section)
    for key in ("models", "tasks", "shots", "prompts"):
        if key not in out:
            raise KeyError(f"config baselines.recompute lacks {key!r}")
    return out


def check_models(section: Mapping[str, Any], lm_models: Mapping[str, Any]) -> None:
    """At parse time: every model of the chosen grid is a name in config lm.models, and one
    the file names can carry (`<Model>_<task>_<K>-shot.csv.gz` splits on `_`, so a name with
    `_` or `/` would be read back as another model)."""
    s = settings(section)
    where = "config baselines.recompute.models"
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
