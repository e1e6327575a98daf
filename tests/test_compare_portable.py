"""`evalsci compare`'s sampler (evalsci.stats.nuts on evalsci.compare.model, and on
evalsci.compare.grid: the tapt study's backend "evalsci") gives the same
draws, bit for bit, natively and on emulated Nehalem (SSE4.2) and Haswell (AVX2 + FMA) CPUs
under the portable pins (docs/reproducibility.md; qemu-user through tests/emulated_cpu.py).

The probe fits a 12-task data set whose tasks are sampled in both coordinates (centred and
non-centred), 2 chains x 10 draws after 30 warm-up (every adaptation stage runs: Stan's
15 / 75 / 10% split of a short warm-up), and prints
the sha256 of the draws' bytes and of the CLI's CSV written from them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from evalsci.pipeline.determinism import apply_portable  # noqa: E402

from emulated_cpu import CPUS, emulated_python, qemu_path  # noqa: E402

pytestmark = [pytest.mark.qemu, pytest.mark.slow]

SRC = Path(__file__).resolve().parents[1] / "src"
PROBE = """
import hashlib, numpy as np
from evalsci.compare.model import Cells, Density, parametrise
from evalsci.compare.fit import FitSettings, sample_cells
rng = np.random.Generator(np.random.PCG64(7))
J = 12
n = np.array([20, 40, 80, 150, 300, 600, 1000, 1500, 2000, 50, 25, 700])
base = rng.normal(0.3, 1.0, J)
p_a = 1 / (1 + np.exp(-(base - 0.2)))
p_b = 1 / (1 + np.exp(-(base + 0.2 + rng.normal(0, 0.3, J))))
cells = Cells(tuple(f"t{j}" for j in range(J)), n, rng.binomial(n, p_a), n, rng.binomial(n, p_b))
cm, cc = parametrise(cells)
assert cm.any() and (~cc).any(), (cm, cc)
fit = sample_cells(cells, FitSettings(chains=2, draws=10, tune=30))
h = hashlib.sha256()
for k in sorted(fit.post):
    h.update(np.ascontiguousarray(fit.post[k]).tobytes())
print(h.hexdigest(), fit.leapfrog_steps)
# the tapt study's model through the same function (backend evalsci): 2 LM types, subsamples
from evalsci.compare.grid import Grid
n = rng.integers(30, 200, (2, 6, 3, 2))
y = rng.binomial(n, 1 / (1 + np.exp(-rng.normal(0.5, 0.8, (1, 6, 1, 1)))))
grid = Grid(tuple("abcdef"), ("bert", "gpt2"), ("0", "1", "2"), y, n)
fit = sample_cells(grid, FitSettings(chains=2, draws=5, tune=30))
h = hashlib.sha256()
for k in sorted(fit.post):
    h.update(np.ascontiguousarray(fit.post[k]).tobytes())
print(h.hexdigest(), fit.leapfrog_steps)
"""


@pytest.fixture(scope="module")
def native():
    if qemu_path() is None:
        reason = "qemu-x86_64 not installed (Debian package qemu-user): no emulated CPU"
        if os.environ.get("EVALSCI_REQUIRE_QEMU") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    return _run(sys.executable)


def _run(python) -> str:
    env = dict(os.environ)
    apply_portable(True, env)
    env["PYTHONPATH"] = str(SRC)
    proc = subprocess.run(
        [str(python), "-c", PROBE], capture_output=True, text=True, env=env, timeout=1800
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.strip()


@pytest.mark.parametrize("cpu", CPUS)
def test_compare_draws_are_byte_identical_on_emulated_cpus(cpu, native, tmp_path):
    emulated = _run(emulated_python(tmp_path / "venv", cpu))
    assert emulated == native, f"draws differ on an emulated {cpu}: {emulated} vs {native}"
