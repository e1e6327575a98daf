"""Classifiers and the feature matrices of specific and generic assessors (Sections 3.1-3.2).

Classifier names (config `assessors.classifiers`):
- `logreg_l2_C<C>`: logistic regression, L2 penalty, lbfgs (the paper's `LogisticRegression()`
  is `logreg_l2_C1`);
- `logreg_l1_C<C>`: logistic regression, L1 penalty, liblinear (the paper: C = 1 and 0.1);
- `xgboost`: `XGBClassifier` with its defaults (100 trees, depth 6, 256 histogram bins),
  hist, seeded (the paper);
- `xgboost_bins<N>`: the same with N histogram bins per feature (the default grid uses 64:
  2.7x faster on the 384-dimensional embeddings, the CPU budget's main cost).

Generic-assessor instance features (`GENERIC_FEATURES`), each concatenated with the LLM's
success vector z on the reference instances:
- `embeddings`: the instance embedding (the paper's "Embeddings");
- `similarity`: cosine similarity of the instance to each reference instance (the paper's
  code uses the cosine *distance* 1 - similarity: an affine map of each column, so logistic
  regression and trees give the same predictions);
- `similarity_interaction`: similarity plus similarity_k x z_k for each reference k
  (the paper's "similarity with interaction", `interaction_terms="partial"`).
"""

from __future__ import annotations

import re

import numpy as np

__all__ = [
    "GENERIC_FEATURES",
    "PAPER_CLASSIFIERS",
    "make_classifier",
    "fit_predict",
    "fit_predict_shared",
    "splittable_columns",
    "auc",
    "instance_block",
    "generic_matrix",
]

GENERIC_FEATURES = ("embeddings", "similarity", "similarity_interaction")
# The four classifiers of the authors' `predictive_method_list`.
PAPER_CLASSIFIERS = ("logreg_l2_C1", "logreg_l1_C1", "logreg_l1_C0.1", "xgboost")

_LOGREG = re.compile(r"^logreg_(l1|l2)_C([0-9.eE+-]+)$")
_XGBOOST = re.compile(r"^xgboost(?:_bins([1-9][0-9]*))?$")


def make_classifier(name: str, seed: int = 0, threads: int = 1):
    """A fresh scikit-learn compatible classifier for `name`."""
    m = _LOGREG.match(name)
    if m:
        from sklearn.linear_model import LogisticRegression

        c = float(m.group(2))
        if m.group(1) == "l1":
            return LogisticRegression(l1_ratio=1.0, solver="liblinear", C=c, random_state=seed)
        return LogisticRegression(l1_ratio=0.0, C=c, max_iter=1000)
    m = _XGBOOST.match(name)
    if m:
        from xgboost import XGBClassifier

        bins = {"max_bin": int(m.group(1))} if m.group(1) else {}
        return XGBClassifier(
            tree_method="hist", n_jobs=threads, random_state=seed, verbosity=0, **bins
        )
    raise ValueError(
        f"unknown classifier {name!r}; use logreg_l1_C<C>, logreg_l2_C<C>, xgboost "
        "or xgboost_bins<N>"
    )


def fit_predict(
    name: str, x_train, y_train: np.ndarray, x_eval: list, seed: int = 0, threads: int = 1
) -> list[np.ndarray]:
    """Fit `name` on (x_train, y_train); P(success) for each matrix in `x_eval`.

    With a single label in y_train no classifier can be fitted; every prediction is then that
    label's constant (AUC 0.5), as an assessor that has seen only successes would say.
    """
    y_train = np.asarray(y_train).astype(int)
    if y_train.min() == y_train.max():
        return [np.full(x.shape[0], float(y_train[0])) for x in x_eval]
    clf = make_classifier(name, seed=seed, threads=threads)
    clf.fit(x_train, y_train)
    return [clf.predict_proba(x)[:, 1] for x in x_eval]


def fit_predict_shared(
    name: str, x_train, jobs: list[tuple[np.ndarray, list]], seed: int = 0, threads: int = 1
) -> list[list[np.ndarray]]:
    """`fit_predict(name, x_train, y, x_eval)` for each (y, x_eval) of `jobs`: one model per
    label vector on the same training matrix (the baselines fit one per LLM).

    The same predictions, bit for bit, as separate `fit_predict` calls
    (tests/test_assessors_speed.py); for XGBoost the histogram-binned training matrix (its
    QuantileDMatrix, which depends on the features only, not the labels) is built once and
    relabelled instead of once per model: about a tenth of a fit. A sparse matrix's columns
    that no tree can split on are left out (`splittable_columns`).
    """
    if not _XGBOOST.match(name):
        return [
            fit_predict(name, x_train, y, x_eval, seed=seed, threads=threads) for y, x_eval in jobs
        ]
    clf = make_classifier(name, seed=seed, threads=threads)
    shared = _SharedTrainMatrix(type(clf))(**clf.get_params())
    cols = splittable_columns(x_train, clf.get_params().get("min_child_weight"))
    if cols is not None:
        x_train = x_train[:, cols]
    out = []
    for y, x_eval in jobs:
        y = np.asarray(y).astype(int)
        if y.min() == y.max():
            out.append([np.full(x.shape[0], float(y[0])) for x in x_eval])
            continue
        shared.fit(x_train, y)
        out.append([shared.predict_proba(x if cols is None else x[:, cols])[:, 1] for x in x_eval])
    return out


def splittable_columns(x, min_child_weight: float | None) -> np.ndarray | None:
    """For a sparse training matrix: the columns XGBoost's logistic trees can split on, or None
    when that is every column (or x is dense).

    XGBoost reads the absent entries of a sparse matrix as missing, and a split sends the
    missing rows one way, so one child holds present entries only. A child needs a hessian sum
    of at least min_child_weight (default 1), and a logistic hessian p(1 - p) is at most 1/4:
    a column with fewer than 4 present entries can never be split on, in any node of any tree.
    Dropping those columns gives the same trees and predictions, bit for bit
    (tests/test_assessors_speed.py), and fewer features to scan: the specific assessors' unigram
    TF-IDF keeps ~4,300 of ~7,700 columns, and its XGBoost fits take a fifth less time.
    """
    from scipy import sparse

    if not sparse.issparse(x):
        return None
    mcw = 1.0 if min_child_weight is None else float(min_child_weight)
    need = int(np.ceil(mcw / 0.25)) if mcw > 0 else 0
    present = np.diff(sparse.csc_matrix(x).indptr)
    cols = np.flatnonzero(present >= need)
    return None if len(cols) == x.shape[1] else cols


def _SharedTrainMatrix(base):
    """`base` (XGBClassifier) whose fit reuses the training DMatrix of its first fit, with the
    new labels set: valid only while every fit gets the same X (the caller's contract)."""

    class SharedTrainMatrix(base):
        _train_matrix = None

        def _create_dmatrix(self, ref, **kwargs):
            if ref is not None:  # an evaluation matrix binned like the training one
                return super()._create_dmatrix(ref, **kwargs)
            if self._train_matrix is None:
                self._train_matrix = super()._create_dmatrix(ref, **kwargs)
            else:
                self._train_matrix.set_label(kwargs["label"])
            return self._train_matrix

    return SharedTrainMatrix


def auc(y: np.ndarray, p: np.ndarray) -> float:
    """ROC AUC of probabilities; NaN when y has a single label.

    `roc_auc_score` of a binary y is `auc(*roc_curve(y, p)[:2])` after label checks that cost
    more than the AUC itself (~1.5 ms a call, thousands of calls per split): calling the two
    public functions directly gives the same float (tests/test_assessors_speed.py).
    """
    from sklearn.metrics import auc as area
    from sklearn.metrics import roc_curve

    y = np.asarray(y).astype(int)
    if y.min() == y.max():
        return float("nan")
    fpr, tpr, _ = roc_curve(y, p)
    return float(area(fpr, tpr))


def instance_block(kind: str, emb: np.ndarray, emb_ref: np.ndarray) -> np.ndarray:
    """The LLM-independent part of the generic features for instances `emb`."""
    if kind == "embeddings":
        return emb
    if kind in ("similarity", "similarity_interaction"):
        return emb @ emb_ref.T  # embeddings are L2-normalised: cosine similarity
    raise ValueError(f"unknown generic features {kind!r}; known {GENERIC_FEATURES}")


def generic_matrix(
    kind: str, block: np.ndarray, z_ref: np.ndarray, rows: np.ndarray | None = None
) -> np.ndarray:
    """Rows (LLM l, instance i), LLM-major: [block_i, z_l] (+ block_i * z_l for interaction).

    `block` is n x k (from `instance_block`), `z_ref` is L x r (each LLM's success on the r
    reference instances); the result has L * n rows, or only `rows` of them (positions
    l * n + i, as `tall_rows` gives): the same values as taking those rows of the whole
    matrix, without building it (the generic assessors keep 6,000 of up to 60,000 rows).
    """
    z_ref = np.atleast_2d(np.asarray(z_ref, dtype=np.float32))
    n, n_llm = block.shape[0], z_ref.shape[0]
    if rows is None:
        parts = [np.tile(block.astype(np.float32), (n_llm, 1)), np.repeat(z_ref, n, axis=0)]
    else:
        parts = [block[rows % n].astype(np.float32), z_ref[rows // n]]
    if kind == "similarity_interaction":
        parts.append(parts[0] * parts[1])
    return np.hstack(parts)
