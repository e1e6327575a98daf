"""Pinning torch for results that do not depend on the machine's load or thread count.

`torch_pinned(threads)` runs a block with torch's deterministic algorithms on and a fixed
number of intra-op threads, and restores both afterwards. Used where a small torch
computation feeds a discrete choice (the IRT fit behind the IRT selectors, the sentence
embeddings behind every assessor): with a fixed thread count the reduction order, and so every
bit, is the same whatever `--cores` the job got.

`apply_portable(config["portable"])` pins the instruction set: every library that picks its
kernels by CPU uses one baseline code path (PORTABLE_ENV), so the bytes are the same on any
x86-64 CPU (docs/reproducibility.md).
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


# Portable arithmetic (config `portable`, default true; docs/reproducibility.md): every library
# that picks its kernels by the CPU it runs on is pinned to one baseline (SSE4.2-class, x86-64-v2)
# code path, so a job gives the same bytes on any x86-64 CPU from Nehalem to AVX-512. Each
# variable is read when its library loads: `apply_portable` sets them in the Snakemake process
# before any job starts, and every job (a subprocess) inherits them.
PORTABLE_ENV = {
    # torch's own ATen kernels: the DEFAULT (SSE) build instead of AVX2/AVX-512
    "ATEN_CPU_CAPABILITY": "default",
    # oneDNN (torch's matmul/linear for some shapes): no AVX/AVX-512 kernels
    "ONEDNN_MAX_CPU_ISA": "SSE41",
    # MKL (torch's BLAS): conditional numerical reproducibility, on the SSE4.2 code path
    "MKL_CBWR": "COMPATIBLE",
    "MKL_ENABLE_INSTRUCTIONS": "SSE4_2",
    # numpy's own SIMD loops (exp, log, sin, ... and reductions): its X86_V2 baseline only.
    # numpy >= 2.4 groups its dispatch targets by x86-64 level (X86_V3 = AVX2 + FMA3).
    "NPY_DISABLE_CPU_FEATURES": "X86_V3,X86_V4,AVX512_ICL,AVX512_SPR",
    # numpy/scipy/scikit-learn's OpenBLAS: the Nehalem kernels whatever the CPU
    "OPENBLAS_CORETYPE": "Nehalem",
    # numba (nutpie's log density via PyTensor): LLVM code for a generic x86-64, no host
    # features, so no FMA to contract into and one vector width for PyTensor's fastmath
    # reductions; no Intel SVML (its loops dispatch on the CPU)
    "NUMBA_CPU_NAME": "generic",
    "NUMBA_DISABLE_INTEL_SVML": "1",
    # PyTensor's C backend (PyMC's prior predictive draws, nutpie's initial point) compiles with
    # -march=<this CPU> unless given one: x86-64-v2 (Nehalem), no FMA contraction; and in a
    # compile directory of its own, since modules built earlier for this CPU (PyTensor's
    # lazylinker is keyed by its version only) stop with SIGILL on an older one (seen under an
    # emulated Nehalem)
    "PYTENSOR_FLAGS": (
        "gcc__cxxflags=-march=x86-64-v2 -ffp-contract=off,"
        "compiledir_format=compiledir_evalsci-portable-x86-64-v2-%(python_version)s"
    ),
    # glibc's libm (exp, log, sin, pow... behind numpy's baseline loops, Python's math, numba)
    # picks FMA builds of its functions on CPUs with FMA and AVX2; they round otherwise in
    # the last bit for some arguments (measured: numpy exp/log/sin of 200,000 doubles differ
    # natively and on an emulated Nehalem, and agree with these off). Read at process start.
    "GLIBC_TUNABLES": "glibc.cpu.hwcaps=-AVX2,-FMA,-FMA4",
}
# Variables that hold a list: a user's own entries are kept beside the pin (separator).
_LISTS = {"PYTENSOR_FLAGS": ",", "GLIBC_TUNABLES": ":"}
# XGBoost and scikit-learn's compiled loops do not dispatch on the CPU (built for baseline
# x86-64); their results depend on the thread count, which every job fixes at its `threads:`
# (evalsci.pipeline.jobs.configure_threads). tests/test_portable_qemu.py checks the whole set by
# running the tiny configurations under emulated Nehalem and Haswell CPUs.

# Kept for the tests and scripts that ran "another CPU's kernels" on one machine: the
# portable environment is exactly that.
OTHER_CPU_ENV = PORTABLE_ENV


def apply_portable(portable: bool, environ=None) -> dict[str, str]:
    """Set (portable true) the PORTABLE_ENV variables in `environ` (default os.environ), before
    any job starts; with false, leave the environment as it is (each library then picks its
    fastest kernels for this CPU). Returns what was set. A variable already set to another
    value is overridden (the promise is the same bytes, not a user's kernel choice), except
    that a user's other PYTENSOR_FLAGS and GLIBC_TUNABLES entries are kept beside the pins."""
    import os

    environ = os.environ if environ is None else environ
    if not portable:
        return {}
    env = dict(PORTABLE_ENV)
    for var, sep in _LISTS.items():
        # the entries the pin sets (gcc__cxxflags=..., glibc.cpu.hwcaps=...) replace the user's
        keys = tuple(e.split("=", 1)[0] + "=" for e in env[var].split(sep))
        own = [e for e in environ.get(var, "").split(sep) if e.strip() and not e.startswith(keys)]
        env[var] = sep.join([*own, env[var]])
    environ.update(env)
    return env


def block_bitsandbytes() -> None:
    """For a job that never quantises (the sentence embeddings): `import bitsandbytes` fails in
    this process as if it were not installed, so transformers and peft, which look for it when
    they load, take it as "no 4-bit support". bitsandbytes' CPU library executes AVX
    instructions as it loads: on a CPU without AVX (Nehalem; tests/test_portable_qemu.py) the
    import alone stops the process with SIGILL. Call before sentence-transformers is imported;
    a bitsandbytes already loaded is left alone."""
    import sys

    if "bitsandbytes" not in sys.modules:
        # None in sys.modules: `import` raises ImportError, importlib.util.find_spec gives None
        sys.modules["bitsandbytes"] = None
