"""The experiment grid of the paper and its exact n and t rules (Appendix B).

A *cell* is one experiment: (model, task, shots), 200 prompts each, keyed in the authors'
files as ``<Model>_<task>_<K>-shot``.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from evalsci.data.bigbench_meta import BBL_TASKS, SUBSAMPLE, task_size

# Models in the authors' file names. Base models first, then their instruction-tuned
# counterparts (paper: L, O, F / A, O, F).
BASE_MODELS = ("Llama-2-7b", "OLMo-7B", "falcon-7b")
INSTRUCT_MODELS = ("Alpaca-7b", "OLMo-7B-Instruct", "falcon-7b-instruct")
MODELS = BASE_MODELS + INSTRUCT_MODELS
INSTRUCT_OF = dict(zip(BASE_MODELS, INSTRUCT_MODELS, strict=True))
SHOTS = (1, 2, 4)
TASKS = tuple(BBL_TASKS)
PROMPTS = 200  # prompts evaluated per cell ("We evaluate 200 different prompts")

# Table 1 column letters (paper: "L: Llama-2-7b, O: OLMo-7B, F: Falcon-7B, A: Alpaca-7b").
LETTER = {
    "Llama-2-7b": "L",
    "OLMo-7B": "O",
    "falcon-7b": "F",
    "Alpaca-7b": "A",
    "OLMo-7B-Instruct": "O",
    "falcon-7b-instruct": "F",
}
# Held-out CSVs name models as "<family>, <type>"; Alpaca appears there as Llama-2-7b
# instruction-tuned, the paper's Table 3 prints it as Alpaca-7b.
HELDOUT_MODEL = {
    "Llama-2-7b": "Llama-2-7b, Base model",
    "OLMo-7B": "OLMo-7B, Base model",
    "falcon-7b": "Falcon-7b, Base model",
    "Alpaca-7b": "Llama-2-7b, Instruction-tuned",
    "OLMo-7B-Instruct": "OLMo-7B, Instruction-tuned",
    "falcon-7b-instruct": "Falcon-7b, Instruction-tuned",
}
PAPER_MODEL = {
    "Llama-2-7b": "Llama-2-7b, Base model",
    "OLMo-7B": "OLMo-7B, Base model",
    "falcon-7b": "Falcon-7b, Base model",
    "Alpaca-7b": "Alpaca-7b, Instruction-tuned",
    "OLMo-7B-Instruct": "OLMo-7B, Instruction-tuned",
    "falcon-7b-instruct": "Falcon-7b, Instruction-tuned",
}

_KEY = re.compile(r"^(?P<rest>.+)_(?P<shots>\d+)-shot$")


class Cell(NamedTuple):
    model: str
    task: str
    shots: int

    @property
    def key(self) -> str:
        return f"{self.model}_{self.task}_{self.shots}-shot"


def parse_key(key: str) -> Cell:
    """``"OLMo-7B_emoji_movie_4-shot"`` -> Cell("OLMo-7B", "emoji_movie", 4). Any model name
    is accepted (a recompute may use other models); the task must be a BIG-bench Lite one."""
    m = _KEY.match(key)
    if m is not None:
        for task in sorted(BBL_TASKS, key=len, reverse=True):
            model = m["rest"].removesuffix(f"_{task}")
            if model != m["rest"] and model:
                return Cell(model, task, int(m["shots"]))
    raise ValueError(f"not a <Model>_<task>_<K>-shot key of a BIG-bench Lite task: {key!r}")


def all_cells(models=MODELS, tasks=TASKS, shots=SHOTS) -> list[Cell]:
    return [Cell(m, t, k) for m in models for t in tasks for k in shots]


def display_size(task: str) -> int:
    """n printed in Table 1 and used for the curves of Figures 3, 4, 9-11: min(200, N)."""
    return min(SUBSAMPLE, task_size(task))


def eval_size(task: str, shots: int) -> int:
    """Exact evaluated n of a setting (Appendix B).

    Tasks larger than 200 are subsampled to a fixed 200 and demonstrations come from the
    rest; in smaller tasks demonstrations come out of the examples, so n = N - shots.
    """
    n = display_size(task)
    return n - shots if n < SUBSAMPLE else n


def num_prompts(task: str, shots: int, prompts: int = PROMPTS) -> int:
    """Exact t of a setting: for tasks under 200 examples only t = N distinct 1-shot
    prompts exist, so the baseline uses t = N there (Appendix B, footnote 6). `prompts`:
    the prompts evaluated (200 in the paper; fewer in a small recompute)."""
    n = display_size(task)
    return min(n, prompts) if (n < SUBSAMPLE and shots == 1) else prompts


def configured_cells(cfg: dict, recompute: bool = False) -> list[Cell]:
    """The experiments analysed: `cells`, or with a recompute the grid our inference runs
    (config `baselines.recompute`, when present)."""
    c = cfg.get("cells", {})
    if recompute and isinstance(cfg.get("recompute"), dict):
        c = cfg["recompute"]
    kw = {k: c[k] for k in ("models", "tasks", "shots") if k in c}
    return all_cells(**kw)
