"""001's Figure 8: the max random baseline's gain over the standard one against t, per BBL and
BBH task, checked against the binomial maximum computed independently (scipy) and against the
paper's prose (001, Appendix A, "Additional plots")."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binom

from evalsci.data.bigbench_meta import BBH_TASKS, BBL_TASKS
from evalsci.studies.baselines import figures


@pytest.fixture(scope="module")
def gains() -> pd.DataFrame:
    return figures.figure8_001_gains()


def _expected_max_scipy(n: int, k: int, t: int) -> float:
    """E[max of t iid Binomial(n, 1/k)] / n = sum_{c=1}^{n} P(max >= c) / n."""
    c = np.arange(1, n + 1)
    return float(np.sum(1 - binom.cdf(c - 1, n, 1 / k) ** t) / n)


def test_every_task_and_t_is_drawn(gains):
    assert len(gains) == (len(BBL_TASKS) + len(BBH_TASKS)) * len(figures.FIG8_001_TS)
    got = gains.groupby("task")[["n", "k"]].first()
    for task, (n, k) in {**BBL_TASKS, **BBH_TASKS}.items():
        assert tuple(got.loc[task]) == (n, k), task


@pytest.mark.parametrize(
    ("task", "t"),
    [
        ("code_line_description", 10),  # n = 60, k = 4 (a small task: a large gain)
        ("novel_concepts", 200),
        ("vitaminc_fact_verification", 50),  # n of over 10,000: a gain under 1 point
        ("hyperbaton", 200),  # BBH, n = 50,000
        ("geometric_shapes", 2),  # BBH, k = 10
    ],
)
def test_the_maximum_is_the_binomial_maximum(gains, task, t):
    n, k = {**BBL_TASKS, **BBH_TASKS}[task]
    row = gains[(gains["task"] == task) & (gains["t"] == t)].iloc[0]
    want = _expected_max_scipy(n, k, t)
    assert row["expected_max"] == pytest.approx(want, abs=1e-9)
    assert row["gain_points"] == pytest.approx(100 * (want - 1 / k), abs=1e-7)


def test_one_evaluation_is_the_standard_baseline_and_more_raise_it(gains):
    assert (gains.loc[gains["t"] == 1, "gain_points"].abs() < 1e-8).all()
    for _, d in gains.groupby("task"):
        assert (np.diff(d.sort_values("t")["gain_points"]) >= -1e-9).all()


def test_the_papers_prose_on_the_bbl_tasks(gains):
    """'three BIG-bench Lite datasets have a maximum random baseline that is 10 accuracy points
    above their corresponding standard random baselines. But four other datasets have an
    increase of less than 1 accuracy point': from t = 20 (the text lost its t); the four are
    the tasks of 10,000 or more examples."""
    bbl = gains[gains["suite"] == "BIG-bench Lite"]
    counts = {
        t: (int((d["gain_points"] > 10).sum()), int((d["gain_points"] < 1).sum()))
        for t, d in bbl.groupby("t")
    }
    assert counts[10] == (2, 4)
    assert counts[20] == counts[50] == (3, 4)
    small = set(bbl.loc[(bbl["t"] == 20) & (bbl["gain_points"] < 1), "task"])
    assert small == {t for t, (n, _) in BBL_TASKS.items() if n >= 10_000}


def test_the_figure_and_its_data_are_written_the_same_twice(tmp_path, gains):
    names = ("figure8_001.pdf", "figure8_001.png", "figure8_001.csv")
    runs = []
    for run in ("a", "b"):
        files = [tmp_path / run / n for n in names]
        figures.make_figure8_001(files)
        runs.append([f.read_bytes() for f in files])
    assert runs[0] == runs[1]
    assert all(len(b) > 1000 for b in runs[0][:2])
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "a" / names[2]), gains)
