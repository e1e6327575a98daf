"""The effective mc_icl parameters: config `mc_icl` (its preset, workflow/presets/mc_icl/, with
the user's settings over it: evalsci.settings), checked against the tasks and models known."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from evalsci.configcheck import where as config_where
from evalsci.data.glue import TASKS

# Paper numbering of the per-dataset appendix figures (Appendix C, alphabetical datasets).
APPENDIX_DATASETS = ("hellaswag", "mnli", "mrpc", "qnli", "qqp", "rte", "sst2", "wnli")
ONE_SHOT_FIGURES = {5 + i: d for i, d in enumerate(APPENDIX_DATASETS)}
TRIAL_FIGURES = {13 + i: d for i, d in enumerate(APPENDIX_DATASETS)}
# Shard names: one per trial of Algorithm 1, one per Section 5.2 set.
RUN_PATTERN = r"trial\d+|set_(?:high|low|random)"
# The paper's models (Table 1) as Hugging Face hub ids, used when config lm.models does not
# define the name.
PAPER_MODELS = {
    "pythia-160m": "EleutherAI/pythia-160m",
    "pythia-1.4b": "EleutherAI/pythia-1.4b",
    "opt-350m": "facebook/opt-350m",
    "opt-1.3b": "facebook/opt-1.3b",
    "gpt-neo-1.3b": "EleutherAI/gpt-neo-1.3B",
    "gpt-neo-2.7b": "EleutherAI/gpt-neo-2.7B",
    "llama-2-7b": "meta-llama/Llama-2-7b-hf",
    "llama-2-13b": "meta-llama/Llama-2-13b-hf",
}
DATASET_NAMES = {
    "hellaswag": "Hellaswag",
    "mnli": "MNLI",
    "mrpc": "MRPC",
    "qnli": "QNLI",
    "qqp": "QQP",
    "rte": "RTE",
    "sst2": "SST-2",
    "wnli": "WNLI",
}


@dataclass(frozen=True)
class Selection:
    """Section 5.2 / Figure 4: the high, low and random sets."""

    models: tuple[str, ...]
    datasets: tuple[str, ...]
    set_size: int
    z_threshold: float


@dataclass(frozen=True)
class McIclSettings:
    """The study's settings, built once from the resolved config `mc_icl` (each field's
    meaning: workflow/schemas/mc_icl.schema.yaml); the rules, scripts and functions take it."""

    scale: str
    models: tuple[str, ...]
    datasets: tuple[str, ...]
    num_demos: int  # K
    num_permutations: int  # P
    num_trials: int
    num_eval: int
    selection: Selection
    figure2_dataset: str
    figure3_dataset: str
    add_bos: bool


def effective(
    section: Mapping[str, Any], lm_models: Mapping[str, Any] | None = None
) -> McIclSettings:
    """`section` is the resolved config["mc_icl"] (every key present: no default is repeated
    here). With `lm_models` (config lm.models), every model must be one of those or a paper
    model; the selection and figure datasets must be among the run's."""
    for d in section["datasets"]:
        if d not in TASKS:
            raise ValueError(
                f"config mc_icl.datasets ({config_where('mc_icl.datasets')}): unknown dataset {d!r}; "
                f"known {list(TASKS)}"
            )
    if lm_models is not None:
        known = sorted(set(lm_models) | set(PAPER_MODELS))
        for m in section["models"]:
            if m not in known:
                raise ValueError(
                    f"config mc_icl.models ({config_where('mc_icl.models')}): unknown model {m!r}; known "
                    f"(config lm.models and the paper's): {known}"
                )
    sel = section["selection"]
    for key in ("models", "datasets"):
        bad = [x for x in sel[key] if x not in section[key]]
        if bad:
            raise ValueError(
                f"config mc_icl.selection.{key} ({config_where(f'mc_icl.selection.{key}')}): {bad} "
                f"not in mc_icl.{key}: {list(section[key])}"
            )
    for key in ("figure2_dataset", "figure3_dataset"):
        if section[key] not in section["datasets"]:
            raise ValueError(
                f"config mc_icl.{key} = {section[key]!r} ({config_where(f'mc_icl.{key}')}) is "
                f"not in mc_icl.datasets: {list(section['datasets'])}"
            )
    return McIclSettings(
        scale=section["scale"],
        models=tuple(section["models"]),
        datasets=tuple(section["datasets"]),
        num_demos=int(section["num_demos"]),
        num_permutations=int(section["num_permutations"]),
        num_trials=int(section["num_trials"]),
        num_eval=int(section["num_eval"]),
        selection=Selection(
            models=tuple(sel["models"]),
            datasets=tuple(sel["datasets"]),
            set_size=int(sel["set_size"]),
            z_threshold=float(sel["z_threshold"]),
        ),
        figure2_dataset=section["figure2_dataset"],
        figure3_dataset=section["figure3_dataset"],
        add_bos=bool(section["add_bos"]),
    )


def one_shot_figures(p: McIclSettings) -> dict[int, str]:
    """Appendix figures 5-12 whose dataset this configuration runs."""
    return {n: d for n, d in ONE_SHOT_FIGURES.items() if d in p.datasets}


def trial_figures(p: McIclSettings) -> dict[int, str]:
    """Appendix figures 13-20 whose dataset this configuration runs."""
    return {n: d for n, d in TRIAL_FIGURES.items() if d in p.datasets}
