"""Run the workflow's jobs on an emulated CPU (Debian's qemu-user), to test portable arithmetic.

`qemu-x86_64 -cpu Nehalem python ...` runs this machine's Python under another CPU's CPUID:
torch, oneDNN, MKL, OpenBLAS, numpy, numba and glibc then pick the kernels they would pick on
that CPU (an SSE4.2-only Nehalem, an AVX2 Haswell). Snakemake runs every script job as
`{sys.executable} script.py`, so `emulated_python(root, cpu)` builds a small virtual
environment at `root` whose `bin/python` is a wrapper: `python -m snakemake ...` runs natively
(scheduling only; about 8x faster than emulated), and every other call, every job, runs under
qemu. The environment shares the real one's packages (lib/ is a link) and keeps the wrapper's
path as sys.executable, so jobs started by jobs are emulated too.

    python tests/emulated_cpu.py ROOT CPU     (prints ROOT/bin/python; used by
                                               scripts/check_reproducible.sh --qemu CPU)

Used by tests/test_portable_qemu.py (marker `qemu`) and scripts/check_reproducible.sh. It
lives beside the tests, not in the package: nothing the workflow or `evalsci` runs needs it.
Standard library only, so the shell script can run it as a file.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

QEMU = "qemu-x86_64"
# The CPUs the tests emulate: SSE4.2 (numpy's x86-64-v2 baseline; no AVX) and AVX2 + FMA.
CPUS = ("Nehalem", "Haswell")


def qemu_path() -> str | None:
    """qemu-x86_64 on PATH (Debian package qemu-user), or None."""
    return shutil.which(QEMU)


def emulated_python(
    root: str | os.PathLike, cpu: str, venv: str | os.PathLike | None = None
) -> Path:
    """Build (or reuse) at `root` a virtual environment whose python runs jobs under
    `qemu-x86_64 -cpu <cpu>`; returns its bin/python. `venv` is the environment to share
    (default: the running one, sys.prefix)."""
    qemu = qemu_path()
    if qemu is None:
        raise FileNotFoundError(
            f"{QEMU} not found: install Debian's qemu-user (apt-get install qemu-user)"
        )
    venv = Path(venv or sys.prefix).resolve()
    cfg = venv / "pyvenv.cfg"
    if not cfg.is_file():
        raise FileNotFoundError(f"{venv} is not a virtual environment (no pyvenv.cfg)")
    real = (venv / "bin" / "python").resolve()  # the base interpreter the venv links to
    root = Path(root)
    (root / "bin").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(cfg, root / "pyvenv.cfg")
    lib = root / "lib"
    if not lib.is_symlink():
        lib.symlink_to(venv / "lib", target_is_directory=True)
    py = root / "bin" / "python"
    # argv[0] is the wrapper's path (exec -a natively, qemu -0 emulated): Python then finds
    # root/pyvenv.cfg, the shared site-packages through root/lib, and reports the wrapper as
    # sys.executable, which Snakemake uses to start each script job.
    py.write_text(
        "#!/bin/bash\n"
        f"# tests/emulated_cpu.py: jobs on an emulated {cpu} CPU; snakemake itself natively\n"
        'if [[ "$1" == -m && "$2" == snakemake ]]; then\n'
        f'  exec -a "$0" {real} "$@"\n'
        "fi\n"
        # qemu's warnings about CPUID bits TCG cannot emulate (pcid, x2apic...) go nowhere
        f'exec {qemu} -cpu {cpu} -0 "$0" {real} "$@" 2> >(grep -v "^qemu-x86_64: warning: TCG" >&2)\n'
    )
    py.chmod(0o755)
    return py


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python tests/emulated_cpu.py ROOT CPU")
    print(emulated_python(sys.argv[1], sys.argv[2]))
