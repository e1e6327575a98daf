"""tinyBenchmarks' accuracy estimators, reimplemented (Maia Polo et al., "tinyBenchmarks:
evaluating LLMs with fewer examples", ICML 2024, PMLR 235; arXiv:2402.14992).

The paper estimates a model's accuracy on a benchmark of N items from its 0/1 outcomes on n
anchor items. Its pieces, each with the authors' code it follows (github.com/felipemaiapolo/
tinyBenchmarks at e9a8b10; the paper's text is not in this project's offline library, so the
section names below are the paper's and the formulas are checked against the authors' code):

- **The IRT model** (paper Section 4, "IRT"): a multidimensional 2PL,
  P(Y_il = 1) = sigmoid(theta_l . alpha_i - beta_i), d = 10. The authors fit it with their
  py-irt fork (`tutorials/irt.py`: `py-irt train multidim_2pl --dims D --priors hierarchical`,
  SVI, 2000 epochs); we reuse `evalsci.stats.irt.fit_mirt_2pl`: the same model, fitted to its
  maximum a posteriori point under Normal priors by L-BFGS (deterministic for a seed, no pyro).
  So item parameters differ from an SVI posterior mean by the prior and the optimiser, not by
  the model.
- **Anchor points** (paper Section 3, "anchor points" by clustering IRT embeddings;
  `tutorials/anchor_points.ipynb`): KMeans with n clusters on the items' [alpha_i, beta_i];
  the anchor of a cluster is the item nearest its centroid, weighted by its cluster's share of
  the items (`anchor_points`). Their code weighs items by balance weights; we weigh every item
  the same (the assessors authors' copy does too).
- **The ability of a new model** (`tinyBenchmarks/__init__.py: fit_theta`,
  `tutorials/irt.py: estimate_ability_parameters`): theta maximising the Bernoulli likelihood
  of its anchor outcomes with the item parameters fixed, BFGS from 0, logits clipped at +-30
  (`fit_ability`; no prior, as theirs).
- **The IRT estimator** ("IRT" in their tables; `evaluate`'s `IRT`): the anchor-weighted sum
  sum_i w_i Y_il (`anchor_estimate`).
- **p-IRT** (paper Section 4, the performance-IRT estimator; `evaluate`'s `IRTp` and
  `estimating_performance.ipynb`):
      Z_pIRT = lambda_hat * mean_{i in anchors} Y_il
               + (1 - lambda_hat) * mean_{i not in anchors} p_hat_il,   lambda_hat = n / N,
  with p_hat_il = sigmoid(theta_hat_l . alpha_i - beta_i) (`p_irt`).
- **gp-IRT** (paper Section 4, the generalised p-IRT estimator; `evaluate`'s `IRTpp`):
      Z_gpIRT = lambda * Z_anchor + (1 - lambda) * Z_pIRT        (`gp_irt`),
  with lambda from the paper's bias-variance heuristic as `tutorials/training_irt.ipynb` codes
  it (`get_lambda(b, v) = b^2 / (v + b^2)` called with v = mean_l Var_i(Y_il) / (4 n)):
      lambda = b^2 / (b^2 + v / (4 n))                            (`gp_irt_lambda`),
  where v is the training models' mean per-model variance of outcomes and b the IRT
  prediction's mean absolute error on validation models (`validation_bias`: every 5th
  training model held out of an IRT fit, its ability fitted on the even items, the error of
  its accuracy predicted on the odd items, as the notebook does).

Checked against independent computations in tests/test_tinybench.py (no number of theirs is
reachable offline: their shipped IRT parameters and leaderboard data are Git LFS objects).
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

__all__ = [
    "IRT_DIMS",
    "ItemParams",
    "fit_items",
    "anchor_points",
    "fit_ability",
    "item_curve",
    "anchor_estimate",
    "p_irt",
    "gp_irt",
    "gp_irt_lambda",
    "validation_bias",
    "TinyBenchmarks",
]

IRT_DIMS = 10  # the authors' d (training_irt.ipynb chose 10 of {5, 10}); capped at models - 1
LOGIT_CLIP = 30.0  # their item_curve clips each logit term at +-30


@dataclass
class ItemParams:
    disc: np.ndarray  # items x d (alpha)
    diff: np.ndarray  # items (beta)

    def features(self) -> np.ndarray:
        """[alpha, beta] per item: what the anchor points cluster (rounded like the IRT
        selectors' features, so equal items tie exactly on every CPU)."""
        from evalsci.stats.irt import item_features

        return item_features(self)


# fit_items' recent fits, by (the matrix's shape and bytes, dims, seed): the fit is
# deterministic, and `evalsci reference`'s stack fits the same known models as tinyBenchmarks
# in the leave-one-model-out study, and the same calibration sets for every n of a fold
_FITS: OrderedDict = OrderedDict()
_FITS_KEPT = 64


def fit_items(y: np.ndarray, dims: int = IRT_DIMS, seed: int = 0) -> ItemParams:
    """Item parameters of the MIRT 2PL fitted to the models x items 0/1 matrix `y` (read-only
    arrays: a recent fit of the same matrix is returned again)."""
    from evalsci.stats.irt import fit_mirt_2pl

    y = np.ascontiguousarray(y, dtype=np.float64)
    dims = max(1, min(dims, y.shape[0] - 1))
    key = (y.shape, hashlib.sha256(y.tobytes()).hexdigest(), dims, seed)
    if key in _FITS:
        _FITS.move_to_end(key)
        return _FITS[key]
    fit = fit_mirt_2pl(y, dims=dims, seed=seed)
    for a in (fit.disc, fit.diff):
        a.flags.writeable = False
    _FITS[key] = ItemParams(fit.disc, fit.diff)
    if len(_FITS) > _FITS_KEPT:
        _FITS.popitem(last=False)
    return _FITS[key]


def anchor_points(x: np.ndarray, k: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """tinyBenchmarks' anchor points: KMeans(k) on the item features `x`; the item nearest
    each centroid (distinct items), weighted by its cluster's share of the items. Returns
    (positions sorted, weights summing to 1)."""
    import warnings

    from sklearn.cluster import KMeans

    from .selectors import _nearest_unique

    k = min(k, len(x))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # fewer distinct points than clusters
        km = KMeans(n_clusters=k, n_init="auto", random_state=seed).fit(x)
    pick = _nearest_unique(np.asarray(x, dtype=np.float64), km.cluster_centers_)
    w = np.bincount(km.labels_, minlength=k) / len(x)
    order = np.argsort(pick, kind="stable")
    return pick[order], w[order]


def item_curve(theta: np.ndarray, items: ItemParams) -> np.ndarray:
    """P(success) of ability theta (d) on each item: sigmoid(theta . alpha - beta), the logit
    clipped at +-30 (their `item_curve` clips per dimension, in their fork's parametrisation)."""
    z = np.clip(items.disc @ theta - items.diff, -LOGIT_CLIP, LOGIT_CLIP)
    return 1.0 / (1.0 + np.exp(-z))


def fit_ability(outcomes: np.ndarray, items: ItemParams) -> np.ndarray:
    """theta maximising the Bernoulli likelihood of `outcomes` (0/1 on `items`), BFGS from 0
    with their eps = 1e-10 inside the logs (`fit_theta`)."""
    from scipy.optimize import minimize

    y = np.asarray(outcomes, dtype=float)
    eps = 1e-10

    def nll(theta):
        p = item_curve(theta, items)
        return -np.sum(y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps))

    def grad(theta):
        p = item_curve(theta, items)
        # d nll / d theta, ignoring eps (1e-10) and the clip's flat region
        return items.disc.T @ (p - y)

    d = items.disc.shape[1]
    return minimize(nll, np.zeros(d), jac=grad, method="BFGS").x


def anchor_estimate(outcomes: np.ndarray, weights: np.ndarray) -> float:
    """The IRT (anchor-points) estimator: sum_i w_i Y_i."""
    return float(np.dot(weights, outcomes))


def p_irt(outcomes: np.ndarray, p_rest: np.ndarray, n_total: int) -> float:
    """p-IRT: lambda_hat mean(anchor outcomes) + (1 - lambda_hat) mean(IRT P on the other
    items), lambda_hat = n / N."""
    n = len(outcomes)
    lam = n / n_total
    rest = float(np.mean(p_rest)) if len(p_rest) else 0.0
    return lam * float(np.mean(outcomes)) + (1 - lam) * rest


def gp_irt(anchor: float, pirt: float, lam: float) -> float:
    """gp-IRT: lambda Z_anchor + (1 - lambda) Z_pIRT."""
    return lam * anchor + (1 - lam) * pirt


def gp_irt_lambda(b: float, v: float, n: int) -> float:
    """lambda = b^2 / (b^2 + v / (4 n)) (training_irt.ipynb: get_lambda(b, v / (4 n)))."""
    return b**2 / (b**2 + v / (4 * n))


def validation_bias(y: np.ndarray, dims: int = IRT_DIMS, seed: int = 0) -> float:
    """b of gp_irt_lambda: hold out every 5th model of `y` (models x items), fit the IRT on the
    rest, fit each held-out model's ability on the even items and average |IRT accuracy on the
    odd items - its true accuracy there| (training_irt.ipynb's `errors2`)."""
    val = np.arange(0, y.shape[0], 5)
    train = np.setdiff1d(np.arange(y.shape[0]), val)
    if len(train) < 2 or y.shape[1] < 2:
        raise ValueError(f"validation_bias needs at least 3 models and 2 items; got {y.shape}")
    items = fit_items(y[train], dims, seed)
    even, odd = np.arange(0, y.shape[1], 2), np.arange(1, y.shape[1], 2)
    seen = ItemParams(items.disc[even], items.diff[even])
    unseen = ItemParams(items.disc[odd], items.diff[odd])
    errs = [
        abs(item_curve(fit_ability(y[j, even], seen), unseen).mean() - y[j, odd].mean())
        for j in val
    ]
    return float(np.mean(errs))


@dataclass
class TinyBenchmarks:
    """tinyBenchmarks fitted on known models: item parameters, anchors and gp-IRT's lambda.

    `fit(y, n)` on the models x items 0/1 matrix y; `estimate(outcomes)` on a new model's
    outcomes on the anchors gives its three estimates and the IRT P(success) of every item."""

    items: ItemParams
    anchors: np.ndarray  # positions
    weights: np.ndarray
    lam: float  # gp-IRT's lambda

    @classmethod
    def fit(cls, y: np.ndarray, n: int, dims: int = IRT_DIMS, seed: int = 0) -> TinyBenchmarks:
        return cls.fit_grid(y, [n], dims, seed)[n]

    @classmethod
    def fit_grid(
        cls, y: np.ndarray, ns, dims: int = IRT_DIMS, seed: int = 0
    ) -> dict[int, TinyBenchmarks]:
        """`fit(y, n)` for each n of `ns`: the IRT fits (items, and b's validation fit) do
        not depend on n and are made once."""
        y = np.asarray(y, dtype=float)
        items = fit_items(y, dims, seed)
        v = float(np.var(y, axis=1).mean())
        b = validation_bias(y, dims, seed)
        out = {}
        for n in ns:
            anchors, weights = anchor_points(items.features(), n, seed)
            out[n] = cls(items, anchors, weights, gp_irt_lambda(b, v, len(anchors)))
        return out

    def estimate(self, outcomes: np.ndarray) -> dict:
        """{'irt', 'pirt', 'gpirt'} accuracy estimates and 'p' (P(success) of every item,
        the anchors' own outcomes in their place) for a model's anchor `outcomes`."""
        z = np.asarray(outcomes, dtype=float)
        seen = ItemParams(self.items.disc[self.anchors], self.items.diff[self.anchors])
        p = item_curve(fit_ability(z, seen), self.items)
        rest = np.ones(len(p), dtype=bool)
        rest[self.anchors] = False
        anchor = anchor_estimate(z, self.weights)
        pirt = p_irt(z, p[rest], len(p))
        p_all = p.copy()
        p_all[self.anchors] = z
        return {
            "irt": anchor,
            "pirt": pirt,
            "gpirt": gp_irt(anchor, pirt, self.lam),
            "p": p_all,
        }
