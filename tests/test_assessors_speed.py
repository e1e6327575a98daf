"""The assessors' CPU shortcuts give the same bits as the plain calls they replace (issue 15).

- `auc` calls `roc_curve` + `auc` directly instead of `roc_auc_score` (which adds label
  checks): the same float for probabilities, hard 0/1 predictions, ties and float32 scores;
- `fit_predict_shared` bins XGBoost's training matrix once for several label vectors: the same
  predictions as one `fit_predict` per label vector, dense and sparse (TF-IDF) alike.
- `torch_pinned` sets torch's deterministic flag without importing torch._inductor.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import sparse
from sklearn.metrics import roc_auc_score

from evalsci.assess.classifiers import auc, fit_predict, fit_predict_shared


def test_auc_is_bit_identical_to_roc_auc_score():
    rng = np.random.default_rng(0)
    for trial in range(300):
        n = int(rng.integers(2, 400))
        y = (rng.random(n) < rng.uniform(0.05, 0.95)).astype(int)
        if y.min() == y.max():
            assert np.isnan(auc(y, rng.random(n)))
            continue
        kind = trial % 4
        if kind == 0:
            p = rng.random(n)  # distinct probabilities
        elif kind == 1:
            p = rng.integers(0, 2, n)  # hard predictions
        elif kind == 2:
            p = np.round(rng.random(n), 1)  # many ties
        else:
            p = rng.random(n).astype(np.float32)  # XGBoost's float32
        assert auc(y, p) == roc_auc_score(y, p), (trial, n)


@pytest.mark.parametrize("name", ["xgboost_bins16", "xgboost", "logreg_l2_C1"])
@pytest.mark.parametrize("kind", ["dense", "sparse"])
def test_shared_training_matrix_gives_the_same_predictions(name, kind):
    pytest.importorskip("xgboost")
    rng = np.random.default_rng(1)
    x = rng.normal(size=(150, 12)).astype(np.float32)
    if kind == "sparse":  # TF-IDF-like: XGBoost treats the absent entries as missing
        x = sparse.csr_matrix(np.where(rng.random(x.shape) < 0.7, 0, np.abs(x)))
    x_eval = [x[:40], rng.normal(size=(30, 12)).astype(np.float32)]
    if kind == "sparse":
        x_eval = [x[:40], sparse.csr_matrix(np.abs(x_eval[1]))]
    w = rng.normal(size=12)
    ys = [((x @ w) + rng.normal(scale=s, size=150) > 0).astype(int) for s in (0.3, 1.0, 3.0)]
    ys.append(np.ones(150, dtype=int))  # one label only: the constant prediction
    ys.append(ys[0])  # a repeat after the constant one
    shared = fit_predict_shared(name, x, [(y, x_eval) for y in ys], seed=3)
    for y, got in zip(ys, shared, strict=True):
        want = fit_predict(name, x, y, x_eval, seed=3)
        assert len(got) == len(want)
        for g, w_ in zip(got, want, strict=True):
            np.testing.assert_array_equal(g, w_)
    # different label vectors did give different models (the labels were really reset)
    assert not np.array_equal(shared[0][1], shared[2][1])


def test_torch_pinned_sets_the_flag_without_importing_inductor():
    """`torch_pinned` (IRT fit, embeddings) turns deterministic kernels on and restores the
    previous state, without the 1.4-1.8 CPU-s import of torch._inductor that
    `torch.use_deterministic_algorithms` does first."""
    import subprocess
    import sys

    pytest.importorskip("torch")
    code = """
import sys, torch
from evalsci.pipeline.determinism import torch_pinned
assert not torch.are_deterministic_algorithms_enabled()
with torch_pinned(1):
    assert torch.are_deterministic_algorithms_enabled()
    assert not torch.is_deterministic_algorithms_warn_only_enabled()
    assert torch.get_num_threads() == 1
assert not torch.are_deterministic_algorithms_enabled()
print('torch._inductor' in sys.modules)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("kind", ["embeddings", "similarity", "similarity_interaction"])
def test_generic_matrix_of_kept_rows_is_those_rows_of_the_whole_matrix(kind):
    from evalsci.assess.classifiers import generic_matrix, instance_block
    from evalsci.studies.assessors.experiment import tall_rows

    rng = np.random.default_rng(3)
    emb = rng.normal(size=(40, 8))
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    block = instance_block(kind, emb, emb[[1, 5, 7]])
    z = rng.integers(0, 2, size=(6, 3))
    keep = tall_rows(6, 40, 100, seed=1)  # 16 random instances per LLM
    whole = generic_matrix(kind, block, z)
    kept = generic_matrix(kind, block, z, rows=keep)
    assert kept.dtype == whole.dtype == np.float32
    np.testing.assert_array_equal(kept, whole[keep])
    np.testing.assert_array_equal(generic_matrix(kind, block, z, rows=None), whole)


@pytest.mark.parametrize("name", ["xgboost_bins64", "xgboost"])
def test_unsplittable_sparse_columns_are_dropped_without_changing_predictions(name):
    """Unigram TF-IDF of Zipf-distributed words: most columns are present in a few documents
    only. The columns with fewer than 4 present entries are left out, and the predictions are
    bit for bit those of XGBoost on the whole matrix."""
    pytest.importorskip("xgboost")
    from evalsci.assess.classifiers import make_classifier, splittable_columns
    from evalsci.studies.assessors.features import ngram_features

    rng = np.random.default_rng(5)
    vocab = np.array([f"w{i}" for i in range(3000)])
    zipf = 1.0 / np.arange(1, 3001)
    docs = [
        " ".join(rng.choice(vocab, size=int(rng.integers(5, 60)), p=zipf / zipf.sum()))
        for _ in range(420)
    ]
    x_tr, x_va, x_te = ngram_features(docs[:300], docs[300:360], docs[360:])
    cols = splittable_columns(x_tr, None)
    assert cols is not None and 0 < len(cols) < x_tr.shape[1] // 2
    assert splittable_columns(x_tr.toarray(), None) is None  # dense: every column is kept
    assert splittable_columns(x_tr, 0.0) is None  # min_child_weight 0: all kept
    # labels that depend on frequent and on rare words
    w = rng.normal(size=x_tr.shape[1])
    ys = [
        (np.asarray(x @ w).ravel() + rng.normal(scale=s, size=300) > 0).astype(int)
        for x, s in ((x_tr, 0.1), (x_tr, 1.0))
    ]
    shared = fit_predict_shared(name, x_tr, [(y, [x_va, x_te]) for y in ys], seed=2)
    for y, got in zip(ys, shared, strict=True):
        clf = make_classifier(name, seed=2).fit(x_tr, y)  # all columns
        for g, x in zip(got, (x_va, x_te), strict=True):
            np.testing.assert_array_equal(g, clf.predict_proba(x)[:, 1])
