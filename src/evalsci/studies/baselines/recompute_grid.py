"""The recompute grid of the `baselines` study: its settings, which (model, task, shots)
cells, which shard files, and which prompts each cell scores.

`RecomputeSettings.from_config` builds the settings once, at parse time
(baselines_common.smk), from the resolved config `baselines.recompute` (evalsci.settings:
the grid from the baselines preset, every other key's default from its schema). The rules,
the scripts and these functions take that object, never the config dict.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from evalsci.configcheck import where as config_where
from evalsci.lm.prompts import check_plan, random_plans, released_plans

RELEASED_MODELS = (
    "Llama-2-7b",
    "Alpaca-7b",
    "OLMo-7B",
    "OLMo-7B-Instruct",
    "falcon-7b",
    "falcon-7b-instruct",
)


@dataclass(frozen=True)
class RecomputeSettings:
    """Our own few-shot inference (config `baselines.recompute`; each field's meaning is in
    workflow/schemas/baselines.schema.yaml)."""

    models: tuple[str, ...]
    tasks: tuple[str, ...]
    shots: tuple[int, ...]
    prompts: int
    # Table 2: (NF4 model, the same model in full precision) per pair
    precision_pairs: tuple[tuple[str, str], ...]
    demonstrations: Literal["released", "random"]
    prompts_of: str
    prompts_per_shard: int
    option_tokens: Literal["authors", "span"]
    max_length: int | None

    @classmethod
    def from_config(cls, section: Mapping[str, Any]) -> RecomputeSettings:
        """From the resolved config["baselines"]["recompute"], which holds every key (no
        default is repeated here)."""
        return cls(
            models=tuple(section["models"]),
            tasks=tuple(section["tasks"]),
            shots=tuple(int(k) for k in section["shots"]),
            prompts=int(section["prompts"]),
            precision_pairs=tuple(
                (p["nf4"], p["full"]) for p in section.get("precision_pairs") or ()
            ),
            demonstrations=section["demonstrations"],
            prompts_of=section["prompts_of"],
            prompts_per_shard=int(section["prompts_per_shard"]),
            option_tokens=section["option_tokens"],
            max_length=section["max_length"],
        )


def check_models(s: RecomputeSettings, lm_models: Mapping[str, Any]) -> None:
    """At parse time: every model of the chosen grid is a name in config lm.models, and one
    the file names can carry (`<Model>_<task>_<K>-shot.csv.gz` splits on `_`, so a name with
    `_` or `/` would be read back as another model)."""
    where = f"config baselines.recompute.models ({config_where('baselines.recompute.models')})"
    for m in s.models:
        if not isinstance(m, str) or "_" in m or "/" in m:
            raise ValueError(
                f"{where}: model name {m!r} cannot contain '_' or '/' (file names "
                "are <model>_<task>_<shots>-shot); give it another key in lm.models"
            )
        if m not in lm_models:
            raise ValueError(
                f"{where}: unknown model {m!r}; known (config lm.models): {sorted(lm_models)}"
            )


def cells(s: RecomputeSettings) -> list[tuple[str, str, int]]:
    """(model, task, shots) of every recomputed experiment, in config order."""
    return [(m, t, k) for m in s.models for t in s.tasks for k in s.shots]


def cell_key(model: str, task: str, shots: int) -> str:
    return f"{model}_{task}_{shots}-shot"


def shard_ranges(prompts: int, per_shard: int) -> list[tuple[int, int]]:
    return [(a, min(a + per_shard, prompts)) for a in range(0, prompts, per_shard)]


def plan_seed(seed: int, task: str, shots: int) -> int:
    """Seed of the random demonstrations of a (task, shots): the same for every model."""
    return (int(seed) * 1_000_003 + zlib.crc32(f"{task}:{shots}".encode())) % (2**32)


def prompt_plans(
    model: str,
    task: str,
    shots: int,
    n_examples: int,
    subsample,
    s: RecomputeSettings,
    per_example_dir: str | Path | None,
    seed: int,
):
    """The prompts of a cell: the authors' (rebuilt from their CSV) or seeded random ones."""
    prompts = s.prompts
    if s.demonstrations == "released":
        source = model if model in RELEASED_MODELS else s.prompts_of
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
