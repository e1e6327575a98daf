"""Reference-instance selectors (Section 3.2.1 of the paper).

Every selector sees only the training instances (their features) and, where it needs success,
the training LLMs' success on them; it returns positions into the training instances.

- `select_random`: a uniform draw, redrawn (up to 100 times) until every training LLM has both
  a success and a failure in it (the authors' `random`);
- `select_random_best_of`: split the training instances 70/30, draw `n_draws` random subsets
  of the 70 % part, fit per training LLM a logistic regression on the subset's features and
  score it on the 30 % part; keep the subset with the best mean AUC. Like the authors, the AUC
  is of hard predictions (`predict`), not probabilities;
- `select_kmeans`: KMeans with `n_ref` clusters; the instance nearest each centroid;
- `select_factor_analysis`: factor analysis with the number of factors = number of eigenvalues
  of the feature correlation matrix larger than 1 (capped), refitted with varimax rotation; for
  each factor the instances with the largest |score| not yet taken, `n_ref // l` per factor
  and the remainder spread over the first factors (footnote 6).

Ties between instances are broken by index, not by float noise: distances to a centroid and
factor scores are rounded (`DIST_DECIMALS`, `SCORE_DECIMALS`) before they are ranked, so
instances with equal features (duplicate prompts, equal success vectors, equal IRT
parameters) tie exactly on every CPU and the lowest training position wins (stable sort).

Each clustering/FA selector runs on one of three feature sets (see `SELECTORS`): instance
embeddings, the training LLMs' success vectors, or IRT item parameters [a, b].
"""

from __future__ import annotations

import warnings

import numpy as np

__all__ = [
    "SELECTORS",
    "select_random",
    "select_random_best_of",
    "select_kmeans",
    "select_factor_analysis",
    "n_factors_kaiser",
]

# name -> (method, feature set); the 8 selectors of the paper's Figure 2.
SELECTORS: dict[str, tuple[str, str | None]] = {
    "random": ("random", None),
    "random_best_of": ("random_best_of", "embeddings"),
    "clustering_embeddings": ("kmeans", "embeddings"),
    "clustering_success": ("kmeans", "success"),
    "clustering_irt": ("kmeans", "irt"),
    "factor_analysis_embeddings": ("factor_analysis", "embeddings"),
    "factor_analysis_success": ("factor_analysis", "success"),
    "factor_analysis_irt": ("factor_analysis", "irt"),
}


# Decimals kept when ranking squared distances (float32 embeddings: noise ~1e-7 across CPUs)
# and |factor scores| (float64 SVD: noise ~1e-12).
DIST_DECIMALS = 6
SCORE_DECIMALS = 8


def _both_labels(z: np.ndarray) -> bool:
    """True if every column (LLM) of the 0/1 matrix has both a 0 and a 1."""
    return bool(np.all(z.min(axis=0) == 0) and np.all(z.max(axis=0) == 1))


def select_random(
    n_items: int, n_ref: int, success: np.ndarray, rng: np.random.Generator, max_tries: int = 100
) -> np.ndarray:
    """A random subset in which every training LLM has both labels (if one is found)."""
    n_ref = min(n_ref, n_items)
    pick = rng.choice(n_items, size=n_ref, replace=False)
    for _ in range(max_tries - 1):
        if _both_labels(success[pick]):
            break
        pick = rng.choice(n_items, size=n_ref, replace=False)
    return np.sort(pick)


def select_random_best_of(
    features: np.ndarray,
    success: np.ndarray,
    n_ref: int,
    rng: np.random.Generator,
    n_draws: int = 20,
    holdout: float = 0.3,
) -> np.ndarray:
    """The best of `n_draws` random subsets, scored by hard-label AUC on a 30 % holdout."""
    from sklearn.linear_model import LogisticRegression

    from .classifiers import auc  # roc_auc_score without its per-call label checks

    n = len(features)
    perm = rng.permutation(n)
    n_hold = int(round(holdout * n))
    hold, pool = perm[:n_hold], perm[n_hold:]
    best, best_score = None, -np.inf
    for _ in range(n_draws):
        sub = pool[select_random(len(pool), n_ref, success[pool], rng)]
        scores = []
        for j in range(success.shape[1]):
            y = success[sub, j]
            yh = success[hold, j]
            if y.min() == y.max() or yh.min() == yh.max():
                continue  # no classifier or no AUC for this LLM on this draw
            clf = LogisticRegression(max_iter=1000).fit(features[sub], y)
            scores.append(auc(yh, clf.predict(features[hold])))
        score = float(np.mean(scores)) if scores else 0.5
        if score > best_score:
            best, best_score = sub, score
    return np.sort(best)


def _nearest_unique(features: np.ndarray, centers: np.ndarray) -> np.ndarray:
    """For each center, the nearest instance not already taken by an earlier center."""
    d = np.round(_sq_dists(features, centers), DIST_DECIMALS)
    taken: set[int] = set()
    out = []
    for c in range(centers.shape[0]):
        for i in np.argsort(d[:, c], kind="stable"):
            if int(i) not in taken:
                taken.add(int(i))
                out.append(int(i))
                break
    return np.array(out, dtype=int)


def _sq_dists(x: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Squared Euclidean distances, n x k, without an n x k x d intermediate."""
    return (x**2).sum(1)[:, None] - 2 * x @ c.T + (c**2).sum(1)[None, :]


def select_kmeans(features: np.ndarray, n_ref: int, seed: int) -> np.ndarray:
    """KMeans(n_clusters=n_ref); the instance nearest each centroid (distinct instances).

    With binary success vectors many instances coincide and KMeans may find fewer distinct
    clusters than asked: the nearest *untaken* instance of each centroid still gives n_ref picks.
    """
    from sklearn.cluster import KMeans

    n_ref = min(n_ref, len(features))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "fewer distinct clusters than n_clusters"
        km = KMeans(n_clusters=n_ref, n_init="auto", random_state=seed).fit(features)
    return np.sort(_nearest_unique(np.asarray(features, dtype=np.float64), km.cluster_centers_))


def n_factors_kaiser(features: np.ndarray, max_factors: int = 30) -> int:
    """Number of eigenvalues of the correlation matrix larger than 1 (Kaiser), in [1, max]."""
    x = np.asarray(features, dtype=np.float64)
    x = x[:, x.std(axis=0) > 0]
    if x.shape[1] < 2:
        return 1
    eig = np.linalg.eigvalsh(np.corrcoef(x, rowvar=False))
    return int(np.clip((eig > 1).sum(), 1, min(max_factors, x.shape[1])))


def select_factor_analysis(
    features: np.ndarray, n_ref: int, seed: int, max_factors: int = 30
) -> np.ndarray:
    """Factor analysis with varimax; top-|score| instances spread evenly across factors."""
    from sklearn.decomposition import FactorAnalysis

    x = np.asarray(features, dtype=np.float64)
    x = x[:, x.std(axis=0) > 0]  # constant columns (e.g. an LLM failing everything) carry nothing
    n_ref = min(n_ref, len(x))
    if x.shape[1] == 0:
        return np.arange(n_ref)
    x = (x - x.mean(axis=0)) / x.std(axis=0)
    n_f = n_factors_kaiser(x, max_factors)
    fa = FactorAnalysis(
        n_components=n_f, rotation="varimax" if n_f > 1 else None, random_state=seed
    )
    h = np.round(np.abs(fa.fit_transform(x)), SCORE_DECIMALS)
    per = [n_ref // n_f + (1 if k < n_ref % n_f else 0) for k in range(n_f)]
    taken: list[int] = []
    chosen = np.zeros(len(x), dtype=bool)
    for k in range(n_f):
        order = np.argsort(-h[:, k], kind="stable")
        got = 0
        for i in order:
            if got == per[k]:
                break
            if not chosen[i]:
                chosen[i] = True
                taken.append(int(i))
                got += 1
    return np.sort(np.array(taken, dtype=int))
