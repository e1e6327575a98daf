"""The n_ref sweep reuses the split run's fits at the configured n_ref: same bytes, fewer fits."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from evalsci.assess import classifiers as assessors
from evalsci.studies.assessors.experiment import SplitData, SplitRunRows, run_nref, run_split
from evalsci.studies.assessors.settings import resolved_settings
from evalsci.studies.assessors.splits import define_splits, make_instance_splits

LLMS = {"train": ["t1", "t2", "t3", "t4"], "validation": ["v1", "v2"], "test": ["x1", "x2"]}
# the default preset's settings with these on top (every other value its schema default)
CFG = resolved_settings(
    n_ref=10,
    classifiers=["logreg_l2_C1", "xgboost_bins16"],
    selectors=["random", "clustering_embeddings"],
    max_train_rows=300,
    generic_features=["embeddings", "similarity", "similarity_interaction"],
    specific_features=["embeddings"],
)
SWEEP = [3, 10]


def _data(n=200, seed=0):
    rng = np.random.default_rng(seed)
    emb = rng.normal(size=(n, 8)).astype(np.float32)
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    llms = [m for r in ("train", "validation", "test") for m in LLMS[r]]
    logits = 3 * (emb @ rng.normal(size=8))[:, None] + np.linspace(-1, 1, len(llms))[None, :]
    z = (rng.random((n, len(llms))) < 1 / (1 + np.exp(-logits))).astype(int)
    ids = [f"d{i % 3}/{i}" for i in range(n)]
    inst = pd.DataFrame({"instance_id": ids, "dataset": [f"d{i % 3}" for i in range(n)]})
    succ = pd.DataFrame(z, index=pd.Index(ids, name="instance_id"), columns=llms)
    roles = make_instance_splits(inst, define_splits(inst["dataset"], {}), seed=1)["random"]
    return SplitData("random", emb, succ, roles, LLMS)


def _nref(data, reuse):
    return run_nref(
        data,
        SWEEP,
        list(CFG.generic_features),
        seed=3,
        classifier="xgboost_bins16",
        max_train_rows=CFG.max_train_rows,
        reuse=reuse,
    )


def test_reused_sweep_point_is_byte_identical_and_not_refitted(tmp_path, monkeypatch):
    data = _data()
    res, refs = run_split(data, CFG, seed=3)
    res.to_csv(tmp_path / "run.csv.gz", index=False, compression="gzip")
    (tmp_path / "refs.json").write_text(json.dumps(refs, indent=1, sort_keys=True))

    fits = []
    real = assessors.fit_predict

    def counting(*a, **k):
        fits.append(a[0])
        return real(*a, **k)

    import evalsci.studies.assessors.experiment as experiment

    monkeypatch.setattr(experiment, "fit_predict", counting)
    fresh = _nref(data, None)
    n_fresh = len(fits)
    reuse = SplitRunRows.read(
        tmp_path / "run.csv.gz", tmp_path / "refs.json", CFG.n_ref, CFG.max_train_rows
    )
    reused = _nref(data, reuse)
    # one fit per feature set at n_ref = 10 is not repeated
    assert n_fresh == len(SWEEP) * 3 and len(fits) - n_fresh == 3
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    fresh.to_csv(a, index=False)
    reused.to_csv(b, index=False)
    assert set(fresh["n_ref"]) == set(SWEEP)
    assert a.read_bytes() == b.read_bytes()

    # Other references (or another row cap) than the run's: nothing is reused.
    refs["clustering_embeddings"] = refs["clustering_embeddings"][::-1]
    (tmp_path / "refs.json").write_text(json.dumps(refs))
    other = SplitRunRows.read(
        tmp_path / "run.csv.gz", tmp_path / "refs.json", CFG.n_ref, CFG.max_train_rows
    )
    fits.clear()
    _nref(data, other)
    assert len(fits) == len(SWEEP) * 3
    capped = SplitRunRows.read(tmp_path / "run.csv.gz", tmp_path / "refs.json", CFG.n_ref, 0)
    assert (
        capped.generic(
            10, "clustering_embeddings", "xgboost_bins16", ["embeddings"], [], CFG.max_train_rows
        )
        is None
    )
