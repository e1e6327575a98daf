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
    torch.use_deterministic_algorithms(True)
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(prev_det, warn_only=prev_warn)
        torch.set_num_threads(prev_threads)
