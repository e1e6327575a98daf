"""evalsci.lm.placement: one resolution of config `lm` (device, cpu_dtype, batch budgets)
for every study's inference (baselines and mc_icl shards) and training (tapt)."""

from __future__ import annotations

from evalsci.lm.placement import placement

LM = {
    "device": "cpu",
    "cpu_dtype": "bfloat16",
    "batch": {"cpu": {"token_budget": 512}, "cuda": {"token_budget": 8192}},
}


def test_cpu_takes_config_cpu_dtype_and_the_cpu_batch_budgets():
    p = placement(LM, {"checkpoint": "x"})
    assert (p.device, p.kind, p.dtype, p.batch) == ("cpu", "cpu", "bfloat16", {"token_budget": 512})


def test_a_models_own_dtype_wins_and_a_name_spec_has_none():
    assert placement(LM, {"checkpoint": "x", "dtype": "float32"}).dtype == "float32"
    assert placement(LM, "some/name").dtype == "bfloat16"


def test_cuda_leaves_dtype_to_the_loader_and_takes_the_cuda_budgets():
    p = placement(LM, {"checkpoint": "x"}, device="cuda:1")
    assert (p.device, p.kind, p.dtype, p.batch) == ("cuda:1", "cuda", None, {"token_budget": 8192})


def test_defaults_float32_and_no_budgets():
    p = placement({}, None, device="cpu")
    assert (p.dtype, p.batch) == ("float32", {})
