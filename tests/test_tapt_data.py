"""tapt: loading the authors' accuracies, the count rule, and the long format of the model."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalsci.studies.tapt import data, hierarchical, steps
from evalsci.studies.tapt.columns import LONG_COLUMNS

BUNDLE = "kddubey-pretrain-on-test"


@pytest.fixture(scope="module")
def acc(mirror):
    return data.load_accuracies(data.released_files(mirror / BUNDLE))


def test_released_layout_matches_the_paper(acc):
    assert data.config_order(acc["config"]) == list(data.config_order(data.RELEASED_CONFIGS))
    # Footnote 1: 100 subsamples for n = 50 and 100, 50 for n = 200, 20 for n = 500; 25 tasks.
    per_task = acc.groupby(["config", "lm", "dataset"]).size()
    n_of = acc.groupby(["config", "lm", "dataset"])["n"].first()
    expected = n_of.map({50: 100, 100: 100, 200: 50, 500: 20})
    zero_shot = per_task.index.get_level_values("config").str.startswith("zero_shot")
    assert (per_task[~zero_shot] == expected[~zero_shot]).all()
    assert (per_task[zero_shot] == 20).all()  # Section 9: 20 subsamples
    assert (acc.groupby(["config", "lm"])["dataset"].nunique() == 25).all()
    # 27,000 main subsamples (Section 4 footnote: 81,000 models / 3).
    assert (acc["family"] == "main").sum() == 27_000


def test_truncation_quirk_counts(acc):
    # The authors' polars cast truncates n*acc: one lower than round() for 952 base, 825 extra
    # and 875 test values of the main experiment.
    main = acc[acc["family"] == "main"]
    diff = {
        m: int(
            (
                hierarchical.num_correct(main[m], main["n"], "round")
                != hierarchical.num_correct(main[m], main["n"], "truncate")
            ).sum()
        )
        for m in ("base", "extra", "test")
    }
    assert diff == {"base": 952, "extra": 825, "test": 875}
    assert hierarchical.num_correct([0.29], [100], "truncate")[0] == 28
    assert hierarchical.num_correct([0.29], [100], "round")[0] == 29


def test_long_format_shares_pairs_across_lms(acc):
    cfg = acc[acc["config"] == "m50_n200"]
    long = hierarchical.long_format(cfg, "bias")
    assert list(long.columns) == list(LONG_COLUMNS)
    assert set(long["method"]) == {"extra", "test"}  # control extra is the reference level
    # A pair (task, subsample) holds both LMs and both methods: 4 rows, one per (LM, method).
    sizes = long.groupby(["dataset", "pair"]).size()
    assert (sizes == 4).all() and len(sizes) == 25 * 50
    per_pair = long.groupby(["dataset", "pair"])["lm_type"].nunique()
    assert (per_pair == 2).all()
    # The first ag_news subsample (released file row 0): extra 0.79, test 0.765 of n = 200.
    row = long[(long["dataset"] == "ag_news") & (long["pair"] == "0") & (long["lm_type"] == "bert")]
    assert dict(zip(row["method"], row["num_correct"], strict=True)) == {"extra": 158, "test": 153}


def test_boost_long_format_reference_level_is_base(acc):
    long = hierarchical.long_format(acc[acc["config"] == "zero_shot_n100"], "boost")
    assert sorted(long["method"].unique()) == ["base", "extra"]
    assert hierarchical.beta_name("boost") == "method[extra]"
    assert hierarchical.beta_name("bias") == "method[test]"


def test_task_level_section7(acc):
    t = steps.task_level(acc)
    assert sorted(t.loc[t["boost"] < 0, "dataset"]) == [
        "blog_authorship_corpus",
        "movie_rationales",
    ]
    assert t.loc[t["boost"] < 0, "boost"].min() > -0.01
    assert ((t["bias"] > 0).sum(), (t["bias"] < 0).sum()) == (12, 13)
    assert t["bias"].abs().max() < 0.01


def test_bad_files_fail_naming_them(tmp_path):
    good = tmp_path / "m50/n50/bert/ag_news/accuracies.csv"
    good.parent.mkdir(parents=True)
    pd.DataFrame(
        {
            "base": [0.5],
            "extra": [0.52],
            "test": [0.54],
            "majority": [0.3],
            "num_classes": [4],
            "majority_all": [0.25],
        }
    ).to_csv(good, index=False)
    assert len(data.load_accuracies([good])) == 1
    bad = tmp_path / "m50/n50/bert/trec/accuracies.csv"
    bad.parent.mkdir(parents=True)
    pd.DataFrame({"base": [0.5], "extra": [0.52]}).to_csv(bad, index=False)
    with pytest.raises(data.AccuracyDataError, match=r"trec/accuracies\.csv: missing columns"):
        data.load_accuracies([bad])
    odd = tmp_path / "m50/n50/gpt2/ag_news/accuracies.csv"
    odd.parent.mkdir(parents=True)
    pd.DataFrame(
        {
            "base": [0.501],
            "extra": [0.52],
            "test": [0.54],
            "majority": [0.3],
            "num_classes": [4],
            "majority_all": [0.25],
        }
    ).to_csv(odd, index=False)
    with pytest.raises(data.AccuracyDataError, match="not a whole count for n=50"):
        data.load_accuracies([odd])
    with pytest.raises(data.AccuracyDataError, match="not laid out"):
        data.parse_path(tmp_path / "x.csv")


def test_the_two_readers_give_the_same_table(mirror, acc):
    """load_accuracies checks and parses every file at once where all pass (pyarrow), and
    reads file by file (pandas) only to name what fails: both give the same table, to the
    byte of its CSV, on all 600 released files."""
    files = data.released_files(mirror / BUNDLE)
    at_once = data._read_all_at_once(files, released=True)
    assert at_once is not None, "the released files took the file-by-file path"
    one_by_one = pd.concat(data._read_one_by_one(files, released=True), ignore_index=True)
    pd.testing.assert_frame_equal(at_once, one_by_one)
    assert acc.to_csv(index=False) == (
        one_by_one.sort_values(["family", "m", "n", "lm", "dataset", "subsample"], kind="stable")
        .reset_index(drop=True)[acc.columns]
        .to_csv(index=False)
    )


@pytest.mark.parametrize(
    ("cells", "rows", "message"),
    [
        ({"base": ""}, 100, "column 'base', row 7: "),
        ({"test": "1.02"}, 100, "column 'test', row 7: "),
        ({"num_classes": "2.5"}, 100, "column 'num_classes', row 7: "),
        ({"extra": "abc"}, 100, "column 'extra', row 7: 'abc' is not a number"),
        ({"base": "0.51"}, 100, "column 'base', row 7: n*accuracy is not a whole count"),
        ({}, 99, "99 subsamples (rows), expected 100"),
    ],
)
def test_a_bad_file_among_good_ones_is_named_with_its_row(tmp_path, cells, rows, message):
    """One bad file among good released-layout ones (100 subsamples each for bert at n = 50)
    sends the load to the file-by-file reader, whose message names the file, the column and
    the row."""
    good = {
        "base": "0.5",
        "extra": "0.52",
        "test": "0.54",
        "majority": "0.3",
        "num_classes": "4",
        "majority_all": "0.25",
    }
    files = []
    for dataset in ("ag_news", "trec", "yelp"):
        path = tmp_path / f"m50/n50/bert/{dataset}/accuracies.csv"
        path.parent.mkdir(parents=True)
        lines = [",".join(good)]
        for i in range(rows if dataset == "trec" else 100):
            row = {**good, **cells} if dataset == "trec" and i == 6 else good
            lines.append(",".join(row.values()))
        path.write_text("\n".join(lines) + "\n")
        files.append(path)
    assert data._read_all_at_once(files, released=True) is None
    with pytest.raises(data.AccuracyDataError) as err:
        data.load_accuracies(files, released=True)
    assert "trec/accuracies.csv" in str(err.value)
    assert message in str(err.value)
    assert len(data.load_accuracies([files[0], files[2]], released=True)) == 200


def test_configuration_names():
    assert data.config_name("bert", 50, 200) == "m50_n200"
    assert data.config_name("gpt2-epochs-2", 100, 50) == "gpt2_epochs_2_m100_n50"
    assert data.config_name("mistral-qlora-zero-shot", 100, 100) == "zero_shot_n100"
    assert data.config_name("mistral-qlora-zero-shot-packing", 100, 100) == "zero_shot_packing_n100"
    assert np.array_equal(
        [data.family_of_config(c) for c in ("m50_n50", "gpt2_epochs_2_m50_n50", "zero_shot_n100")],
        ["main", "overtraining", "zero_shot"],
    )
