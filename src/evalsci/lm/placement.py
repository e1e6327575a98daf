"""Where and in what precision an inference or training job runs: one resolution of config
`lm` (device, cpu_dtype, batch budgets per device) for every study.

`placement(lm, spec)` turns `lm.device: auto` into the device this machine has, and picks
the compute dtype: the model's own `dtype` when its spec sets one, else `lm.cpu_dtype`
on CPU (float32 by default: the same numbers on every CPU), else None on CUDA (the loader
then uses bf16 compute with NF4 weights, paper 000 Appendix B).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Placement:
    device: str  # what torch is given: "cpu", "cuda", "cuda:1", ...
    kind: str  # "cpu" or "cuda": the key of the per-device settings in config lm.batch
    dtype: str | None  # compute dtype to load with; None = the loader's CUDA default
    batch: dict = field(default_factory=dict)  # config lm.batch.<kind>: the Scorer budgets


def placement(
    lm: Mapping[str, Any] | None, spec: Mapping[str, Any] | str | None = None, device=None
) -> Placement:
    """The device, dtype and batch budgets of a job from config `lm` and a model spec.

    `device` overrides `lm.device` (a study with its own device key passes it); "auto" or
    None means CUDA when torch sees one, else CPU."""
    lm = lm or {}
    device = device or lm.get("device", "auto")
    if device == "auto":
        from evalsci.lm.load import default_device

        device = default_device()
    device = str(device)
    kind = "cuda" if device.startswith("cuda") else "cpu"
    own = spec.get("dtype") if isinstance(spec, Mapping) else None
    dtype = own or (lm.get("cpu_dtype", "float32") if kind == "cpu" else None)
    batch = dict((lm.get("batch") or {}).get(kind) or {})
    return Placement(device=device, kind=kind, dtype=dtype, batch=batch)
