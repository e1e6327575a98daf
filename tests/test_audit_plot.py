"""`evalsci audit --plot` at any size: panels for a few tasks, a paged compact overview past
them (timings in docs/benchmarks/audit_plot.md, `benchmarks/audit_plot.py`)."""

from __future__ import annotations

import re

import numpy as np
import pytest
import scipy.stats

from evalsci.audit import plot
from evalsci.cli import main
from evalsci.maxrandom import max_pmf


def _csv(path, tasks: int, models: int = 3):
    rng = np.random.default_rng(0)
    lines = ["model,task,n,correct,choices"]
    for i in range(tasks):
        n, k = int(rng.choice([20, 100, 400])), int(rng.choice([2, 4, 10]))
        for m in range(models):
            lines.append(f"model-{m},task_{i:03d}_{'long_name_' * (i % 4)},{n},{n // k + m},{k}")
    path.write_text("\n".join(lines) + "\n")
    return path


def test_quantiles_of_one_guesser_are_the_binomial_ones():
    n, k = 50, 4
    lo, hi = plot._quantiles(max_pmf(n, {k: n}, 1), n, 0.005, 0.995)
    b = scipy.stats.binom(n, 1 / k)
    assert (lo, hi) == (b.ppf(0.005) / n, b.ppf(0.995) / n)


def test_many_tasks_give_a_paged_overview(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(plot, "PER_PAGE", 30)
    f = _csv(tmp_path / "s.csv", 70)
    out = tmp_path / "fig" / "p.png"
    assert main(["audit", str(f), "--plot", str(out), "--format", "csv"]) == 0, (
        capsys.readouterr().err
    )
    pngs = sorted(p.name for p in out.parent.glob("*.png"))
    assert pngs == ["p.png", "p_p2.png", "p_p3.png"]  # 30 + 30 + 10 tasks
    pdf = out.with_suffix(".pdf").read_bytes()
    assert len(re.findall(rb"/Type\s*/Page\b", pdf)) == 3
    # same input, same bytes
    first = {p.name: p.read_bytes() for p in out.parent.iterdir()}
    assert main(["audit", str(f), "--plot", str(out), "--format", "csv"]) == 0
    assert {p.name: p.read_bytes() for p in out.parent.iterdir()} == first


@pytest.mark.parametrize("tasks", [1, plot.PANELS])
def test_a_few_tasks_keep_the_panels(tmp_path, capsys, tasks):
    f = _csv(tmp_path / "s.csv", tasks)
    out = tmp_path / "p.png"
    assert main(["audit", str(f), "--plot", str(out), "--format", "csv"]) == 0
    assert sorted(p.name for p in tmp_path.glob("p*")) == ["p.pdf", "p.png"]
