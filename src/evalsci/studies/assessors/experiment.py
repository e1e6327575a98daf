"""One instance split of the `assessors` experiment: every assessor, selector and classifier.

`run_split` fits, for one train/validation/test instance split and the configured LLM split:
- the generic assessor for every (instance features, selector, classifier) combination,
  trained on (training LLMs x training instances) and scored on the validation LLMs x
  validation instances (for selection) and the test LLMs x test instances (for Figure 2);
- the baselines: "reference only" (per LLM, trained on its success on the reference instances
  only; every selector x classifier), "all train data" (one classifier on the pooled training
  LLMs, instance features only; every classifier) and the specific assessor (per test LLM,
  trained on its success on all training instances, every feature set x classifier, scored on
  validation and test instances of that same LLM).
It returns one row per (method, combination, LLM, evaluation set) with the AUC; choosing the
combination (average win rate over validation LLMs) happens later (`selection.py`), so that
every AUC that selection looked at stays on record.

What each step may see is enforced, not assumed: selectors, IRT and generic training receive
only the training LLMs' success on training instances; validation and test LLMs contribute
only their success on the reference instances (a subset of the training instances);
evaluation labels are read last. `check_no_leakage` asserts the splits are disjoint.
"""

from __future__ import annotations

import logging
import time
import zlib
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from evalsci.assess.classifiers import (
    auc,
    fit_predict,
    fit_predict_shared,
    generic_matrix,
    instance_block,
)
from evalsci.assess.selectors import (
    SELECTORS,
    select_factor_analysis,
    select_kmeans,
    select_random,
    select_random_best_of,
)
from evalsci.pipeline.progress import progress_bar
from evalsci.stats.irt import fit_mirt_2pl, item_features
from evalsci.studies.assessors.columns import RESULT_COLUMNS

from .features import ngram_features
from .settings import AssessorsSettings, Irt
from .splits import LeakageError, check_llm_splits

__all__ = [
    "split_seed",
    "SplitData",
    "prepare_split",
    "irt_item_features",
    "select_references",
    "run_split",
    "run_nref",
    "SplitRunRows",
]

log = logging.getLogger(__name__)


def split_seed(seed: int, split: str) -> int:
    """A per-split seed that does not depend on Python's hash randomisation."""
    return (int(seed) * 1_000_003 + zlib.crc32(split.encode())) % (2**31 - 1)


class SplitData:
    """Index sets and matrices of one split, built once and checked for leakage."""

    def __init__(
        self,
        split: str,
        emb: np.ndarray,
        success: pd.DataFrame,
        roles: pd.Series,
        llms: Mapping[str, Sequence[str]],
        texts: Sequence[str] | None = None,
    ):
        check_llm_splits(llms, list(success.columns))
        if len(emb) != len(success) or not roles.index.equals(success.index):
            raise ValueError(
                "embeddings, success and split roles must list the same instances in the same order"
            )
        self.split = split
        self.llms = {k: list(v) for k, v in llms.items()}
        pos = {r: np.flatnonzero(roles.to_numpy() == r) for r in ("train", "validation", "test")}
        check_no_leakage(pos, self.llms)
        self.pos = pos
        self.emb = {r: emb[p] for r, p in pos.items()}
        self.texts = None if texts is None else {r: [texts[i] for i in p] for r, p in pos.items()}
        self.ids = {r: success.index[p] for r, p in pos.items()}
        z = success.to_numpy(dtype=np.int8)
        cols = {m: i for i, m in enumerate(success.columns)}
        self._z, self._cols = z, cols
        # What training may see: training LLMs on training instances.
        self.z_train = z[np.ix_(pos["train"], [cols[m] for m in self.llms["train"]])]

    def labels(self, llm: str, role: str) -> np.ndarray:
        """Success of `llm` on the instances of `role` (evaluation labels)."""
        return self._z[self.pos[role], self._cols[llm]]

    def z_ref(self, llms: Sequence[str], ref: np.ndarray) -> np.ndarray:
        """Success of `llms` on the reference instances (positions into the training set)."""
        return self._z[np.ix_(self.pos["train"][ref], [self._cols[m] for m in llms])].T


def check_no_leakage(pos: Mapping[str, np.ndarray], llms: Mapping[str, Sequence[str]]) -> None:
    """Assert instance roles and LLM roles are pairwise disjoint and non-empty."""
    roles = list(pos)
    for i, r in enumerate(roles):
        if len(pos[r]) == 0:
            raise LeakageError(f"no {r} instances")
        for s in roles[i + 1 :]:
            if np.intersect1d(pos[r], pos[s]).size:
                raise LeakageError(f"instances in both {r} and {s}")
            if set(llms[r]) & set(llms[s]):
                raise LeakageError(f"LLMs in both {r} and {s}")


def prepare_split(*args, **kwargs) -> SplitData:
    return SplitData(*args, **kwargs)


def irt_item_features(data: SplitData, irt: Irt, seed: int) -> np.ndarray:
    """The IRT selectors' item features: the 2PL fitted on the training LLMs x training
    instances only (notebook 2 of the authors), one row per training instance."""
    fit = fit_mirt_2pl(
        data.z_train.T.astype(np.float64), dims=irt.dims, max_iter=irt.max_iter, seed=seed
    )
    return item_features(fit)


def select_references(
    data: SplitData,
    selectors: Sequence[str],
    n_ref: int,
    seed: int,
    irt: Irt | None = None,
    fa_max_factors: int | None = None,
    best_of_draws: int | None = None,
    irt_features: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """Reference sets (positions into the training instances) for each selector.

    `irt`, `fa_max_factors` and `best_of_draws` (the settings' `irt`, `fa_max_factors` and
    `random_best_of_draws`; their defaults are the schema's, not repeated here) are needed only
    by the selectors that use them: an error names the one missing.

    `irt_features`: `irt_item_features(data, irt, seed)` computed beforehand (the workflow's
    assessors_irt job fits every split of a collection in one process); None fits it here."""
    feats: dict[str, np.ndarray] = {
        "embeddings": data.emb["train"],
        "success": data.z_train.astype(np.float64),
    }

    def needed(value, name: str, selector: str):
        if value is None:
            raise ValueError(f"selector {selector!r} needs {name} (config assessors.{name})")
        return value

    if any(SELECTORS[s][1] == "irt" for s in selectors):
        if irt_features is None:
            irt = needed(irt, "irt", next(s for s in selectors if SELECTORS[s][1] == "irt"))
            irt_features = irt_item_features(data, irt, seed)
        if len(irt_features) != len(data.pos["train"]):
            raise ValueError(
                f"{data.split}: {len(irt_features)} IRT item features for "
                f"{len(data.pos['train'])} training instances"
            )
        feats["irt"] = irt_features
    out = {}
    n_train = len(data.pos["train"])
    for name in selectors:
        if name not in SELECTORS:
            raise ValueError(f"unknown selector {name!r}; known {list(SELECTORS)}")
        method, fset = SELECTORS[name]
        rng = np.random.default_rng(seed)
        if method == "random":
            ref = select_random(n_train, n_ref, data.z_train, rng)
        elif method == "random_best_of":
            ref = select_random_best_of(
                feats[fset],
                data.z_train,
                n_ref,
                rng,
                n_draws=needed(best_of_draws, "random_best_of_draws", name),
            )
        elif method == "kmeans":
            ref = select_kmeans(feats[fset], n_ref, seed)
        else:
            max_factors = needed(fa_max_factors, "fa_max_factors", name)
            ref = select_factor_analysis(feats[fset], n_ref, seed, max_factors=max_factors)
        if len(set(ref.tolist())) != len(ref) or ref.max() >= n_train:
            raise LeakageError(f"selector {name}: references are not distinct training instances")
        out[name] = ref
    return out


def tall_rows(n_llm: int, n_inst: int, cap: int | None, seed: int) -> np.ndarray | None:
    """Rows of the LLM-major tall training set to keep: at most `cap`, the same number per
    training LLM (each LLM a different random subset of instances). None keeps every row."""
    if not cap or n_llm * n_inst <= cap:
        return None
    per = max(1, cap // n_llm)
    rng = np.random.default_rng(seed)
    return np.concatenate(
        [j * n_inst + np.sort(rng.choice(n_inst, size=per, replace=False)) for j in range(n_llm)]
    )


def _rows(split, method, features, selector, classifier, n_ref, data, role_llms, preds):
    """AUC rows for LLMs `role_llms` = {llm_role: llms} with predictions preds[llm]; each row
    carries its prediction vector as a trailing element (`run_split` takes it off)."""
    rows = []
    for llm_role, llms in role_llms.items():
        eval_set = "validation" if llm_role == "validation" else "test"
        for m in llms:
            y = data.labels(m, eval_set)
            rows.append(
                [
                    split,
                    method,
                    features,
                    selector,
                    classifier,
                    n_ref,
                    m,
                    llm_role,
                    eval_set,
                    auc(y, preds[m]),
                    int(y.sum()),
                    int(len(y) - y.sum()),
                    preds[m],
                ]
            )
    return rows


def _phase(split: str, name: str, since: float) -> float:
    now = time.perf_counter()
    log.info("%s: %s took %.1f s", split, name, now - since)
    return now


def run_split(
    data: SplitData,
    settings: AssessorsSettings,
    seed: int,
    threads: int = 1,
    return_predictions: bool = False,
    irt_features: np.ndarray | None = None,
    row_predictions: list | None = None,
):
    """All assessors of one split; returns (results DataFrame, references[, predictions]).

    `row_predictions`: a list that receives one prediction vector per result row (on that
    row's evaluation instances), for the DeLong intervals and the resampling of selection.

    Steps: reference selection, the generic assessors (every feature set x selector x
    classifier), the reference-only and all-train-data baselines, the specific assessors.
    `irt_features`: see `select_references`."""
    split = data.split
    classifiers = list(settings.classifiers)
    clock = time.perf_counter()
    refs = select_references(
        data,
        list(settings.selectors),
        settings.n_ref,
        seed,
        irt=settings.irt,
        fa_max_factors=settings.fa_max_factors,
        best_of_draws=settings.random_best_of_draws,
        irt_features=irt_features,
    )
    tall = TallTraining.of(data, settings.max_train_rows, seed)
    clock = _phase(split, "reference selection", clock)
    predictions: dict[tuple, np.ndarray] = {}
    rows = _generic_assessors(data, settings, refs, tall, seed, threads, predictions)
    clock = _phase(split, "generic assessors", clock)
    rows += _reference_only(data, refs, classifiers, settings.n_ref, seed, threads)
    clock = _phase(split, "reference-only baseline", clock)
    rows += _all_train(data, tall, classifiers, seed, threads)
    clock = _phase(split, "all-train-data baseline", clock)
    rows += _specific_assessors(data, list(settings.specific_features), classifiers, seed, threads)
    _phase(split, "specific assessors", clock)
    preds = [r.pop() for r in rows]
    if row_predictions is not None:
        row_predictions.extend(preds)
    res = pd.DataFrame(rows, columns=RESULT_COLUMNS)
    references = {s: data.ids["train"][r].tolist() for s, r in refs.items()}
    if return_predictions:
        return res, references, predictions
    return res, references


class TallTraining:
    """The generic assessors' training labels: training LLMs x training instances, LLM-major
    (matching `generic_matrix`), optionally capped to `keep` rows (config max_train_rows;
    null = the paper: all rows)."""

    def __init__(self, y: np.ndarray, keep: np.ndarray | None):
        self.y, self.keep = y, keep

    @classmethod
    def of(cls, data: SplitData, cap: int | None, seed: int) -> TallTraining:
        y = data.z_train.T.reshape(-1)
        n_llm, n_inst = len(data.llms["train"]), len(data.emb["train"])
        keep = tall_rows(n_llm, n_inst, cap, seed)
        if keep is None:
            return cls(y, None)
        log.info(
            "%s: generic training rows subsampled to %d of %d",
            data.split,
            len(keep),
            n_llm * n_inst,
        )
        return cls(y[keep], keep)

    def rows(self, x: np.ndarray) -> np.ndarray:
        return x if self.keep is None else x[self.keep]


def _eval_llms(data: SplitData) -> dict[str, list[str]]:
    return {"validation": data.llms["validation"], "test": data.llms["test"]}


def _generic_assessors(
    data: SplitData,
    settings: AssessorsSettings,
    refs,
    tall: TallTraining,
    seed: int,
    threads: int,
    predictions: dict,
) -> list[list]:
    """One generic assessor per (features, selector, classifier), trained on the training
    LLMs' success on the reference instances."""
    split, n_ref, train_llms = data.split, settings.n_ref, data.llms["train"]
    eval_llms = _eval_llms(data)
    e_tr = data.emb["train"]
    rows: list[list] = []
    combos = [
        (f, s, c)
        for f in settings.generic_features
        for s in settings.selectors
        for c in settings.classifiers
    ]
    for feat, sel, clf in progress_bar(combos, desc=f"{split}: generic", mininterval=5):
        ref = refs[sel]
        x_tr = generic_matrix(
            feat, instance_block(feat, e_tr, e_tr[ref]), data.z_ref(train_llms, ref), rows=tall.keep
        )
        xs, order = [], []
        for role, llms in eval_llms.items():
            blk = instance_block(feat, data.emb[role], e_tr[ref])
            for m in llms:
                xs.append(generic_matrix(feat, blk, data.z_ref([m], ref)))
                order.append(m)
        preds = dict(
            zip(order, fit_predict(clf, x_tr, tall.y, xs, seed=seed, threads=threads), strict=True)
        )
        rows += _rows(split, "generic", feat, sel, clf, n_ref, data, eval_llms, preds)
        predictions.update({("generic", feat, sel, clf, m): p for m, p in preds.items()})
    return rows


def _reference_only(
    data: SplitData, refs, classifiers, n_ref: int, seed: int, threads: int
) -> list[list]:
    """Baseline: per LLM, a classifier on the embeddings of its reference instances only."""
    e_tr, eval_llms = data.emb["train"], _eval_llms(data)
    rows: list[list] = []
    for sel, ref in refs.items():
        for clf in classifiers:
            # every LLM's model is fitted on the same matrix e_tr[ref]: share its binning
            llms = [(role, m) for role, ms in eval_llms.items() for m in ms]
            fits = fit_predict_shared(
                clf,
                e_tr[ref],
                [(data.z_ref([m], ref)[0], [data.emb[role]]) for role, m in llms],
                seed=seed,
                threads=threads,
            )
            preds = {m: p[0] for (_, m), p in zip(llms, fits, strict=True)}
            rows += _rows(
                data.split, "reference_only", "embeddings", sel, clf, n_ref, data, eval_llms, preds
            )
    return rows


def _all_train(
    data: SplitData, tall: TallTraining, classifiers, seed: int, threads: int
) -> list[list]:
    """Baseline: the training LLMs pooled, instance embeddings only."""
    eval_llms = _eval_llms(data)
    x_tall = tall.rows(np.tile(data.emb["train"], (len(data.llms["train"]), 1)))
    rows: list[list] = []
    for clf in classifiers:
        p_val, p_te = fit_predict(
            clf,
            x_tall,
            tall.y,
            [data.emb["validation"], data.emb["test"]],
            seed=seed,
            threads=threads,
        )
        preds = {m: p_val for m in eval_llms["validation"]} | {m: p_te for m in eval_llms["test"]}
        rows += _rows(data.split, "all_train", "embeddings", "", clf, 0, data, eval_llms, preds)
    return rows


def _specific_features(data: SplitData, names) -> dict[str, tuple]:
    """(train, validation, test) features of each specific-assessor feature set."""
    feats = {}
    for name in names:
        if name == "embeddings":
            feats[name] = (data.emb["train"], data.emb["validation"], data.emb["test"])
        elif name == "ngram1":
            if data.texts is None:
                raise ValueError("specific feature 'ngram1' needs the instance texts")
            feats[name] = ngram_features(
                data.texts["train"], data.texts["validation"], data.texts["test"]
            )
        else:
            raise ValueError(
                f"unknown specific-assessor features {name!r}; use embeddings or ngram1"
            )
    return feats


def _specific_assessors(
    data: SplitData, feature_names, classifiers, seed: int, threads: int
) -> list[list]:
    """Per test LLM, an assessor on all its training instances (chosen later on its
    validation AUC)."""
    n_train = len(data.pos["train"])
    rows: list[list] = []
    for fname, (x_tr, x_va, x_te) in _specific_features(data, feature_names).items():
        for clf in classifiers:
            fits = fit_predict_shared(
                clf,
                x_tr,
                [(data.labels(m, "train"), [x_va, x_te]) for m in data.llms["test"]],
                seed=seed,
                threads=threads,
            )
            for m, (p_va, p_te) in zip(data.llms["test"], fits, strict=True):
                for eval_set, p in (("validation", p_va), ("test", p_te)):
                    y = data.labels(m, eval_set)
                    rows.append(
                        [
                            data.split,
                            "specific",
                            fname,
                            "",
                            clf,
                            n_train,
                            m,
                            "test",
                            eval_set,
                            auc(y, p),
                            int(y.sum()),
                            int(len(y) - y.sum()),
                            p,
                        ]
                    )
    return rows


def run_nref(
    data: SplitData,
    n_refs: Sequence[int],
    features: Sequence[str],
    seed: int,
    classifier: str = "xgboost",
    selector: str = "clustering_embeddings",
    threads: int = 1,
    max_train_rows: int | None = None,
    reuse: SplitRunRows | None = None,
) -> pd.DataFrame:
    """Generic assessor AUC against the number of reference instances (Figures 8-9).

    One selector (KMeans on embeddings) and one classifier (XGBoost), as in the paper; sizes
    larger than the training split are skipped. `reuse`: the same split's `run_split` rows;
    a size whose fits that run already made (the same references, classifier, seed and
    training rows) takes its rows from there instead of fitting them again.
    """
    split = data.split
    eval_llms = {"validation": data.llms["validation"], "test": data.llms["test"]}
    train_llms = data.llms["train"]
    e_tr = data.emb["train"]
    y_tall = data.z_train.T.reshape(-1)
    keep = tall_rows(len(train_llms), len(e_tr), max_train_rows, seed)
    if keep is not None:
        y_tall = y_tall[keep]
    rows: list[list] = []
    for n_ref in n_refs:
        if n_ref > len(e_tr):
            log.warning(
                "%s: n_ref=%d exceeds the %d training instances; skipped", split, n_ref, len(e_tr)
            )
            continue
        ref = select_references(data, [selector], n_ref, seed)[selector]
        known = (
            reuse.generic(
                n_ref, selector, classifier, features, data.ids["train"][ref], max_train_rows
            )
            if reuse is not None
            else None
        )
        if known is not None:
            log.info("%s: n_ref=%d taken from the split's run (same fits)", split, n_ref)
            rows += known
            continue
        for feat in progress_bar(features, desc=f"{split}: n_ref={n_ref}", mininterval=5):
            x_tr = generic_matrix(
                feat, instance_block(feat, e_tr, e_tr[ref]), data.z_ref(train_llms, ref), rows=keep
            )
            xs, order = [], []
            for role, llms in eval_llms.items():
                blk = instance_block(feat, data.emb[role], e_tr[ref])
                for m in llms:
                    xs.append(generic_matrix(feat, blk, data.z_ref([m], ref)))
                    order.append(m)
            preds = dict(
                zip(
                    order,
                    fit_predict(classifier, x_tr, y_tall, xs, seed=seed, threads=threads),
                    strict=True,
                )
            )
            rows += [
                r[:-1]  # the sweep keeps AUCs only
                for r in _rows(
                    split, "generic", feat, selector, classifier, n_ref, data, eval_llms, preds
                )
            ]
    return pd.DataFrame(rows, columns=RESULT_COLUMNS)


class SplitRunRows:
    """The result rows and references of one split's `run_split`, for `run_nref` to reuse.

    The n_ref sweep's point at the configured n_ref (KMeans on embeddings, the grid's XGBoost)
    is the generic assessor that `run_split` already fitted for the same split and seed: the
    same references, training rows and classifier give the same predictions, so fitting it
    again is wasted work. `generic` returns those rows only when every input that determines
    them is verifiably the same (references by instance id, classifier, n_ref, the training
    row cap, every feature set); otherwise None and the sweep fits them itself.
    """

    def __init__(
        self,
        results: pd.DataFrame,
        references: Mapping[str, Sequence[str]],
        n_ref: int,
        max_train_rows: int | None,
    ):
        self.results, self.references = results, references
        self.n_ref, self.max_train_rows = int(n_ref), max_train_rows

    @classmethod
    def read(cls, results_path, references_path, n_ref: int, max_train_rows: int | None):
        import json
        from pathlib import Path

        # pandas reads floats back exactly as it wrote them (shortest round-trip repr), so the
        # rewritten rows are byte-identical (tests/test_assessors_nref_reuse.py)
        results = pd.read_csv(
            results_path,
            dtype={"selector": str, "features": str, "classifier": str, "llm": str},
            keep_default_na=False,
            na_values=[""],
        )
        references = json.loads(Path(references_path).read_text())
        return cls(results, references, n_ref, max_train_rows)

    def generic(
        self,
        n_ref: int,
        selector: str,
        classifier: str,
        features: Sequence[str],
        ref_ids,
        max_train_rows: int | None,
    ) -> list[list] | None:
        if (
            n_ref != self.n_ref
            or max_train_rows != self.max_train_rows
            or list(self.references.get(selector, [])) != [str(i) for i in ref_ids]
        ):
            return None
        r = self.results
        out = []
        for feat in features:
            g = r[
                (r["method"] == "generic")
                & (r["features"] == feat)
                & (r["selector"] == selector)
                & (r["classifier"] == classifier)
                & (r["n_ref"] == n_ref)
            ]
            if g.empty:
                return None
            out += g[RESULT_COLUMNS].to_numpy(dtype=object).tolist()
        return out
