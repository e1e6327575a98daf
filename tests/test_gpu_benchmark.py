"""benchmarks/gpu.py --device cpu --tiny: the GPU benchmark's code path on tiny models, so the
script that waits for a GPU cannot rot (issue 15)."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("peft")

REPO = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.lm


def test_gpu_benchmark_tiny_on_cpu(tmp_path, mirror):
    out = tmp_path / "gpu.json"
    env = {
        **os.environ,
        "EVALSCI_MIRROR": str(mirror),
        "OMP_NUM_THREADS": "1",
        "PYTHONPATH": str(REPO / "src"),
    }
    proc = subprocess.run(
        [
            sys.executable,
            str(REPO / "benchmarks" / "gpu.py"),
            "--device",
            "cpu",
            "--tiny",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert proc.stdout.strip().splitlines()[-1].startswith("speedup: ")
    res = json.loads(out.read_text())

    # (a) bf16 on the device against CPU float32, on two real BIG-bench tasks
    bf16 = res["a_agreement"]["bf16"]
    assert set(bf16["vs_cpu_float32"]) == {"emoji_movie", "code_line_description"}
    for task in bf16["vs_cpu_float32"].values():
        assert task["examples"] == 3
        assert 0 < task["max_abs_diff"] < 0.5  # bf16 is not float32, but close
    for task in bf16["cached_vs_fresh"].values():
        assert task["max_abs_diff"] < 0.1

    # (b) float32 on CPU: the engine equals the naive loop and runs fewer tokens
    b = res["b_mistral_shaped"]
    assert b["max_abs_diff"] < 1e-4 and b["identical_predictions"] == 1.0
    assert b["naive"]["model_tokens"] == b["candidate_tokens"]
    assert b["engine"]["model_tokens"] < b["naive"]["model_tokens"] / 3
    assert b["naive"]["achieved_tflops"] > 0

    # (c) one LoRA epoch: 4 sequences in batches of 2
    c = res["c_qlora_epoch"]
    assert c["steps"] == 2 and c["seconds_per_step"] > 0 and math.isfinite(c["train_loss"])
    assert c["trainable_parameters"] > 0 and c["four_bit"] is False
