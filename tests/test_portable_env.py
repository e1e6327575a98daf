"""Config `portable` (default true): the kernel pins reach every job, set before any library
loads (evalsci.pipeline.determinism.apply_portable). tests/test_portable_qemu.py checks their effect."""

from __future__ import annotations

import os
import subprocess
import sys

import yaml

from evalsci.pipeline.determinism import PORTABLE_ENV, apply_portable

from conftest import REPO


def test_portable_is_on_by_default_in_config_and_schema():  # config.yaml shows the switch
    schema = yaml.safe_load((REPO / "workflow/schemas/config.schema.yaml").read_text())
    assert schema["properties"]["portable"]["default"] is True
    assert yaml.safe_load((REPO / "config.yaml").read_text())["portable"] is True


def test_apply_portable_sets_every_pin_and_keeps_other_pytensor_flags():
    env = {
        "ATEN_CPU_CAPABILITY": "avx512",
        "PYTENSOR_FLAGS": "compiledir=/c,gcc__cxxflags=-O3",
        "GLIBC_TUNABLES": "glibc.malloc.arena_max=2:glibc.cpu.hwcaps=-AVX",
    }
    apply_portable(True, env)
    assert env["ATEN_CPU_CAPABILITY"] == "default"
    assert env["PYTENSOR_FLAGS"] == "compiledir=/c," + PORTABLE_ENV["PYTENSOR_FLAGS"]
    assert env["GLIBC_TUNABLES"] == "glibc.malloc.arena_max=2:" + PORTABLE_ENV["GLIBC_TUNABLES"]
    lists = ("PYTENSOR_FLAGS", "GLIBC_TUNABLES")
    assert all(env[k] == v for k, v in PORTABLE_ENV.items() if k not in lists)
    untouched = {"ATEN_CPU_CAPABILITY": "avx2"}
    assert apply_portable(False, untouched) == {} and untouched == {"ATEN_CPU_CAPABILITY": "avx2"}


def test_libraries_started_under_the_pins_use_their_baseline_kernels():
    """What a job inherits: torch reports DEFAULT, numpy's exp runs its X86_V2 baseline loop
    (on any CPU: numpy names the loop it dispatched to)."""
    code = (
        "import numpy, torch\n"
        "i = numpy.lib.introspect.opt_func_info(func_name='exp', signature='float64')\n"
        "print(torch.backends.cpu.get_cpu_capability(), i['exp']['dd']['current'])\n"
    )
    env = {}
    apply_portable(True, env)
    out = subprocess.run(
        [sys.executable, "-c", code], env={**os.environ, **env}, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["DEFAULT", "baseline(X86_V2)"]


def test_tapt_fits_use_a_pinned_sampler_under_portable_arithmetic():
    """backend auto: PyMC's NUTS (PyTensor C code + numpy, both pinned) when portable, nutpie
    (Rust, SIMD picked by CPU at run time) when not; a CPU-dispatching backend named together
    with portable: true, or a nutpie-only option given to PyMC, is an error naming the keys."""
    import pytest

    from evalsci.settings import resolve
    from evalsci.studies.tapt.settings import BackendConfigError, resolve_backend

    cfg = resolve(yaml.safe_load((REPO / "config.yaml").read_text()))["tapt"]["bayes"]
    assert cfg["backend"] == "auto"
    assert resolve_backend(cfg, portable=True) == "pymc"
    assert resolve_backend(cfg, portable=False) == "nutpie"
    assert resolve_backend({**cfg, "backend": "nutpie"}, portable=False) == "nutpie"
    assert resolve_backend({**cfg, "backend": "pymc"}, portable=False) == "pymc"
    # evalsci.stats.nuts on evalsci.compare.grid: numpy only (tests/test_compare_portable.py)
    assert resolve_backend({**cfg, "backend": "evalsci"}, portable=True) == "evalsci"
    for backend in ("nutpie", "numpyro", "blackjax"):
        with pytest.raises(BackendConfigError, match=r"tapt\.bayes\.backend.*portable: false"):
            resolve_backend({**cfg, "backend": backend}, portable=True)
    with pytest.raises(BackendConfigError, match=r"tapt\.bayes\.low_rank.*fits use pymc"):
        resolve_backend({**cfg, "low_rank": True}, portable=True)
    with pytest.raises(BackendConfigError, match=r"variance_mass_matrix"):
        resolve_backend({**cfg, "backend": "pymc", "variance_mass_matrix": ["boost"]}, False)


def test_a_cpu_dependent_sampler_with_portable_stops_the_workflow_before_any_job(tmp_path):
    from conftest import snakemake

    cfg = tmp_path / "nutpie.yaml"
    cfg.write_text("tapt:\n  bayes:\n    backend: nutpie\n")
    proc = snakemake(
        tmp_path / "wd", "-n", "tapt_beta_posteriors", "--configfile", str(cfg), check=False
    )
    assert proc.returncode != 0
    assert f"tapt.bayes.backend (set in {cfg}, line 3): 'nutpie'" in proc.stderr + proc.stdout
    # the same with portable arithmetic off is a valid (dry) run
    ok = snakemake(
        tmp_path / "wd",
        "-n",
        "tapt_beta_posteriors",
        "--configfile",
        str(cfg),
        "--config",
        "portable=false",
        check=False,
    )
    assert ok.returncode == 0, ok.stderr[-3000:]
