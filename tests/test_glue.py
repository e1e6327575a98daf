"""GLUE loaders: counts and labels equal the HF `glue` split statistics (released/README.md)."""

from __future__ import annotations

import csv

import pytest

from evalsci.data.glue import GlueDataError, label_counts, load_glue

# HF `glue` split sizes and label counts (label-id order), released/README.md and HF dataset card.
EXPECTED = {
    ("sst2", "validation"): [428, 444],
    ("rte", "validation"): [146, 131],
    ("wnli", "validation"): [40, 31],
    ("mrpc", "validation"): [129, 279],
    ("sst2", "train"): [29780, 37569],
    ("rte", "train"): [1249, 1241],
    ("wnli", "train"): [323, 312],
    ("mrpc", "train"): [1194, 2474],
}


@pytest.mark.parametrize(("task", "split"), sorted(EXPECTED))
def test_label_counts_match_hf(mirror, task, split):
    examples = load_glue(task, split, root=mirror / "glue")
    assert list(label_counts(examples, task).values()) == EXPECTED[task, split]
    assert all(isinstance(e["label"], int) for e in examples)
    assert [e["idx"] for e in examples] == sorted({e["idx"] for e in examples})


def test_sst2_keeps_raw_text(mirror):
    first = load_glue("sst2", "validation", root=mirror / "glue")[0]
    # QUOTE_NONE and no stripping: the trailing space of the raw file survives, as in HF.
    assert first == {
        "sentence": "it 's a charming and often affecting journey . ",
        "label": 1,
        "idx": 0,
    }


def test_rte_string_labels_map_to_class_ids(mirror):
    first = load_glue("rte", "validation", root=mirror / "glue")[0]
    assert first["label"] == 1  # "not_entailment" is class 1 in HF rte
    assert first["sentence2"] == "Christopher Reeve had an accident."


def test_mrpc_validation_equals_glue_script_dev(mirror):
    """Validation = rows of msr_paraphrase_train.txt listed in dev_ids.tsv, in file order;
    download_glue_data.py's dev.tsv holds the same 408 pairs."""
    ours = load_glue("mrpc", "validation", root=mirror / "glue")
    with open(mirror / "glue" / "MRPC" / "dev.glue_script.tsv", encoding="utf-8-sig") as fh:
        ref = list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
    assert [(e["sentence1"], e["sentence2"], e["label"]) for e in ours] == [
        (r["#1 String"], r["#2 String"], int(r["Quality"])) for r in ref
    ]
    train = load_glue("mrpc", "train", root=mirror / "glue")
    assert not {e["idx"] for e in train} & {e["idx"] for e in ours}


def test_hub_task_offline_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    with pytest.raises(GlueDataError, match="hub"):
        load_glue("mnli", "validation_matched")


def test_unknown_task_and_split(mirror):
    with pytest.raises(GlueDataError, match="unknown task"):
        load_glue("cola", "train", root=mirror / "glue")
    with pytest.raises(GlueDataError, match="split"):
        load_glue("sst2", "test", root=mirror / "glue")


def test_missing_file_names_it(tmp_path):
    with pytest.raises(GlueDataError, match="SST-2"):
        load_glue("sst2", "train", root=tmp_path)


def test_split_sizes_table_matches_files(mirror):
    from evalsci.data.glue import OFFLINE_TASKS, SPLIT_SIZES

    for task in OFFLINE_TASKS:
        for split in ("train", "validation"):
            assert len(load_glue(task, split, root=mirror / "glue")) == SPLIT_SIZES[task, split]
