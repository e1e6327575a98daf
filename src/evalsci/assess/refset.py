"""Reference items from anyone's per-item results, and a new model's accuracy predicted from them.

`select_reference(matrix, n, selector)`: n reference items, spread over the tasks in
proportion to their sizes (largest remainders, at least one per task), each task's share
chosen by a selector of the assessors paper (`evalsci.assess.selectors`) on the known models'
success, or by `tinybenchmarks_irt`: KMeans on the items' IRT parameters (`evalsci.stats.irt`)
with the nearest item to each centroid as anchor and the centroid's cluster share as its
weight (Polo et al., tinyBenchmarks, ICML 2024, Section 3.2 "IRT" anchor points).
Without instance text, the paper's three embedding selectors are not available.

`predict_new(matrix, reference, new)`: the generic assessor of the paper (Section 3.2),
success features only: a row (model l, item i) has features
    [z_l, s_i, z_l * s_i, d_i]
where z_l is the model's 0/1 success on the r reference items, s_ik the agreement of item i
with reference item k over the known models (the fraction of models that got both right or
both wrong: the stand-in for the paper's embedding similarity) and d_i the item's mean success;
for a training row of known model l, s and d are computed without model l (its own outcome
would leak the label). An L2 logistic regression (the paper's `LogisticRegression()`) is fitted
on up to `max_rows` training rows. The assessor's task accuracy estimate (estimator `assessor`)
is
    (sum of the observed reference outcomes + sum of predicted P(success) elsewhere) / n_task.
The default estimator, `stack`, weighs three estimates of the task's accuracy: the task's
(weighted) reference mean, the assessor's estimate above, and tinyBenchmarks' p-IRT (Maia Polo
et al. 2024, Section 4: the known models' MIRT 2PL items, the new model's ability fitted on its
reference outcomes; `evalsci.assess.tinybench`), by convex weights (>= 0, summing to 1) chosen
per task by least squares on the calibration models below (`stack_weights`: Breiman's stacked
regression, as gp-IRT weighs its anchor mean and p-IRT with a lambda chosen from known models).
`blend` weighs the first two only. Leaving models out, the assessor alone erred more than the
reference mean where the known models are few, and the blend more than gp-IRT on MuSR at 100
references (docs/reference.md). Without torch (the IRT fit's) the stack leaves p-IRT out, said
in the `note` column.
Its interval is split-conformal over models (Vovk et al. 2005; Lei et al. 2018, JASA 113,
"Distribution-free predictive inference for regression", Section 2.2, with the known models as
calibration set): each of K known models is held out in turn, the assessor refitted on the
others and the held-out model's accuracy estimated from its reference outcomes (for the stack
and the blend with weights chosen on the other calibration models); the half-width
is the ceil((K + 1)(1 - alpha))-th smallest |true - estimate| of the task, or, where larger,
the same quantile over the 9 calibration models nearest the new model in distance from the ends
of the known range (`extremeness`, `local_rank`; calibration always holds the
CALIBRATION_EXTREMES weakest and strongest known models). Near and beyond the ends the estimate
moves towards one anchored to the model's own overall reference mean (`placement`, `anchor`,
`anchor_gain`; issue 44, docs/notes/reference.md). If that rank
exceeds K (too few known models), the interval is [0, 1], said in the `note` column.
Coverage holds for a new model exchangeable with the known ones; the references were chosen
with the calibration models in, so it is somewhat optimistic (tested on real data:
tests/test_reference_cli.py).
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pandas as pd

from evalsci.audit.records import AuditInputError

from .responses import Matrix
from .selectors import SELECTORS as PAPER_SELECTORS

__all__ = ["SELECTORS", "DEFAULT_SELECTOR", "select_reference", "predict_new", "allocate"]

# selector -> (method, features): the paper's selectors (evalsci.assess.selectors) that need no
# instance text, and tinyBenchmarks' IRT anchors; the paper's embedding ones need the text
SELECTORS: dict[str, tuple[str, str | None]] = {
    **{n: v for n, v in PAPER_SELECTORS.items() if v[1] != "embeddings"},
    "tinybenchmarks_irt": ("anchor", "irt"),
}
NEEDS_TEXT = tuple(n for n, v in PAPER_SELECTORS.items() if v[1] == "embeddings")
# random references: their mean is unbiased, which the blend falls back on; clustering_success's
# centroid items were biased (leave-one-model-out, docs/notes/reference.md)
DEFAULT_SELECTOR = "random"
MIN_MODELS = 2  # every selector but random, and the assessor (one model: nothing to learn from)
IRT_DIMS = 10  # the paper's (and tinyBenchmarks') d, capped at models - 1


def _serial_blas(fn):
    """Run `fn` with one BLAS thread. Its matrices are small (5,000 x 301 for a fit): on 2 cores
    shared with other work, OpenBLAS's threads spent ~17 ms a matrix-vector product waiting for
    each other against 0.2-0.5 ms on one thread, and lbfgs's fit took 18 s instead of 0.2 s
    (benchmarks/reference_speed.py, docs/benchmarks/reference_speed.md)."""

    @functools.wraps(fn)
    def serial(*args, **kwargs):
        from threadpoolctl import threadpool_limits  # scikit-learn's own dependency

        with threadpool_limits(1, user_api="blas"):
            return fn(*args, **kwargs)

    return serial


def allocate(sizes: list[int], n: int) -> list[int]:
    """n split over tasks of `sizes` in proportion (largest remainders), at least 1 each."""
    total = sum(sizes)
    if n < len(sizes):
        raise AuditInputError(
            f"--n {n} is fewer than the {len(sizes)} tasks: every task needs a reference item"
        )
    if n > total:
        raise AuditInputError(f"--n {n} exceeds the {total} items the known models share")
    rest = n - len(sizes)
    quota = [rest * (s - 1) / (total - len(sizes)) if total > len(sizes) else 0 for s in sizes]
    base = [1 + math.floor(q) for q in quota]
    order = sorted(range(len(sizes)), key=lambda k: (-(quota[k] - math.floor(quota[k])), k))
    for k in order[: n - sum(base)]:
        base[k] += 1
    return base


def _irt_features(success: np.ndarray, seed: int) -> np.ndarray:
    try:
        import torch  # noqa: F401  (the IRT fit's optimiser)
    except ImportError:
        raise AuditInputError(
            "the IRT selectors fit the IRT model with torch, which this install lacks: "
            "pip install 'evalsci[lm]' (torch; its CPU wheel: README), or use --selector "
            "clustering_success"
        ) from None
    from evalsci.stats.irt import fit_mirt_2pl, item_features

    dims = max(1, min(IRT_DIMS, success.shape[0] - 1))
    return item_features(fit_mirt_2pl(success.astype(float), dims=dims, seed=seed))


@_serial_blas
def select_reference(
    m: Matrix, n: int, selector: str = DEFAULT_SELECTOR, seed: int = 0
) -> pd.DataFrame:
    """`task, item, weight` of the n reference items (weight: the item's share of its task
    for tinybenchmarks_irt, else 1 / the task's number of references)."""
    from evalsci.assess import selectors as sel

    if selector in NEEDS_TEXT:
        raise AuditInputError(
            f"selector {selector!r} needs instance embeddings, and per-item results hold no "
            f"instance text; use one of {sorted(SELECTORS)}"
        )
    if selector not in SELECTORS:
        raise AuditInputError(f"unknown selector {selector!r}; use one of {sorted(SELECTORS)}")
    method, feats = SELECTORS[selector]
    n_models = len(m.models)
    if method != "random" and n_models < MIN_MODELS:
        raise AuditInputError(
            f"selector {selector!r} needs results of at least {MIN_MODELS} models; got "
            f"{n_models} ({', '.join(m.models)})"
        )
    y = m.success.T  # items x models
    varying = y.min(axis=1) != y.max(axis=1)
    if feats and not varying.any():
        raise AuditInputError(
            f"selector {selector!r}: every item has the same outcome for every model (constant "
            "columns): success carries nothing to select by; use --selector random"
        )
    x = _irt_features(m.success, seed) if feats == "irt" else y.astype(np.float64)
    rng = np.random.default_rng(seed)
    tasks = m.items["task"].to_numpy()
    names = list(dict.fromkeys(tasks))
    shares = allocate([int((tasks == t).sum()) for t in names], n)
    rows = []
    for t, k in zip(names, shares, strict=True):
        pos = np.flatnonzero(tasks == t)
        w = np.full(k, 1.0 / k)
        if method == "random":
            # uniform, so that the references' mean is unbiased for any model: the paper's
            # select_random redraws until every known model has both outcomes among them,
            # which favours items the strongest known models fail (and the weakest pass), and
            # biased the mean of a new model beyond the known range (issue 44: -0.007 ± 0.002
            # on simulated 2PL models above every known one, tests/test_reference_range.py)
            pick = np.sort(rng.choice(len(pos), size=min(k, len(pos)), replace=False))
        elif method == "kmeans":
            pick = sel.select_kmeans(x[pos], k, seed)
        elif method == "factor_analysis":
            pick = sel.select_factor_analysis(x[pos], k, seed)
        else:
            pick, w = _anchors(x[pos], k, seed)
        for p, wi in zip(pick, w, strict=True):
            rows.append((t, m.items["item"].iloc[pos[p]], float(wi)))
    return pd.DataFrame(rows, columns=["task", "item", "weight"])


def _anchors(x: np.ndarray, k: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """tinyBenchmarks' anchor points (`evalsci.assess.tinybench.anchor_points`)."""
    from .tinybench import anchor_points

    return anchor_points(x, k, seed)


# ---------------------------------------------------------------------------------------------
# prediction


def _features(z: np.ndarray, agree: np.ndarray, diff: np.ndarray) -> np.ndarray:
    """Rows [z, s, z * s, d] for one model's reference outcomes z (r) and items' s (n x r)."""
    n = agree.shape[0]
    zz = np.broadcast_to(z.astype(np.float64), (n, z.size))
    return np.hstack([zz, agree, zz * agree, diff[:, None]], dtype=np.float64)


# Gradient tolerance of the Newton-Cholesky solve: its last step, quadratic, takes the max |gradient|
# from ~1e-5 to ~1e-10, so the per-item P(success) agree with an independent float64 Newton
# solve to 1e-8 (tests/test_reference_cli.py) whatever the BLAS or its threads.
SOLVER_TOL = 1e-8


def _logistic():
    """The paper's `LogisticRegression()` objective (L2, C = 1, intercept unpenalised), solved
    to its minimum instead of lbfgs's default stop.

    lbfgs stopped ~2e-5 above the minimum after ~200 iterations on the 301 collinear features
    (rank 298 on the benchmark), with per-item predictions up to 7e-3 from the minimiser's, and
    where it stopped depended on the BLAS threads' rounding. Newton-Cholesky reaches the minimum
    in ~5 steps (features x features Hessian: cheap at 301 columns); the objective is strictly
    convex (the L2 term), so that minimum is unique."""
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(C=1.0, solver="newton-cholesky", tol=SOLVER_TOL, max_iter=100)


def _training_rows(y: np.ndarray, ref: np.ndarray, rng, max_rows: int, groups: np.ndarray):
    """Training rows of the assessor on known models y (models x items): (x, labels, agreement,
    difficulty), the last two over all models, for predicting a new model. A row's agreement
    and difficulty leave out every known row of its group (`groups`: the model of each row;
    runs of one model share outcomes, so leaving out only the run itself leaks its label)."""
    n_models, n_items = y.shape
    rest = np.setdiff1d(np.arange(n_items), ref)
    yf = y.astype(np.float64)
    yr = yf[:, ref]
    agree_count = yf.T @ yr + (1 - yf).T @ (1 - yr)  # items x r: models agreeing
    total = yf.sum(axis=0)
    rows = rng.choice(n_models * len(rest), size=min(max_rows, n_models * len(rest)), replace=False)
    rows.sort()
    mod, it = rows // len(rest), rest[rows % len(rest)]
    x, lab = [], []
    for j in np.unique(mod):
        ii = it[mod == j]
        g = np.flatnonzero(groups == groups[j])
        gy, gr = yf[g][:, ii], yr[g]
        own = gy.T @ gr + (1 - gy).T @ (1 - gr)
        others = n_models - len(g)
        agree = (agree_count[ii] - own) / others
        diff = (total[ii] - gy.sum(axis=0)) / others
        x.append(_features(yr[j], agree, diff))
        lab.append(y[j, ii])
    x, lab = np.vstack(x), np.concatenate(lab).astype(int)
    return x, lab, agree_count / n_models, total / n_models


def _fit(y: np.ndarray, ref: np.ndarray, rng, max_rows: int, groups: np.ndarray):
    """The assessor fitted on known models y (models x items); returns (clf, const, agree, diff)
    with the all-model agreement and difficulty for predicting a new model, or clf None when the
    training labels are constant (the prediction is then that constant)."""
    x, lab, agree, diff = _training_rows(y, ref, rng, max_rows, groups)
    clf = _logistic().fit(x, lab) if lab.min() != lab.max() else None
    return clf, float(lab[0]), agree, diff


def _predict(fit, z: np.ndarray, n_items: int) -> np.ndarray:
    clf, const, agree, diff = fit
    if clf is None:
        return np.full(n_items, const)
    return clf.predict_proba(_features(z, agree, diff))[:, 1]


def _task_estimates(p: np.ndarray, tasks: np.ndarray, names: list[str]) -> np.ndarray:
    return np.array([p[tasks == t].mean() for t in names])


def _reference_means(
    z: np.ndarray, w: np.ndarray, ref_tasks: np.ndarray, names: list[str]
) -> np.ndarray:
    """Each task's weighted mean of the reference outcomes z (weights w within the task)."""
    return np.array(
        [np.dot(w[ref_tasks == t], z[ref_tasks == t]) / w[ref_tasks == t].sum() for t in names]
    )


def stack_weights(comps: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Per task, the convex weights w (w >= 0, sum 1) of the C component estimators minimising
    sum_j (sum_c w_c comps[j, task, c] - t_j)^2 over calibration models j: Breiman's stacked
    regression (Machine Learning 24, 1996, "Stacked regressions": least squares on held-out
    predictions, coefficients >= 0), with the coefficients also summing to 1, so the stack is
    a weighted average of the components, as gp-IRT's lambda and 1 - lambda (tinyBenchmarks).

    `comps`: K x tasks x C, `t`: K x tasks; returns tasks x C. Solved exactly: the objective is
    convex, so its minimum on the simplex is the minimum over the simplex's faces (supports) of
    the affine-constrained least squares on that face, among the solutions inside it (KKT
    system, min-norm where singular). Ties (components equal on every calibration model) go to
    the smaller support, first in component order: with the reference mean first, to the
    estimator that needs no known model."""
    from itertools import combinations

    k, n_tasks, n_comp = comps.shape
    supports = [s for size in range(1, n_comp + 1) for s in combinations(range(n_comp), size)]
    out = np.zeros((n_tasks, n_comp))
    for task in range(n_tasks):
        x, y = comps[:, task, :], t[:, task]
        best, best_sse = None, np.inf
        for s in supports:
            xs = x[:, s]
            q = len(s)
            kkt = np.zeros((q + 1, q + 1))
            kkt[:q, :q] = 2 * xs.T @ xs
            kkt[:q, q] = kkt[q, :q] = 1.0
            rhs = np.concatenate([2 * xs.T @ y, [1.0]])
            w = np.linalg.lstsq(kkt, rhs, rcond=None)[0][:q]
            if (w < -1e-12).any() or abs(w.sum() - 1) > 1e-9:
                continue
            w = np.clip(w, 0.0, None)
            w /= w.sum()
            sse = float(((xs @ w - y) ** 2).sum())
            # a strictly smaller error wins (relative tolerance: rounding must not pick a
            # larger support for a tie)
            if sse < best_sse - 1e-12 * max(1.0, best_sse if np.isfinite(best_sse) else 1.0):
                best, best_sse = (s, w), sse
        s, w = best
        out[task, list(s)] = w
    return out


# stack: the reference mean, the assessor and p-IRT weighed by held-out known models (the
# default: docs/reference.md); blend: the first two only; assessor: the paper's alone
ESTIMATORS = ("stack", "blend", "assessor")
DEFAULT_ESTIMATOR = "stack"
COMPONENTS = ("reference_mean", "assessor", "irt")


def _irt_items(y: np.ndarray, seed: int):
    """The IRT item parameters of the known models y (tinyBenchmarks' MIRT 2PL, d = 10 capped
    at models - 1; `evalsci.assess.tinybench.fit_items`, which reuses a fit of the same
    matrix)."""
    from .tinybench import IRT_DIMS, fit_items

    return fit_items(y, IRT_DIMS, seed)


# The IRT component's calibration estimates are cross-fitted in this many folds of the
# calibration models (Breiman's stacking used V-fold cross-validation): one IRT fit per fold,
# without the fold's models, instead of one per model. A fit takes ~9 CPU-s on 10,000 items x
# 100 models (benchmarks/reference_speed.py): one per calibration model would cost ~3 min there.
IRT_FOLDS = 2


def _reference_inputs(m: Matrix, reference: pd.DataFrame, new: dict):
    """(reference positions, their weights, {new model: its reference outcomes}), checked."""
    key = list(zip(m.items["task"], m.items["item"], strict=True))
    pos = {k: i for i, k in enumerate(key)}
    refs = list(zip(reference["task"].astype(str), reference["item"].astype(str), strict=True))
    unknown = [r for r in refs if r not in pos]
    if unknown:
        raise AuditInputError(
            f"{len(unknown)} reference items are not among the items every known model "
            f"answered, e.g. task {unknown[0][0]!r} item {unknown[0][1]!r}"
        )
    if len(set(refs)) < len(refs):
        t, i = next(r for r in refs if refs.count(r) > 1)
        raise AuditInputError(f"reference task {t!r} item {i!r} is listed twice")
    ref = np.array([pos[r] for r in refs])
    # the reference mean's weights: select's `weight` column (tinybenchmarks_irt's cluster
    # shares; 1 / the task's references for the others), equal weights without the column
    w = (
        reference["weight"].to_numpy(dtype=np.float64)
        if "weight" in reference.columns
        else np.ones(len(ref))
    )
    if not (np.isfinite(w).all() and (w > 0).all()):
        raise AuditInputError("reference column 'weight' must be positive numbers")
    y = m.success
    rest = np.setdiff1d(np.arange(y.shape[1]), ref)
    if not len(rest):
        raise AuditInputError(
            f"the reference holds all {y.shape[1]} items the known models share: nothing is "
            "left to predict (a new model's accuracy is its mean on them)"
        )
    if y[:, rest].min() == y[:, rest].max():
        raise AuditInputError(
            f"every known model ({', '.join(m.models[:5])}{', ...' if len(m.models) > 5 else ''}) "
            f"has outcome {int(y[0, rest[0]])} on every item outside the reference (constant "
            "columns): the assessor has nothing to learn from"
        )
    z_new = {}
    for model, outcomes in new.items():
        missing = [r for r in refs if r not in outcomes]
        if missing:
            raise AuditInputError(
                f"new model {model!r} lacks {len(missing)} of the {len(refs)} reference items, "
                f"e.g. task {missing[0][0]!r} item {missing[0][1]!r}: run them all"
            )
        z_new[model] = np.array([outcomes[r] for r in refs], dtype=np.int8)
    return ref, w, z_new


def _weigh(estimator: str, comps: np.ndarray, t_cal: np.ndarray):
    """(weights tasks x C, the calibration models' estimates K x tasks (each without the
    model), notes) of `estimator` from the
    calibration models' component estimates `comps` (K x tasks x C, `COMPONENTS` order: the
    reference mean, the assessor, [p-IRT]) and true accuracies t (K x tasks)."""
    k, n_tasks, n_comp = comps.shape
    notes = []
    if estimator == "assessor":
        w = np.zeros((n_tasks, n_comp))
        w[:, 1] = 1.0
        est = comps[:, :, 1]
    elif k < 2:
        # no calibration model to choose weights by (and none to test them on): the reference
        # mean, the estimator that needs no known model
        w = np.zeros((n_tasks, n_comp))
        w[:, 0] = 1.0
        est = comps[:, :, 0]
        notes.append(
            f"estimate = the reference mean: {k} calibration models are too few to weigh the "
            "assessor"
        )
    else:
        w = stack_weights(comps, t_cal)
        # each calibration model's residual under the weights chosen without it, so that the
        # residuals are those of an estimator that has not seen the model (as for a new one)
        est = np.empty((k, n_tasks))
        for i in range(k):
            wi = stack_weights(np.delete(comps, i, axis=0), np.delete(t_cal, i, axis=0))
            est[i] = (comps[i] * wi).sum(axis=1)
    return w, est, notes


# Where a new model's overall reference mean lies among the known models' (`placement`): the
# EDGE_MODELS-th most extreme known model on each side starts the edge zone, where the estimate
# moves linearly from the stack to the anchored estimate (`anchor`), reached at the most extreme
# known model and kept beyond it. The stack's components shrink towards the known models (the
# assessor's features and the IRT fit are the known models'; issue 44: MMLU-Pro's weakest held-out
# model, true 0.183, was estimated at 0.289), and its weights and interval are chosen mostly on
# models from the middle; the reference mean is unbiased wherever the model lies.
EDGE_MODELS = 3
# calibration always holds this many of the weakest and of the strongest known models (by their
# accuracy over every item): held out, each lies at or beyond the rest's range, as a new model
# outside it does, so the anchor's gain and the interval near the ends are calibrated on such
# models (5 a side: the local interval below needs 9 calibration models near an end)
CALIBRATION_EXTREMES = 5


def placement(overall: float, known: np.ndarray) -> tuple[str, float]:
    """(`below` | `above` | `no`, lambda): whether the overall reference mean `overall` lies
    outside the known models' overall reference means `known`, and the anchored estimate's
    weight lambda in [0, 1]: 0 inside the EDGE_MODELS-th most extreme known values, rising
    linearly to 1 at the most extreme, 1 beyond."""
    s = np.sort(np.asarray(known, dtype=np.float64))
    e = min(EDGE_MODELS, len(s)) - 1
    side = "below" if overall < s[0] else "above" if overall > s[-1] else "no"
    lam = 0.0
    if overall < s[e]:
        lam = 1.0 if s[e] == s[0] else (s[e] - overall) / (s[e] - s[0])
    elif overall > s[-1 - e]:
        lam = 1.0 if s[-1 - e] == s[-1] else (overall - s[-1 - e]) / (s[-1] - s[-1 - e])
    return side, float(min(1.0, max(0.0, lam)))


def anchor(est: np.ndarray, overall: float, sizes: np.ndarray) -> np.ndarray:
    """The task estimates `est` moved by one logit shift delta so that their item-weighted mean
    is the model's overall reference mean `overall` (unbiased wherever the model lies):
    sum_t n_t sigmoid(logit(est_t) + delta) = overall * sum_t n_t. The shift keeps the tasks'
    order and the stack's shape across tasks; the model's level comes from its own outcomes,
    unshrunk (a one-dimensional ability that extrapolates). `overall` 0 or 1: every task 0 or 1."""
    from scipy.optimize import brentq
    from scipy.special import expit, logit

    if overall <= 0.0 or overall >= 1.0:
        return np.full(len(est), float(np.clip(overall, 0.0, 1.0)))
    base = logit(np.clip(np.asarray(est, dtype=np.float64), 1e-6, 1 - 1e-6))
    frac = sizes / sizes.sum()
    delta = brentq(lambda d: float(frac @ expit(base + d)) - overall, -60.0, 60.0, xtol=1e-12)
    return expit(base + delta)


def extremeness(overall: float, known: np.ndarray) -> float:
    """How far inside the known range the overall reference mean `overall` lies, in rank terms:
    min(fraction of the known models' overall reference means below it, fraction above), ties
    counted half; 0 at or beyond either end, 0.5 in the middle."""
    k = np.asarray(known, dtype=np.float64)
    below = (k < overall).sum() + 0.5 * (k == overall).sum()
    return float(min(below, len(k) - below) / len(k))


def anchor_gain(est: np.ndarray, anchored: np.ndarray, lam: np.ndarray, t: np.ndarray,
                sizes: np.ndarray) -> float:  # fmt: skip
    """gamma in [0, 1] minimising sum_c sum_t n_t (est + gamma lam_c (anchored - est) - t)^2 over
    calibration models c (K x tasks arrays, `lam` their placement weights): how far to move
    towards the anchored estimate, chosen on held-out known models that are themselves near or
    beyond the others' range (where lam_c > 0). 1 where none is (no evidence against the
    unbiased anchor). Where few references make a model's overall reference mean noisy, the
    anchored estimate errs by that noise and gamma falls (issue 44: MuSR at 10 references)."""
    a = lam[:, None] * (anchored - est)
    den = float(((a * a) @ sizes).sum())
    if den <= 1e-15:
        return 1.0
    return float(np.clip(float(((a * (t - est)) @ sizes).sum()) / den, 0.0, 1.0))


def local_rank(k: int, alpha: float) -> tuple[int, int]:
    """(M, rank): the local interval's neighbourhood, the fewest calibration models whose
    split-conformal rank ceil((M + 1)(1 - alpha)) is at most M (9 at alpha 0.1), capped at k."""
    m = min(k, math.ceil((1 - alpha) / alpha - 1e-9))
    return m, math.ceil((m + 1) * (1 - alpha) - 1e-9)


def _half_widths(resid: np.ndarray, rank: int) -> np.ndarray:
    """Per task, the rank-th smallest of the calibration models' residuals `resid` (K x tasks;
    split-conformal); inf where rank exceeds K (the interval is then [0, 1])."""
    k = len(resid)
    return np.sort(resid, axis=0)[rank - 1] if rank <= k else np.full(resid.shape[1], np.inf)


def _reference_means_all(yr: np.ndarray, w: np.ndarray, ref_tasks, names) -> np.ndarray:
    """`_reference_means` of every row of yr (models x reference items): models x tasks."""
    cols = np.stack([np.where(ref_tasks == t, w, 0.0) for t in names], axis=1)
    return yr.astype(np.float64) @ (cols / cols.sum(axis=0))


def _calibration_groups(y, groups, names_g, max_calibration, rng) -> np.ndarray:
    """Indices (into names_g) of the calibration groups, sorted: the CALIBRATION_EXTREMES
    weakest and strongest groups by accuracy over every item (mean over a group's rows), then
    groups drawn at random up to max_calibration."""
    size = min(max_calibration, len(names_g))
    acc = np.array([y[groups == g].mean() for g in names_g])
    order = np.argsort(acc, kind="stable")
    e = min(CALIBRATION_EXTREMES, size // 2)
    fixed = np.unique(np.concatenate([order[:e], order[len(order) - e :]]))
    rest = np.setdiff1d(np.arange(len(names_g)), fixed)
    drawn = rng.choice(rest, size=size - len(fixed), replace=False)
    return np.sort(np.concatenate([fixed, drawn]).astype(int))


def _edge_calibration(groups, cal_names, known_overall, est_cal, comps, sizes) -> dict:
    """Each calibration model placed among the other known models, as a new model is among all:
    its overall reference mean's `placement` weight (`lam`), its `extremeness`, and its
    estimate anchored to that mean (`anchored`)."""
    overall_cal = comps[:, :, 0] @ sizes / sizes.sum()
    lam, ext, anchored, beyond = [], [], [], []
    for g, o, e in zip(cal_names, overall_cal, est_cal, strict=True):
        others = known_overall[groups != g]
        side, la = placement(float(o), others)
        lam.append(la)
        beyond.append(side != "no")
        ext.append(extremeness(float(o), others))
        anchored.append(anchor(e, float(o), sizes))
    return {"lam": np.array(lam), "extremeness": np.array(ext), "beyond": np.array(beyond, bool),
            "anchored": np.array(anchored).reshape(est_cal.shape)}  # fmt: skip


def _gain(est_cal, edge, t_cal, sizes) -> float:
    """`anchor_gain` on the calibration models inside the others' range (beyond it the anchored
    estimate is taken in full: `_weight`)."""
    lam = np.where(edge["beyond"], 0.0, edge["lam"])
    return anchor_gain(est_cal, edge["anchored"], lam, t_cal, sizes)


def _weight(lam: float, beyond: bool, gain: float) -> float:
    """The anchored estimate's weight: in full beyond every known model's overall reference mean,
    where the stack's shrinkage grows with the distance and no held-out known model measures it
    (issue 44's simulated models 1 to 2 abilities above the strongest: gain-weighted, their mean
    error was -0.015 ± 0.009, in full -0.003 ± 0.003); inside the range, in the edge zone,
    lambda times the gain calibrated on held-out known models there."""
    return 1.0 if beyond else lam * gain


def _residuals(est_cal, edge, t_cal, sizes) -> np.ndarray:
    """|truth - estimate| of each calibration model (K x tasks) under the estimate a new model
    gets, its anchor gain chosen without the model (as its stack weights are)."""
    k = len(est_cal)
    out = np.empty_like(t_cal)
    for i in range(k):
        keep = np.arange(k) != i
        g = _gain(est_cal[keep], {key: v[keep] for key, v in edge.items()}, t_cal[keep], sizes)
        move = _weight(edge["lam"][i], edge["beyond"][i], g) * (edge["anchored"][i] - est_cal[i])
        out[i] = np.abs(t_cal[i] - (est_cal[i] + move))
    return out


def _irt_available() -> bool:
    try:
        import torch  # noqa: F401  (evalsci.stats.irt fits with it)
    except ImportError:
        return False
    return True


def _irt_estimates(items, z: np.ndarray, ref: np.ndarray, tasks, names) -> np.ndarray:
    """p-IRT per task (tinyBenchmarks' Section 4, `evalsci.assess.tinybench.p_irt`): the
    model's ability fitted on its reference outcomes z with the known models' item parameters
    fixed, (observed reference outcomes + IRT P(success) of the other items) / items."""
    from .tinybench import ItemParams, fit_ability, item_curve

    theta = fit_ability(z, ItemParams(items.disc[ref], items.diff[ref]))
    p = item_curve(theta, items)
    p[ref] = z
    return _task_estimates(p, tasks, names)


def _calibration(y, ref, w, groups, cal, use_irt, rng, max_rows, seed, layout):
    """Each calibration group's component estimates (K x tasks x C, `COMPONENTS` order) and
    true accuracies (K x tasks), from fits without the group: the assessor refitted without
    it; p-IRT from the IRT fit without its fold (`IRT_FOLDS`)."""
    tasks, ref_tasks, names = layout
    names_g, first = np.unique(groups, return_index=True)
    comps, t_cal = [], []
    if len(names_g) - 1 >= MIN_MODELS:
        # the IRT fold of each calibration model: its position in `cal` modulo IRT_FOLDS
        fold_fit = {}
        if use_irt:
            for f in range(min(IRT_FOLDS, len(cal))):
                out = np.isin(groups, names_g[cal[f::IRT_FOLDS]])
                fold_fit[f] = _irt_items(y[~out], seed)
        for pos, c in enumerate(cal):
            j = first[c]  # the group's first row stands for it
            keep = np.flatnonzero(groups != groups[j])
            fit = _fit(y[keep], ref, rng, max_rows, groups[keep])
            p = _predict(fit, y[j, ref], y.shape[1])
            p[ref] = y[j, ref]
            row = [
                _reference_means(y[j, ref], w, ref_tasks, names),
                _task_estimates(p, tasks, names),
            ]
            if use_irt:
                items = fold_fit[pos % IRT_FOLDS]
                row.append(_irt_estimates(items, y[j, ref], ref, tasks, names))
            comps.append(np.stack(row, axis=1))
            t_cal.append(_task_estimates(y[j].astype(float), tasks, names))
    n_comp = 3 if use_irt else 2
    comps = np.array(comps).reshape(len(comps), len(names), n_comp)
    return comps, np.array(t_cal).reshape(len(comps), len(names))


@_serial_blas
def predict_new(
    m: Matrix,
    reference: pd.DataFrame,
    new: dict[str, dict[tuple[str, str], int]],
    alpha: float = 0.1,
    seed: int = 0,
    max_rows: int = 5000,
    max_calibration: int = 20,
    estimator: str = DEFAULT_ESTIMATOR,
    groups=None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(per-task accuracy table, per-item predictions) for each new model.

    `new`: model -> {(task, item): 0/1} on (at least) the reference items. `estimator`:
    `assessor` (the paper's: the mean of the observed reference outcomes and the assessor's
    P(success) elsewhere), `blend` (the reference mean and the assessor's estimate) or `stack`
    (the default: those two and p-IRT), weighed per task by `stack_weights` on the calibration
    models (columns weight_reference_mean, weight_assessor, weight_irt).
    `groups`: the model of each known row where rows are runs (default: each row its own)."""
    if estimator not in ESTIMATORS:
        raise AuditInputError(f"unknown estimator {estimator!r}; use one of {list(ESTIMATORS)}")
    if len(m.models) < MIN_MODELS:
        raise AuditInputError(
            f"the assessor needs results of at least {MIN_MODELS} known models; got {len(m.models)}"
        )
    ref, w, z_new = _reference_inputs(m, reference, new)
    y = m.success
    tasks = m.items["task"].to_numpy()
    names = [t for t in dict.fromkeys(tasks)]
    ref_tasks = tasks[ref]
    rng = np.random.default_rng(seed)
    # calibration: hold out each of K known models, refit on the rest
    n_models = len(m.models)
    # known rows of one model (runs) form a group: calibration holds out whole groups
    groups = np.arange(n_models) if groups is None else np.asarray(groups)
    if len(groups) != n_models:
        raise ValueError(f"groups has {len(groups)} entries for {n_models} known models")
    names_g = np.unique(groups)
    cal = _calibration_groups(y, groups, names_g, max_calibration, rng)
    notes = []
    use_irt = estimator == "stack" and _irt_available()
    if estimator == "stack" and not use_irt:
        notes.append(
            "p-IRT component left out (its IRT fit needs torch: pip install 'evalsci[lm]')"
            ": the stack weighs the reference mean and the assessor only"
        )
    # component estimates (COMPONENTS order) and truth of each calibration model: K x tasks
    comps, t_cal = _calibration(
        y, ref, w, groups, cal, use_irt, rng, max_rows, seed, (tasks, ref_tasks, names)
    )
    k = len(comps)
    weights, est_cal, more = _weigh(estimator, comps, t_cal)
    notes += more
    rank = math.ceil((k + 1) * (1 - alpha))
    sizes = np.array([(tasks == t).sum() for t in names], dtype=np.float64)
    # the known models' overall reference means: the range a new model is placed in
    known_overall = _reference_means_all(y[:, ref], w, ref_tasks, names) @ sizes / sizes.sum()
    edge = _edge_calibration(groups, names_g[cal][:k], known_overall, est_cal, comps, sizes)
    if estimator == "assessor":
        edge["lam"][:], edge["beyond"][:] = 0.0, False  # the paper's estimator as it is
    gain = _gain(est_cal, edge, t_cal, sizes)
    resid = _residuals(est_cal, edge, t_cal, sizes)
    m_local, rank_local = local_rank(k, alpha)
    half = _half_widths(resid, rank)
    if rank > k:
        notes.append(f"interval [0, 1]: {k} calibration models are too few for level {1 - alpha}")
    note = "; ".join(notes)
    fit = _fit(y, ref, rng, max_rows, groups)
    acc_rows, item_rows = [], []
    for model, z in z_new.items():
        p = _predict(fit, z, y.shape[1])
        p[ref] = z
        row = [_reference_means(z, w, ref_tasks, names), _task_estimates(p, tasks, names)]
        if use_irt:
            row.append(_irt_estimates(_irt_items(y, seed), z, ref, tasks, names))
        est = (np.stack(row, axis=1) * weights).sum(axis=1)
        overall = float(row[0] @ sizes / sizes.sum())
        side, lam = placement(overall, known_overall)
        stack, anchored = est, anchor(est, overall, sizes)
        lam_eff = 0.0 if estimator == "assessor" else _weight(lam, side != "no", gain)
        est = stack + lam_eff * (anchored - stack)
        # the larger of two split-conformal half-widths: over every calibration model, and over
        # the m_local nearest the new model in distance from the known range's ends (held-out
        # known models near an end err more than those in the middle: issue 44)
        near = np.argsort(np.abs(edge["extremeness"] - extremeness(overall, known_overall)),
                          kind="stable")[:m_local]  # fmt: skip
        h = np.maximum(half, _half_widths(resid[near], rank_local))
        low, high = est - h, est + h
        if lam > 0 and estimator != "assessor":
            # near or beyond an end the interval also spans the stack's and the anchored
            # estimate's: wider by their disagreement, the extrapolation's own uncertainty,
            # which models held out inside the known range cannot show
            low = np.minimum(low, np.minimum(stack, anchored) - h)
            high = np.maximum(high, np.maximum(stack, anchored) + h)
        for t, e, lo, hi, wt in zip(names, est, low, high, weights, strict=True):
            acc_rows.append(
                {
                    "model": model,
                    "task": t,
                    "n_items": int((tasks == t).sum()),
                    "n_reference": int((tasks[ref] == t).sum()),
                    "accuracy_estimate": round(float(e), 6),
                    "low": round(max(0.0, float(lo)), 6),
                    "high": round(min(1.0, float(hi)), 6),
                    "level": 1 - alpha,
                    "weight_reference_mean": round(float(wt[0]), 6),
                    "weight_assessor": round(float(wt[1]), 6),
                    "weight_irt": round(float(wt[2]), 6) if use_irt else 0.0,
                    "weight_anchor": round(float(lam_eff), 6),
                    "out_of_range": side,
                    "note": note,
                }
            )
        is_ref = np.zeros(y.shape[1], dtype=bool)
        is_ref[ref] = True
        item_rows.append(
            pd.DataFrame(
                {
                    "model": model,
                    "task": tasks,
                    "item": m.items["item"].to_numpy(),
                    "p_success": np.round(p, 6),
                    "reference": is_ref.astype(int),
                }
            )
        )
    return pd.DataFrame(acc_rows), pd.concat(item_rows, ignore_index=True)
