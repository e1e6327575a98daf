"""The requests/baselines files every study exchanges with the `maxrandom` rule."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from evalsci.maxrandom import (
    max_cdf,
    max_pmf,
    max_random_auc,
    max_random_baseline,
    max_random_tail,
    standard_tail,
)
from evalsci.maxrandom.auc import max_random_auc_tail
from evalsci.maxrandom.requests import (
    answer_file,
    answer_requests,
    read_baselines,
    read_distributions,
    read_requests,
    write_requests,
)


def _requests() -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"key": "bin", "n": 100, "p": 0.5, "t": 10, "correct": 62, "distribution": True},
            {"key": "bin_t1e12", "n": 100, "p": 0.5, "t": 10**12},
            {"key": "bin_again", "n": 100, "p": 0.5, "t": 200, "correct": 70},  # same distribution
            {
                "key": "labels",
                "n": 100,
                "labels": json.dumps({"2": 50, "5": 50}),
                "t": 10,
                "correct": 45,
            },
            {
                "key": "auc",
                "metric": "auc",
                "n_pos": 12,
                "n_neg": 9,
                "t": 7,
                "correct": 80,
                "distribution": True,
            },
        ]
    )


def test_roundtrip_and_answers(tmp_path):
    req_path = tmp_path / "requests.csv"
    norm = write_requests(_requests(), req_path)
    assert list(norm.columns)[:3] == ["key", "metric", "n"]
    back = read_requests(req_path)
    assert back["t"].tolist() == [10, 10**12, 200, 10, 7]
    assert back.loc[4, "n"] == 21  # auc: n = n_pos + n_neg
    b_path, d_path = tmp_path / "baselines.csv", tmp_path / "distributions.csv"
    answer_file(req_path, b_path, d_path, progress=False)
    base = read_baselines(b_path)
    assert base.index.tolist() == ["bin", "bin_t1e12", "bin_again", "labels", "auc"]
    r = base.loc["bin"]
    assert r["standard"] == 0.5
    assert r["expected_max"] == max_random_baseline(100, 0.5, 10)
    assert r["tail_standard"] == pytest.approx(standard_tail(62, 100, 0.5), rel=1e-15)
    assert r["tail_max"] == pytest.approx(max_random_tail(62, 100, 0.5, 10), rel=1e-15)
    assert base.loc["bin_t1e12", "expected_max"] == max_random_baseline(100, 0.5, 1e12)
    assert np.isnan(base.loc["bin_t1e12", "tail_max"])
    assert base.loc["bin_again", "tail_max"] == pytest.approx(
        max_random_tail(70, 100, 0.5, 200), rel=1e-15
    )
    lab = {2: 50, 5: 50}
    assert base.loc["labels", "standard"] == pytest.approx(0.35, rel=1e-15)
    assert base.loc["labels", "expected_max"] == pytest.approx(
        max_random_baseline(100, lab, 10), rel=1e-15
    )
    assert base.loc["labels", "tail_max"] == pytest.approx(
        max_random_tail(45, 100, lab, 10), rel=1e-15
    )
    assert base.loc["auc", "expected_max"] == pytest.approx(max_random_auc(12, 9, 7), rel=1e-15)
    assert base.loc["auc", "tail_max"] == pytest.approx(
        max_random_auc_tail(80, 12, 9, 7), rel=1e-15
    )
    d = read_distributions(d_path)
    assert sorted(d["key"].unique()) == ["auc", "bin"]
    db = d[d.key == "bin"]
    np.testing.assert_array_equal(db["k"], np.arange(101))
    np.testing.assert_allclose(db["accuracy"], np.arange(101) / 100)
    np.testing.assert_allclose(db["pmf"], max_pmf(100, 0.5, 10), rtol=1e-15)
    np.testing.assert_allclose(db["cdf"], max_cdf(100, 0.5, 10), rtol=1e-15)
    da = d[d.key == "auc"]
    assert len(da) == 12 * 9 + 1 and da["pmf"].sum() == pytest.approx(1, abs=1e-12)


def test_distributions_header_only_when_none_requested(tmp_path):
    req = tmp_path / "requests.csv"
    write_requests(pd.DataFrame([{"key": "a", "n": 10, "p": 0.5, "t": 3}]), req)
    answer_file(req, tmp_path / "b.csv", tmp_path / "d.csv", progress=False)
    assert (tmp_path / "d.csv").read_text().strip() == "key,k,accuracy,pmf,cdf"


@pytest.mark.parametrize(
    "row,match",
    [
        (
            {"key": "a", "n": 0, "p": 0.5, "t": 3},
            r"row 1 \(key 'a'\): column 'n' must be an integer >= 1",
        ),
        ({"key": "a", "n": 10, "p": 1.5, "t": 3}, r"column 'p' must be in \(0, 1\], got 1.5"),
        ({"key": "a", "n": 10, "t": 3}, r"exactly one of columns 'p' and 'labels'"),
        ({"key": "a", "n": 10, "p": 0.5, "labels": '{"2": 10}', "t": 3}, "exactly one"),
        ({"key": "a", "n": 10, "labels": '{"2": 9}', "t": 3}, r"column 'labels': .*sum to 9"),
        ({"key": "a", "n": 10, "labels": "[2, 3]", "t": 3}, r"column 'labels' must be a JSON"),
        ({"key": "a", "n": 10, "p": 0.5, "t": 0}, r"column 't' must be an integer >= 1, got 0"),
        ({"key": "a", "n": 10, "p": 0.5, "t": 3, "correct": 2.5}, r"column 'correct'"),
        ({"key": "a", "n": 10, "p": 0.5, "t": 3, "correct": 11}, r"count in \[0, 10\]"),
        ({"key": "a", "n": 10, "p": 0.5, "t": 3, "metric": "f1"}, r"column 'metric'"),
        ({"key": "a", "metric": "auc", "n_pos": 3, "t": 3}, r"column 'n_neg'"),
        (
            {"key": "a", "metric": "auc", "n_pos": 3, "n_neg": 2, "p": 0.5, "t": 3},
            r"column 'p' must be empty for metric auc",
        ),
        ({"key": "a", "n": 10, "p": 0.5, "t": 3, "distribution": "maybe"}, r"'distribution'"),
        ({"key": "", "n": 10, "p": 0.5, "t": 3}, r"row 1: column 'key' is empty"),
        (
            {
                "key": "a",
                "metric": "auc",
                "n_pos": 2000,
                "n_neg": 2000,
                "t": 3,
                "distribution": True,
            },
            r"column 'distribution': 4000001 rows",
        ),
    ],
)
def test_bad_requests_name_row_and_column(tmp_path, row, match):
    with pytest.raises(ValueError, match=match):
        write_requests(pd.DataFrame([row]), tmp_path / "requests.csv")
    assert not (tmp_path / "requests.csv").exists()


def test_duplicate_key_and_unknown_column(tmp_path):
    rows = [{"key": "a", "n": 10, "p": 0.5, "t": 3}, {"key": "a", "n": 10, "p": 0.5, "t": 4}]
    with pytest.raises(ValueError, match=r"row 2 \(key 'a'\): column 'key' is not unique"):
        write_requests(pd.DataFrame(rows), tmp_path / "r.csv")
    with pytest.raises(ValueError, match=r"unknown column\(s\) \['acc'\]"):
        write_requests(
            pd.DataFrame([{"key": "a", "n": 10, "p": 0.5, "t": 3, "acc": 1}]), tmp_path / "r.csv"
        )


def test_read_baselines_checks_columns(tmp_path):
    path = tmp_path / "baselines.csv"
    path.write_text("key,n,p\na,10,0.5\n")
    with pytest.raises(ValueError, match=r"baselines.csv: missing column\(s\)"):
        read_baselines(path)


def test_grouped_answers_match_row_by_row():
    """Rows sharing a distribution are answered together; each equals the direct call."""
    rng = np.random.default_rng(5)
    rows = [
        {"key": f"r{i}", "n": int(n), "p": 0.25, "t": int(t), "correct": int(c)}
        for i, (n, t, c) in enumerate(
            zip(
                rng.choice([40, 80], 30),
                rng.integers(1, 300, 30),
                rng.integers(5, 35, 30),
                strict=True,
            )
        )
    ]
    from evalsci.maxrandom.requests import validate_requests

    base, _ = answer_requests(validate_requests(pd.DataFrame(rows)), progress=False)
    for r, b in zip(rows, base.itertuples(), strict=True):
        assert b.expected_max == max_random_baseline(r["n"], 0.25, r["t"])
        assert b.tail_max == pytest.approx(
            max_random_tail(r["correct"], r["n"], 0.25, r["t"]), rel=1e-14
        )
