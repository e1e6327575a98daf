"""The `maxrandom` rule, run through Snakemake on small requests.csv files in a tmp workdir.

One Snakemake run (--keep-going) builds a good study `x` and a bad study `bad` at once, to
keep the test time down (each Snakemake start costs several seconds)."""

from __future__ import annotations

import pandas as pd
import pytest

from evalsci.maxrandom import max_random_auc, max_random_baseline, max_random_tail

from conftest import snakemake

pytestmark = pytest.mark.workflow

HEADER = "key,metric,n,p,labels,n_pos,n_neg,t,correct,distribution\n"


def test_rule_answers_requests_and_rejects_bad_ones(tmp_path):
    good = tmp_path / "results/x/maxrandom"
    bad = tmp_path / "results/bad/maxrandom"
    good.mkdir(parents=True)
    bad.mkdir(parents=True)
    (good / "requests.csv").write_text(
        HEADER
        + "a,accuracy,100,0.5,,,,10,62,true\n"
        + 'b,accuracy,100,,"{""2"": 50, ""5"": 50}",,,1000000000000,,false\n'
        + "c,auc,,,,20,30,5,400,false\n"
    )
    (bad / "requests.csv").write_text(
        HEADER + "a,accuracy,100,0.5,,,,10,62,true\n" + "b,accuracy,100,1.7,,,,10,,false\n"
    )
    proc = snakemake(
        tmp_path,
        "results/x/maxrandom/baselines.csv",
        "results/bad/maxrandom/baselines.csv",
        "--keep-going",
        check=False,
    )
    assert proc.returncode != 0  # the bad study fails ...

    # ... the good one is answered, equal to the library's values
    base = pd.read_csv(good / "baselines.csv").set_index("key")
    assert base.loc["a", "expected_max"] == max_random_baseline(100, 0.5, 10)
    assert base.loc["a", "tail_max"] == pytest.approx(max_random_tail(62, 100, 0.5, 10), rel=1e-15)
    assert base.loc["b", "expected_max"] == pytest.approx(
        max_random_baseline(100, {2: 50, 5: 50}, 1e12), rel=1e-15
    )
    assert base.loc["c", "expected_max"] == pytest.approx(max_random_auc(20, 30, 5), rel=1e-15)
    dist = pd.read_csv(good / "distributions.csv")
    assert list(dist.columns) == ["key", "k", "accuracy", "pmf", "cdf"]
    assert set(dist["key"]) == {"a"} and len(dist) == 101
    log = (tmp_path / "logs/x/maxrandom.log").read_text()
    assert "maxrandom" in log and "3/3" in log  # tqdm progress over rows

    # the bad request names its row, key and column, and leaves nothing behind
    log = (tmp_path / "logs/bad/maxrandom.log").read_text()
    assert "row 2 (key 'b'): column 'p' must be in (0, 1], got" in log
    assert sorted(p.name for p in bad.iterdir()) == ["requests.csv"]  # no outputs, no temp files
