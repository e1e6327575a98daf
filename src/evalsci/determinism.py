"""Pinning torch for results that do not depend on the machine's load or thread count.

`torch_pinned(threads)` runs a block with torch's deterministic algorithms on and a fixed
number of intra-op threads, and restores both afterwards. Used where a small torch
computation feeds a discrete choice (the IRT fit behind the IRT selectors, the sentence
embeddings behind every assessor): with a fixed thread count the reduction order, and so every
bit, is the same whatever `--cores` the job got. What it cannot pin is the instruction set:
another CPU's kernels (AVX-512 against AVX2) round differently; docs/reproducibility.md says
what that changes.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator


@contextlib.contextmanager
def torch_pinned(threads: int = 1) -> Iterator[None]:
    import torch

    prev_threads = torch.get_num_threads()
    prev_det = torch.are_deterministic_algorithms_enabled()
    prev_warn = torch.is_deterministic_algorithms_warn_only_enabled()
    torch.set_num_threads(int(threads))
    _deterministic(torch, True, False)
    try:
        yield
    finally:
        _deterministic(torch, prev_det, prev_warn)
        torch.set_num_threads(prev_threads)


def _deterministic(torch, mode: bool, warn_only: bool) -> None:
    """`torch.use_deterministic_algorithms`, without importing torch._inductor for it.

    The public function first imports `torch._inductor.config` (~1.8 CPU-s, once per process:
    more than the IRT fit it guards costs in some jobs) to set the flag for `torch.compile`,
    which no evalsci code uses; the eager kernels read only the flag set by
    `torch._C._set_deterministic_algorithms`. Where inductor is loaded already (or that private
    call is gone), the public function is used."""
    import sys

    setter = getattr(torch._C, "_set_deterministic_algorithms", None)
    if setter is None or "torch._inductor.config" in sys.modules:
        torch.use_deterministic_algorithms(mode, warn_only=warn_only)
    else:
        setter(mode, warn_only=warn_only)


# Environment that makes this machine's libraries use their baseline (SSE4.2-class) kernels
# instead of AVX2/AVX-512 ones: torch's ATen (ATEN_CPU_CAPABILITY), oneDNN, MKL, numpy's own
# SIMD loops and numpy/scipy's OpenBLAS. A run under it imitates another CPU on one machine
# (tests/test_reproducible.py, scripts/check_reproducible.sh). XGBoost and scikit-learn's
# compiled loops have no such switch.
OTHER_CPU_ENV = {
    "ATEN_CPU_CAPABILITY": "default",
    "ONEDNN_MAX_CPU_ISA": "SSE41",
    "MKL_ENABLE_INSTRUCTIONS": "SSE4_2",
    # numpy >= 2.4 groups its dispatch targets by x86-64 level (X86_V3 = AVX2 + FMA3).
    "NPY_DISABLE_CPU_FEATURES": "X86_V3,X86_V4,AVX512_ICL,AVX512_SPR",
    "OPENBLAS_CORETYPE": "Nehalem",
}
