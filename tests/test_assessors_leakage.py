"""No leakage between LLM splits or instance splits (asserted, not assumed).

A synthetic collection whose success depends on the instance embedding and an LLM skill lets us
change labels that a step must not see and check that nothing it produces changes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalsci.studies.assessors.experiment import SplitData, run_split
from evalsci.studies.assessors.settings import resolved_settings
from evalsci.studies.assessors.splits import (
    LeakageError,
    check_llm_splits,
    define_splits,
    make_instance_splits,
)

LLMS = {"train": ["t1", "t2", "t3", "t4"], "validation": ["v1", "v2"], "test": ["x1", "x2"]}
# the default preset's settings with these on top (every other value its schema default)
CFG = resolved_settings(
    n_ref=20,
    classifiers=["logreg_l2_C1"],
    selectors=["random", "clustering_embeddings", "factor_analysis_success", "clustering_irt"],
    generic_features=["embeddings", "similarity_interaction"],
    specific_features=["embeddings"],
    irt={"dims": 2, "max_iter": 50},
    random_best_of_draws=3,
    max_train_rows=0,
)


def _collection(n=240, seed=0):
    rng = np.random.default_rng(seed)
    emb = rng.normal(size=(n, 12)).astype(np.float32)
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    direction = rng.normal(size=12)
    llms = [m for r in ("train", "validation", "test") for m in LLMS[r]]
    skill = np.linspace(-1, 1, len(llms))
    logits = 3 * (emb @ direction)[:, None] + skill[None, :]
    z = (rng.random((n, len(llms))) < 1 / (1 + np.exp(-logits))).astype(int)
    ids = [f"d{i % 3}/{i}" for i in range(n)]
    inst = pd.DataFrame({"instance_id": ids, "dataset": [f"d{i % 3}" for i in range(n)]})
    succ = pd.DataFrame(z, index=pd.Index(ids, name="instance_id"), columns=llms)
    return inst, succ, emb


def _run(succ, emb, roles, return_refs=False):
    data = SplitData("random", emb, succ, roles, LLMS)
    res, refs, preds = run_split(data, CFG, seed=3, return_predictions=True)
    return (res, refs, preds) if return_refs else preds


@pytest.fixture(scope="module")
def setup():
    inst, succ, emb = _collection()
    splits = make_instance_splits(inst, define_splits(inst["dataset"], {}), seed=1)
    roles = splits["random"]
    res, refs, preds = _run(succ, emb, roles, return_refs=True)
    return inst, succ, emb, roles, res, refs, preds


def test_instance_splits_are_disjoint_and_ood_holds_out_whole_datasets():
    inst, _, _ = _collection()
    held = define_splits(inst["dataset"], None)
    assert held == {"random": [], "ood_d0": ["d0"], "ood_d1": ["d1"], "ood_d2": ["d2"]}
    splits = make_instance_splits(inst, held, seed=1, test_size=0.3, validation_size=0.2)
    assert splits.index.is_unique
    r = splits["random"].value_counts()
    assert r["test"] == 72 and r["validation"] == round(0.2 * 168)
    for split, ds in held.items():
        if not ds:
            continue
        in_ds = inst.set_index("instance_id")["dataset"].isin(ds)
        assert (splits.loc[in_ds.to_numpy(), split] == "test").all()
        assert (splits.loc[~in_ds.to_numpy(), split] != "test").all()
    # Prefix matching for nested datasets ("math" holds out "math/algebra").
    assert define_splits(["math/a", "math/b", "gsm"], {"OOD_1": ["math"]})["OOD_1"] == [
        "math/a",
        "math/b",
    ]
    with pytest.raises(ValueError, match="match no dataset"):
        define_splits(["gsm"], {"OOD_1": ["math"]})


def test_overlapping_llm_splits_are_rejected():
    with pytest.raises(LeakageError, match="both train and test"):
        check_llm_splits({"train": ["a", "b"], "validation": ["c"], "test": ["b"]}, ["a", "b", "c"])
    with pytest.raises(KeyError, match="not in the collection"):
        check_llm_splits({"train": ["a"], "validation": ["c"], "test": ["z"]}, ["a", "c"])
    inst, succ, emb = _collection()
    roles = make_instance_splits(inst, {"random": []}, seed=1)["random"]
    with pytest.raises(LeakageError):
        SplitData(
            "random",
            emb,
            succ,
            roles,
            {"train": ["t1", "x1"], "validation": ["v1"], "test": ["x1"]},
        )


def test_references_are_training_instances(setup):
    _, _, _, roles, _, refs, _ = setup
    train_ids = set(roles.index[roles == "train"])
    for sel, ids in refs.items():
        assert len(ids) == CFG.n_ref and set(ids) <= train_ids, sel


def test_new_llm_labels_outside_the_reference_set_are_never_used(setup):
    """Flip every label of the test LLMs except on reference instances: predictions for them
    (generic, reference only, all train data) must not change."""
    _, succ, emb, roles, _, refs, preds = setup
    ref_ids = set().union(*map(set, refs.values()))
    flipped = succ.copy()
    mask = ~flipped.index.isin(list(ref_ids))
    flipped.loc[mask, LLMS["test"]] = 1 - flipped.loc[mask, LLMS["test"]]
    preds2 = _run(flipped, emb, roles)
    for key, p in preds.items():
        np.testing.assert_array_equal(p, preds2[key], err_msg=str(key))


def test_training_llm_labels_on_validation_and_test_instances_are_never_used(setup):
    _, succ, emb, roles, _, _, preds = setup
    flipped = succ.copy()
    mask = (roles != "train").to_numpy()
    flipped.loc[mask, LLMS["train"]] = 1 - flipped.loc[mask, LLMS["train"]]
    preds2 = _run(flipped, emb, roles)
    for key, p in preds.items():
        np.testing.assert_array_equal(p, preds2[key], err_msg=str(key))


def test_results_record_every_combination_and_baseline(setup):
    _, _, _, _, res, _, _ = setup
    gen = res[res["method"] == "generic"]
    n_comb = len(CFG.generic_features) * len(CFG.selectors) * len(CFG.classifiers)
    assert gen.groupby(["features", "selector", "classifier"]).ngroups == n_comb
    # Validation LLMs are scored on validation instances, test LLMs on test instances only.
    assert set(zip(gen["llm_role"], gen["eval_set"], strict=True)) == {
        ("validation", "validation"),
        ("test", "test"),
    }
    spec = res[res["method"] == "specific"]
    assert set(spec["llm"]) == set(LLMS["test"]) and set(spec["eval_set"]) == {"validation", "test"}
    assert set(res["method"]) == {"generic", "reference_only", "all_train", "specific"}
    # The synthetic success is predictable from the embedding: the specific assessor learns it.
    assert spec[spec["eval_set"] == "test"]["auc"].mean() > 0.75


def test_a_selector_missing_its_setting_is_named():
    """select_references repeats no schema default: a selector whose setting is not given
    fails naming the config key (and the selectors that need nothing run without it)."""
    from evalsci.studies.assessors.experiment import select_references

    inst, succ, emb = _collection(n=120)
    roles = make_instance_splits(inst, define_splits(inst["dataset"], {}), seed=1)["random"]
    data = SplitData("random", emb, succ, roles, LLMS)
    for selector, key in [
        ("factor_analysis_success", "fa_max_factors"),
        ("random_best_of", "random_best_of_draws"),
        ("clustering_irt", "irt"),
    ]:
        with pytest.raises(ValueError, match=rf"{selector}' needs {key} \(config assessors"):
            select_references(data, [selector], 5, seed=0)
    refs = select_references(data, ["random", "clustering_embeddings"], 5, seed=0)
    assert {k: len(v) for k, v in refs.items()} == {"random": 5, "clustering_embeddings": 5}
