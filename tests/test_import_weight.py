"""Every workflow job is a fresh Python process, so what a module imports at load time is paid
by every job that imports it (89 jobs in the default DAG). These modules keep their heavy
dependencies (scipy.stats ~0.5 s, matplotlib ~0.5 s, torch ~1.5 s) inside the functions that
use them; this test fails if one of them comes back to module level."""

import json
import subprocess
import sys

import pytest

HEAVY = ("scipy.stats", "scipy.special", "matplotlib.pyplot", "torch")

CASES = {
    # every baselines, assessors and audit job that reads or writes max random requests
    "evalsci.maxrandom": HEAVY,
    "evalsci.maxrandom.requests": HEAVY,
    # the tapt fits and tables import steps; only the figure steps need matplotlib
    "evalsci.studies.tapt.steps": ("scipy.stats", "matplotlib.pyplot", "torch"),
    "evalsci.audit.steps": ("scipy.stats", "matplotlib.pyplot", "torch"),
    "evalsci.studies.baselines.steps": ("scipy.stats", "matplotlib.pyplot", "torch"),
}


@pytest.mark.parametrize("module", sorted(CASES))
def test_module_does_not_import_heavy_dependencies(module):
    code = (
        f"import sys, json; import {module}; "
        f"print(json.dumps([m for m in {list(CASES[module])!r} if m in sys.modules]))"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []
