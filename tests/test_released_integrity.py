"""Issue 13 items 3-4: a damaged released file is named, and what a study reads is checked
when it reads it (the bundle's SHA256SUMS again, then columns, types, ranges and counts)."""

from __future__ import annotations

import gzip
import json
import os
import shutil
from pathlib import Path

import pandas as pd
import pytest

from evalsci.data import released
from evalsci.studies.baselines import load
from evalsci.studies.baselines.load import BaselinesDataError

SRB = "gyauney-stronger-random-baselines"
FIRST = "Alpaca-7b_bbq_lite_json_1-shot.csv"  # first per-example file in sorted order


def _corrupt(path: Path, how: str) -> None:
    data = bytearray(path.read_bytes())
    if how == "flipped":
        for i in range(len(data) // 2, len(data) // 2 + 64):
            data[i] ^= 0xFF
    elif how == "truncated":
        data = data[: len(data) // 2]
    elif how == "zeroed_magic":
        data[0] = 0
    path.write_bytes(bytes(data))


@pytest.fixture
def per_example_mirror(tmp_path, mirror):
    """A mirror of the 288 per-example .csv.gz files (links), the first one copied."""
    res = tmp_path / "mirror" / SRB / "results"
    res.mkdir(parents=True)
    for f in (mirror / SRB / "results").glob("*-shot.csv.gz"):
        (res / f.name).symlink_to(f)
    first = res / f"{FIRST}.gz"
    first.unlink()
    shutil.copyfile(mirror / SRB / "results" / f"{FIRST}.gz", first)
    return tmp_path / "mirror", first


@pytest.mark.parametrize("how", ["flipped", "truncated", "zeroed_magic"])
def test_corrupt_gz_in_the_mirror_is_named(tmp_path, per_example_mirror, how):
    m, first = per_example_mirror
    assert len(list(first.parent.iterdir())) == 288
    _corrupt(first, how)
    out = tmp_path / "resources" / "released" / "srb_per_example"
    with pytest.raises(released.ReleasedDataError) as e:
        released.materialise("srb_per_example", out, mirror=str(m))
    # the mirror file, not the temporary copy that is gone by now (issue 25 item 4)
    assert str(first) in str(e.value) and ".srb_per_example." not in str(e.value)
    assert not out.exists() and [p.name for p in out.parent.iterdir()] == []


@pytest.mark.parametrize("how", ["flipped", "truncated", "zeroed_magic"])
def test_corrupt_gz_read_by_the_study_is_named(per_example_mirror, how):
    _, first = per_example_mirror
    _corrupt(first, how)
    with pytest.raises(BaselinesDataError, match=f"cannot read {first}"):
        load.read_per_example(first)


# --- the bundle is re-verified when a study reads it ------------------------------------------


@pytest.fixture
def aggregated_bundle(tmp_path, mirror):
    out = released.materialise(
        "srb_aggregated", tmp_path / "released" / "srb_aggregated", mirror=str(mirror)
    )
    return out / "results" / "aggregated-results.json"


def test_edit_after_verification_is_noticed(aggregated_bundle):
    load.load_aggregated(aggregated_bundle, prompts=200)  # intact: reads
    raw = json.loads(aggregated_bundle.read_text())
    key = next(iter(raw))
    raw[key] = raw[key][:3]
    aggregated_bundle.write_text(json.dumps(raw))
    released._VERIFIED.clear()  # the next rule is a new process: it verifies again
    with pytest.raises(
        BaselinesDataError,
        match=r"aggregated-results\.json changed after it "
        r"was verified.*SHA256SUMS",
    ):
        load.load_aggregated(aggregated_bundle, prompts=200)


def test_reverification_is_cached_by_the_stat_key(aggregated_bundle, monkeypatch):
    released._VERIFIED.clear()
    calls = []
    real = released.sha256_of_content
    monkeypatch.setattr(released, "sha256_of_content", lambda p: calls.append(p) or real(p))
    released.verify_file(aggregated_bundle)
    assert calls == []  # materialise left the cache: nothing rehashed
    st = aggregated_bundle.stat()
    os.utime(aggregated_bundle, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    released._VERIFIED.clear()
    released.verify_file(aggregated_bundle)
    assert calls == [aggregated_bundle]  # touched: rehashed once (content unchanged: passes)
    released._VERIFIED.clear()
    released.verify_file(aggregated_bundle)
    assert calls == [aggregated_bundle]


def test_a_byte_flipped_with_size_and_mtime_restored_is_noticed(aggregated_bundle):
    """Issue 47 item 10: the cache trusted size and mtime, so a same-size edit with its mtime
    put back passed and changed a table; ctime (which no user can set) now catches it."""
    released._VERIFIED.clear()
    released.verify_file(aggregated_bundle)  # cached
    st = aggregated_bundle.stat()
    data = bytearray(aggregated_bundle.read_bytes())
    i = data.index(b"0.")  # a digit of a number: still valid JSON
    data[i + 2] = ord("1") if data[i + 2] != ord("1") else ord("2")
    aggregated_bundle.write_bytes(bytes(data))
    os.utime(aggregated_bundle, ns=(st.st_atime_ns, st.st_mtime_ns))
    after = aggregated_bundle.stat()
    assert (after.st_size, after.st_mtime_ns) == (st.st_size, st.st_mtime_ns)
    released._VERIFIED.clear()
    with pytest.raises(released.ReleasedDataError, match="changed after it was verified"):
        released.verify_file(aggregated_bundle)


def test_deleted_file_of_a_bundle_is_named(aggregated_bundle):
    released._VERIFIED.clear()
    aggregated_bundle.unlink()
    with pytest.raises(released.ReleasedDataError, match="released file missing: .*aggregated"):
        released.verify_file(aggregated_bundle.parent)


# --- content checks (on copies outside a bundle: what the checksum cannot say) ----------------


def test_aggregated_cut_to_3_prompts_is_an_error(tmp_path, mirror):
    raw = json.loads((mirror / SRB / "results" / "aggregated-results.json").read_text())
    key = sorted(raw)[5]
    raw[key] = raw[key][:3]
    f = tmp_path / "aggregated-results.json"
    f.write_text(json.dumps(raw))
    with pytest.raises(BaselinesDataError, match=rf"{f}: 3 prompts for '{key}', expected 200"):
        load.load_aggregated(f, prompts=200)


@pytest.mark.parametrize(
    ("value", "needle"),
    [
        (True, "True is not an accuracy"),
        ("0.5", "'0.5' is not an accuracy"),
        (1.5, "1.5 is not an accuracy"),
    ],
)
def test_aggregated_values_must_be_accuracies(tmp_path, mirror, value, needle):
    raw = json.loads((mirror / SRB / "results" / "aggregated-results.json").read_text())
    key = sorted(raw)[0]
    raw[key][7] = value
    f = tmp_path / "aggregated-results.json"
    f.write_text(json.dumps(raw))
    with pytest.raises(BaselinesDataError, match=rf"key '{key}', entry 7: {needle}"):
        load.load_aggregated(f, prompts=200)


@pytest.fixture(scope="module")
def heldout_t200(mirror):
    return pd.read_csv(
        mirror
        / SRB
        / "held-out-split-results"
        / "all-train-test-splits_100-trials_t=200_all-predictions.csv",
        dtype=str,
    )


def _heldout_dir(tmp_path, df) -> Path:
    d = tmp_path / "held-out-split-results"
    d.mkdir()
    df.to_csv(d / "all-train-test-splits_100-trials_t=200_all-predictions.csv", index=False)
    return tmp_path


def test_heldout_released_file_passes(tmp_path, heldout_t200):
    out = load.load_heldout(_heldout_dir(tmp_path, heldout_t200), ts=[200])
    assert len(out) == 28_800


def test_heldout_cut_to_1000_rows_is_an_error(tmp_path, heldout_t200):
    with pytest.raises(BaselinesDataError, match="1000 rows, expected 28800"):
        load.load_heldout(_heldout_dir(tmp_path, heldout_t200.head(1000)), ts=[200])


def test_heldout_missing_split_is_an_error(tmp_path, heldout_t200):
    df = heldout_t200.copy()
    df.loc[3, "Split number"] = "4"  # split 3 of the first experiment is now a duplicate 4
    with pytest.raises(BaselinesDataError, match="expected 100 splits"):
        load.load_heldout(_heldout_dir(tmp_path, df), ts=[200])


@pytest.mark.parametrize(
    ("column", "value", "needle"),
    [
        ("Above max random on train", "2", "2 is not 0 or 1"),
        ("Above standard random on test", "0.5", "0.5 is not 0 or 1"),
        ("Max random F", "abc", "'abc' is not a number"),
        ("Standard random F", "1.5", "1.5 is not a number in \\[0, 1\\]"),
        ("Number of shots", "two", "'two' is not a number"),
    ],
)
def test_heldout_bad_value_names_file_column_and_row(tmp_path, heldout_t200, column, value, needle):
    df = heldout_t200.copy()
    df.loc[41, column] = value
    base = _heldout_dir(tmp_path, df)
    with pytest.raises(
        BaselinesDataError,
        match=rf"t=200_all-predictions\.csv: column "
        rf"'{column}', row 42: {needle}",
    ):
        load.load_heldout(base, ts=[200])


@pytest.mark.parametrize(
    ("column", "value", "needle"),
    [
        ("Correct prediction", "2", "2 is not 0 or 1"),
        ("Correct prediction", "0.5", "0.5 is not 0 or 1"),
        ("Correct prediction", "abc", "'abc' is not a number"),
        ("Example ID", "abc", "'abc' is not a number"),
        ("Loss of correct answer", "abc", "'abc' is not a number"),
    ],
)
def test_per_example_bad_value_names_file_column_and_row(tmp_path, mirror, column, value, needle):
    with gzip.open(mirror / SRB / "results" / f"{FIRST}.gz", "rt") as fh:
        df = pd.read_csv(fh, dtype=str)
    df.loc[9, column] = value
    f = tmp_path / f"{FIRST}.gz"
    df.to_csv(f, index=False)
    with pytest.raises(
        BaselinesDataError,
        match=rf"{FIRST}\.gz: column '{column}', row 10: "
        rf"{needle}",
    ):
        load.read_per_example(f)


def test_multi_prompt_accuracy_abc_is_named(tmp_path, mirror):
    src = mirror / "slab-nlp-multi-prompt-llm-evaluation" / "data" / "paraphrases accuracies"
    dst = tmp_path / "data" / "paraphrases accuracies"
    shutil.copytree(src, dst)
    f = sorted((dst / "BBH").glob("*.csv"))[0]
    df = pd.read_csv(f, dtype=str)
    col = next(c for c in df.columns if c.endswith("_acc"))
    df.loc[2, col] = "abc"
    df.to_csv(f, index=False)
    with pytest.raises(BaselinesDataError, match=rf"{f.name}: column '{col}', row 3: 'abc'"):
        load.load_multi_prompt(tmp_path)


# --- tapt: the authors' accuracies.csv -------------------------------------------------------

TAPT = "kddubey-pretrain-on-test"


def _tapt_copy(tmp_path, mirror, rel="analysis/accuracies_from_paper/m100/n500/bert/ag_news"):
    src = mirror / TAPT / rel / "accuracies.csv"
    dst = tmp_path / rel / "accuracies.csv"
    dst.parent.mkdir(parents=True)
    shutil.copyfile(src, dst)
    return dst


def test_tapt_released_bundle_loads_with_its_counts(mirror):
    from evalsci.studies.tapt import data

    files = data.released_files(mirror / TAPT)
    acc = data.load_accuracies(files, released=True)
    assert len(files) == 600
    sizes = acc.groupby(["config", "lm", "dataset"]).size()
    assert set(sizes.unique()) == {100, 50, 20}


def test_tapt_file_cut_short_is_an_error(tmp_path, mirror):
    from evalsci.studies.tapt import data

    f = _tapt_copy(tmp_path, mirror)
    lines = f.read_text().splitlines()
    assert len(lines) == 21  # 20 subsamples at n = 500
    f.write_text("\n".join(lines[:6]) + "\n")
    with pytest.raises(data.AccuracyDataError, match=r"5 subsamples \(rows\), expected 20"):
        data.load_accuracies([f], released=True)


@pytest.mark.parametrize(
    ("column", "value", "needle"),
    [
        ("extra", "abc", "'abc' is not a number"),
        ("test", "1.2", "1.2 is not a number in \\[0, 1\\]"),
        ("num_classes", "2.5", "2.5 is not an integer >= 2"),
        ("base", "0.5011", "n\\*accuracy is not a whole count for n=500"),
    ],
)
def test_tapt_bad_value_names_file_column_and_row(tmp_path, mirror, column, value, needle):
    from evalsci.studies.tapt import data

    f = _tapt_copy(tmp_path, mirror)
    df = pd.read_csv(f, dtype=str)
    df.loc[3, column] = value
    df.to_csv(f, index=False)
    with pytest.raises(
        data.AccuracyDataError,
        match=rf"accuracies\.csv: column '{column}', "
        rf"row 4: {needle}",
    ):
        data.load_accuracies([f], released=True)


# --- assessors: leaderboard 0/1 results and evals logs ----------------------------------------

PB = "kinds-of-intelligence-cfi-PredictaBoard/llm_data/llm_performance_data"


@pytest.mark.parametrize(
    ("value", "needle"),
    [("2", "'2' is not 0 or 1"), ("0.5", "'0.5' is not 0 or 1"), ("abc", "'abc' is not 0 or 1")],
)
def test_leaderboard_result_not_0_1_is_named(tmp_path, mirror, value, needle):
    from evalsci.data.leaderboard import LeaderboardError, read_results

    src = mirror / PB / "Big-Bench-Hard__boolean_expressions_results.csv"
    if not src.exists():
        src = src.with_name(src.name + ".gz")
    df = pd.read_csv(src, dtype=str)
    read_results(src)  # the released file passes
    item = df.columns[5]
    df.loc[7, item] = value
    f = tmp_path / "Big-Bench-Hard__boolean_expressions_results.csv"
    df.to_csv(f, index=False)
    with pytest.raises(
        LeaderboardError,
        match=rf"results\.csv: column '{item}', row 8 \(model "
        rf"'[^']+'\): {needle}",
    ):
        read_results(f)


def test_corrupt_evals_log_is_named(tmp_path, mirror):
    from evalsci.data.evals_logs import EvalsLogError, read_evals_log

    src = (
        mirror
        / "kinds-of-intelligence-cfi-benchmark-ground-truth-predictability"
        / "raw_results"
        / "causal_judgment"
        / "gpt-4-0613.jsonl"
    )
    f = tmp_path / src.name
    f.write_bytes(b"\xff\xfe" + src.read_bytes()[:1000])
    with pytest.raises(EvalsLogError, match=rf"cannot read {f}: UnicodeDecodeError"):
        read_evals_log(f)


def test_unknown_evals_llm_lists_the_known_ones(mirror):
    from evalsci.data.evals_logs import load_evals_task

    root = (
        mirror / "kinds-of-intelligence-cfi-benchmark-ground-truth-predictability" / "raw_results"
    )
    with pytest.raises(
        FileNotFoundError,
        match=r"LLM 'gpt_5'.*LLMs with logs for this task: "
        r"\[.*'gpt-4-0613'",
    ):
        load_evals_task(root, "causal_judgment", ["gpt-4-0613", "gpt_5"])


def test_assessors_success_table_values_are_named(tmp_path):
    from evalsci.studies.assessors.collections import read_success

    f = tmp_path / "success.csv.gz"
    pd.DataFrame(
        {"instance_id": ["a", "b", "c"], "llm1": [0, 1, 1], "llm2": ["1", "0", "0.5"]}
    ).to_csv(f, index=False)
    with pytest.raises(
        ValueError, match=r"success\.csv\.gz: column 'llm2', row 3: 0.5 is not 0 or 1"
    ):
        read_success(f)
    f.write_bytes(f.read_bytes()[:20])
    with pytest.raises(ValueError, match=rf"cannot read {f}"):
        read_success(f)


# --- mc_icl / baselines inputs: GLUE TSVs and BIG-bench JSON ----------------------------------


def test_glue_file_that_cannot_be_decoded_is_named(tmp_path, mirror):
    from evalsci.data.glue import GlueDataError, load_glue

    (tmp_path / "SST-2").mkdir()
    f = tmp_path / "SST-2" / "dev.tsv"
    data = (mirror / "glue" / "SST-2" / "dev.tsv").read_bytes()
    f.write_bytes(data[:2000] + b"\xff\xfe\xfa" + data[2000:4000])
    with pytest.raises(GlueDataError, match=rf"cannot read {f}: UnicodeDecodeError"):
        load_glue("sst2", "validation", tmp_path)


def test_glue_file_edited_in_a_fetched_bundle_is_named(tmp_path, mirror):
    from evalsci.data.glue import GlueDataError, load_glue

    out = released.materialise("glue", tmp_path / "glue", mirror=str(mirror))
    f = out / "SST-2" / "dev.tsv"
    f.write_text(f.read_text().replace("\t1\n", "\t0\n", 1))
    released._VERIFIED.clear()
    with pytest.raises(GlueDataError, match=rf"{f} changed after it was verified"):
        load_glue("sst2", "validation", out)


def test_bigbench_task_json_that_cannot_be_read_is_named(tmp_path, mirror):
    from evalsci.data.bigbench import BigBenchError, load_task

    src = mirror / "bigbench" / "benchmark_tasks" / "emoji_movie" / "task.json"
    dst = tmp_path / "benchmark_tasks" / "emoji_movie" / "task.json"
    dst.parent.mkdir(parents=True)
    dst.write_bytes(b"\xff" + src.read_bytes())
    with pytest.raises(BigBenchError, match=rf"cannot read {dst}: UnicodeDecodeError"):
        load_task("emoji_movie", tmp_path)


# --- end to end: a rule that reads an edited bundle fails, naming the file --------------------


@pytest.mark.workflow
@pytest.mark.slow  # ~50 s: builds Table 1 for real, then reruns its rule
def test_table1_rule_notices_an_edit_after_the_fetch(tmp_path, mirror):
    """The issue's case: one list of aggregated-results.json cut to 3 entries made Table 1
    use t = 3 silently."""
    from conftest import snakemake

    snakemake(tmp_path, "baselines_table1", mirror=mirror)
    f = tmp_path / "resources/released/srb_aggregated/results/aggregated-results.json"
    raw = json.loads(f.read_text())
    key = sorted(raw)[0]
    raw[key] = raw[key][:3]
    f.write_text(json.dumps(raw))
    table = tmp_path / "results/baselines/tables/table1.csv"
    before = table.read_bytes()
    proc = snakemake(
        tmp_path,
        "--forcerun",
        "baselines_make_table1",
        "--",
        "baselines_table1",
        mirror=mirror,
        check=False,
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    log = (tmp_path / "logs").rglob("*table1*.log")
    text = out + "".join(p.read_text() for p in log)
    assert f"{f} changed after it was verified" in text
    # found when the run starts (issue 25), before --forcerun deletes the good table
    assert f"{f} changed after it was verified" in out
    assert table.read_bytes() == before


@pytest.mark.workflow  # a bundle fetch from the mirror, then three short reruns
def test_an_edit_after_the_fetch_stops_the_next_run_before_any_job(tmp_path, mirror):
    """Issue 25 item 5: an edit under resources/released/ after the fetch went unnoticed by a
    plain rerun ("Nothing to be done"); every run now checks the bundles when it starts and
    stops naming the file, with nothing deleted or rebuilt."""
    from conftest import snakemake

    target = "resources/released/srb_aggregated"
    snakemake(tmp_path, target, mirror=mirror)
    f = tmp_path / target / "few-shot-eval/subsampled-idxs/bbq_lite_json_200-examples_idxs.json"
    again = snakemake(tmp_path, target, mirror=mirror)  # unchanged: runs, nothing to do
    assert "Nothing to be done" in again.stdout + again.stderr
    f.write_bytes(f.read_bytes() + b" ")  # one byte more
    edited = f.read_bytes()
    files = {p: p.stat().st_mtime_ns for p in (tmp_path / target).rglob("*")}
    for args in ((target,), ("-n",)):  # a run, a dry run of everything
        proc = snakemake(tmp_path, *args, mirror=mirror, check=False)
        out = proc.stdout + proc.stderr
        assert proc.returncode != 0, out[-2000:]
        assert f"{f} changed after it was verified" in out, out[-2000:]
        assert "Building DAG of jobs" not in out  # before any job was considered
    assert f.read_bytes() == edited  # nothing re-fetched, nothing deleted
    assert {p: p.stat().st_mtime_ns for p in (tmp_path / target).rglob("*")} == files


def test_mirror_messages_say_what_set_the_mirror(tmp_path, monkeypatch):
    """Issue 25 item 4: with `--config mirror=...` the errors said `EVALSCI_MIRROR=...`."""
    empty = tmp_path / "empty_mirror"
    empty.mkdir()
    monkeypatch.delenv("EVALSCI_MIRROR", raising=False)
    assert released.mirror_origin(empty) == f"config mirror={empty}"
    with pytest.raises(released.ReleasedDataError) as e:
        released.materialise(
            "bigbench", tmp_path / "out", mirror=str(empty), origin=f"config mirror={empty}"
        )
    assert f"mirror set by config mirror={empty}" in str(e.value) and "EVALSCI_MIRROR" not in str(
        e.value
    )
    monkeypatch.setenv("EVALSCI_MIRROR", str(empty))
    assert released.mirror_origin(empty) == f"EVALSCI_MIRROR={empty}"
    with pytest.raises(released.ReleasedDataError, match=f"mirror set by EVALSCI_MIRROR={empty}"):
        released.materialise("bigbench", tmp_path / "out")
    with pytest.raises(released.ReleasedDataError, match="does not exist .set by mirror="):
        released.materialise("bigbench", tmp_path / "out", mirror=str(tmp_path / "nope"))
    (tmp_path / "file").write_text("")
    with pytest.raises(released.ReleasedDataError, match="is not a directory .set by mirror="):
        released.materialise("bigbench", tmp_path / "out", mirror=str(tmp_path / "file"))


@pytest.mark.workflow  # dry runs
@pytest.mark.parametrize("how", ["config", "env"])
def test_a_missing_mirror_is_named_by_the_dry_run(tmp_path, how):
    """Issue 35 item 7: a missing mirror was found by the first fetch job, not the dry run.
    Now the parse names it and what set it (the config key or the variable), before any job."""
    from conftest import snakemake

    missing = tmp_path / "no_such_mirror"
    args = ["--config", f"mirror={missing}"] if how == "config" else []
    env = {"EVALSCI_MIRROR": "" if how == "config" else str(missing)}
    proc = snakemake(tmp_path, "-n", "resources/released/bigbench", *args, env=env, check=False)
    out = proc.stdout + proc.stderr
    origin = f"config mirror={missing}" if how == "config" else f"EVALSCI_MIRROR={missing}"
    assert proc.returncode != 0
    assert f"the mirror {missing} does not exist (set by {origin})" in out, out[-3000:]
    assert ("EVALSCI_MIRROR=" in out) == (how == "env")
    assert "released_bundle" not in out  # no job was planned, let alone run
    assert not (tmp_path / "resources").exists()
