"""How much to trust Figure 2 and Table 3: test AUCs against 0.5 with DeLong intervals, and
how stable each chosen combination is under resampling of the validation data.

Why 0.5 and not the max random line on test data: each method's combination is chosen on
validation data; on the test instances it is one fixed scorer, so a scorer with no signal has
expected test AUC 0.5 whatever the selection did. (The max random line stays the right
reference for the *validation* AUC of the winner, which selection inflates: Table 3.)

- Test AUC: the mean over the test LLMs (each LLM's AUC on the same test instances) with
  DeLong's variance taken over instances (`evalsci.stats.roc`: the per-instance influence
  vectors of every LLM's AUC summed, so the LLMs' shared instances are accounted for), its
  95% interval and the one-sided p-value of H1: mean AUC > 0.5 (z test). The same vectors
  give the paired difference of each method to the generic assessor.
- Stability: B seeded resamples of the validation LLMs (with replacement) and of the
  validation instances (with replacement, the same draw for every LLM); in each, selection
  runs again (win rates as `selection.win_rates`, the same tie rule) and we count how often
  the original winner wins again. A winner is marked *within noise* when it wins again in
  fewer than half of the resamples (`NOISE_SHARE`): another combination is then at least as
  likely the "best" on resampled validation data.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd
from scipy.stats import norm, rankdata

from evalsci.stats.roc import auc_ci, auc_difference, auc_influence, combined_variance

from .selection import COMBO_KEYS, TIE_DECIMALS, choose

__all__ = [
    "N_RESAMPLES",
    "NOISE_SHARE",
    "RunPredictions",
    "write_predictions",
    "generic_winner_resamples",
    "paired_differences",
    "resample_winners",
    "test_auc_summary",
    "winner_stability",
]

N_RESAMPLES = 200
NOISE_SHARE = 0.5
LEVEL = 0.95


def write_predictions(path, res: pd.DataFrame, preds, data) -> None:
    """One split's prediction vectors (one per result row) and every evaluated LLM's labels
    on the validation and test instances, as .npz (rows = positions in the run's CSV)."""
    llms = list(dict.fromkeys(res["llm"]))
    arrays = {"llms": np.array(llms)}
    for eval_set in ("validation", "test"):
        idx = np.flatnonzero(res["eval_set"].to_numpy() == eval_set)
        arrays[f"{eval_set}_rows"] = idx
        arrays[f"{eval_set}_pred"] = np.stack([np.asarray(preds[i], float) for i in idx])
        arrays[f"{eval_set}_y"] = np.stack([data.labels(m, eval_set) for m in llms]).astype(np.int8)
    with open(path, "wb") as fh:
        np.savez_compressed(fh, **arrays)


class RunPredictions:
    """The predictions of one or more splits' runs, looked up by result row."""

    def __init__(self, per_split: Mapping[str, tuple[pd.DataFrame, Mapping]]):
        self._splits = dict(per_split)

    @classmethod
    def read(cls, run_paths, prediction_paths) -> RunPredictions:
        out = {}
        for rp, pp in zip(run_paths, prediction_paths, strict=True):
            res = pd.read_csv(rp, usecols=["split"])
            with np.load(pp) as z:
                arrays = {k: z[k] for k in z.files}
            n = len(res)
            for eval_set in ("validation", "test"):
                if (arrays[f"{eval_set}_rows"] >= n).any():
                    raise ValueError(f"{pp}: row numbers beyond the {n} rows of {rp}")
            out[str(res["split"].iloc[0])] = (n, arrays)
        return cls(out)

    def get(self, split: str, pos: int, eval_set: str, llm: str) -> tuple[np.ndarray, np.ndarray]:
        """(labels, predictions) of row `pos` (position within its split's run CSV)."""
        _, a = self._splits[split]
        rows = a[f"{eval_set}_rows"]
        k = int(np.searchsorted(rows, pos))
        if k >= len(rows) or rows[k] != pos:
            raise KeyError(f"no {eval_set} predictions for row {pos} of split {split}")
        j = int(np.flatnonzero(a["llms"] == llm)[0])
        return a[f"{eval_set}_y"][j].astype(int), a[f"{eval_set}_pred"][k]


def _chosen_test_rows(res: pd.DataFrame, split: str) -> dict[str, pd.DataFrame]:
    """Per method, the test rows of its chosen combination (as Figure 2)."""
    out = {}
    for method in ("generic", "random_selector", "reference_only", "all_train"):
        _, _, _, r = choose(res, split, method)
        out[method] = r[r["llm_role"] == "test"]
    s = res[(res["split"] == split) & (res["method"] == "specific")]
    picks = []
    for _, g in s.groupby("llm", sort=False):
        v = g[g["eval_set"] == "validation"].set_index(["features", "classifier"])["auc"]
        best = int(np.nanargmax(v.round(TIE_DECIMALS).to_numpy())) if v.notna().any() else 0
        f, c = v.index[best]
        picks.append(g[(g["eval_set"] == "test") & (g["features"] == f) & (g["classifier"] == c)])
    out["specific"] = pd.concat(picks)
    return out


def p_above_half(mean: float, se: float) -> float:
    """One-sided p of H1 mean test AUC > 0.5 (z = (mean - 0.5) / se). DeLong's SE is zero
    only where every placement value is equal: a constant scorer (AUC exactly 0.5), which is
    no evidence at all (p = 1), or perfect separation on every test LLM (p = 0)."""
    if se > 0:
        return float(norm.sf((mean - 0.5) / se))
    return 0.0 if mean > 0.5 else 1.0


def _split_influences(res: pd.DataFrame, preds: RunPredictions, split: str):
    """Per method, each test LLM's AUC and influence vector on `split` (chosen combinations as
    Figure 2), and the test LLMs every method has an AUC for."""
    chosen = _chosen_test_rows(res, split)
    infl: dict[str, dict[str, np.ndarray]] = {}
    aucs: dict[str, dict[str, float]] = {}
    for method, r in chosen.items():
        infl[method], aucs[method] = {}, {}
        for _, row in r.iterrows():
            y, p = preds.get(split, int(row["row"]), "test", row["llm"])
            if min(y.sum(), len(y) - y.sum()) < 2:
                continue  # no DeLong variance (e.g. an LLM that solves no item)
            aucs[method][row["llm"]], infl[method][row["llm"]] = auc_influence(y, p)
    llms = sorted(set.intersection(*(set(v) for v in aucs.values())))
    return list(chosen), aucs, infl, llms


def _difference(aucs, infl, llms, a: str, b: str):
    return auc_difference(
        [aucs[a][m] for m in llms],
        [infl[a][m] for m in llms],
        [aucs[b][m] for m in llms],
        [infl[b][m] for m in llms],
    )


def test_auc_summary(res: pd.DataFrame, preds: RunPredictions) -> pd.DataFrame:
    """Per (split, method): mean test AUC over the test LLMs with both labels (at least 2 of
    each), DeLong SE over instances, 95% CI, one-sided p of H1 mean > 0.5, and the paired
    difference to the generic assessor with its SE. `res` rows keep their per-split positions
    in column `row`."""
    z = float(norm.ppf(0.5 + LEVEL / 2))
    rows = []
    for split in res["split"].unique():
        methods, aucs, infl, llms = _split_influences(res, preds, split)
        k = len(llms)
        spread = _combination_spread(res, split, llms)
        for method in methods:
            mean = float(np.mean([aucs[method][m] for m in llms]))
            u = [infl[method][m] for m in llms]
            var = combined_variance(u, [1 / k] * k)
            se = math.sqrt(var)
            lo, hi = auc_ci(mean, var, LEVEL)
            d = _difference(aucs, infl, llms, method, "generic")
            rows.append(
                {
                    "split": split,
                    "method": method,
                    "n_llms": k,
                    "auc_mean": round(mean, 4),
                    "se": round(se, 4),
                    "ci_low": round(lo, 4),
                    "ci_high": round(hi, 4),
                    "p_above_half": float(f"{p_above_half(mean, se):.3g}"),
                    "diff_vs_generic": round(d.diff, 4),
                    "se_diff_vs_generic": round(d.se, 4),
                    "z": round(z, 4),
                    # the mean test AUC every candidate combination would have had: where the
                    # chosen one sits among them is what selection on validation data did
                    "auc_median_combination": spread.get(method, (np.nan, np.nan))[0],
                    "auc_best_combination": spread.get(method, (np.nan, np.nan))[1],
                }
            )
    return pd.DataFrame(rows)


def paired_differences(res: pd.DataFrame, preds: RunPredictions) -> pd.DataFrame:
    """Per split, every pair of methods (a before b in Figure 2's order): the mean test AUC of a
    minus that of b over the same test LLMs and instances, with DeLong's paired SE, z and p
    (`evalsci.stats.roc.delong_paired`: instances as the sampling unit). No multiplicity
    correction here: each claim that reads this table names its family."""
    rows = []
    for split in res["split"].unique():
        methods, aucs, infl, llms = _split_influences(res, preds, split)
        for i, a in enumerate(methods):
            for b in methods[i + 1 :]:
                d = _difference(aucs, infl, llms, a, b)
                rows.append(
                    {
                        "split": split,
                        "method_a": a,
                        "method_b": b,
                        "n_llms": d.n_llms,
                        "auc_a": round(d.auc_a, 4),
                        "auc_b": round(d.auc_b, 4),
                        "diff": round(d.diff, 4),
                        "se": round(d.se, 4),
                        "z": round(d.z, 3),
                        "p_a_greater": float(f"{d.p_greater:.3g}"),
                        "p_two_sided": float(f"{d.p_two_sided:.3g}"),
                    }
                )
    return pd.DataFrame(rows)


def _combination_spread(res: pd.DataFrame, split: str, llms) -> dict[str, tuple[float, float]]:
    """Per method with candidates: (median, max) over its combinations of the mean test AUC
    over `llms`."""
    out = {}
    for method, (src, keys) in COMBO_KEYS.items():
        r = res[(res["split"] == split) & (res["method"] == src) & (res["llm_role"] == "test")]
        if method == "random_selector":
            r = r[r["selector"] == "random"]
        m = r[r["llm"].isin(llms)].groupby(keys)["auc"].mean()
        out[method] = (round(float(m.median()), 4), round(float(m.max()), 4))
    return out


def _auc_matrix(y: np.ndarray, p: np.ndarray) -> np.ndarray:
    """AUC of every row of p (combinations x instances) on labels y; NaN with one label."""
    pos = y.astype(bool)
    m, n = int(pos.sum()), int((~pos).sum())
    if m == 0 or n == 0:
        return np.full(len(p), np.nan)
    r = rankdata(p, axis=1)
    return (r[:, pos].sum(axis=1) - m * (m + 1) / 2) / (m * n)


def _winner(aucs: np.ndarray) -> int | None:
    """Selection's rule on an (LLMs x combinations) AUC matrix: highest mean win rate (ties
    one half, AUCs rounded first), the first in order on ties; None if no LLM has an AUC."""
    wr = []
    for a in aucs:
        if np.isnan(a).all():
            continue
        v = np.round(a, TIE_DECIMALS)
        gt = (v[:, None] > v[None, :]).sum(axis=1)
        eq = (v[:, None] == v[None, :]).sum(axis=1) - 1
        wr.append((gt + 0.5 * eq) / max(len(v) - 1, 1))
    if not wr:
        return None
    return int(np.argmax(np.round(np.mean(wr, axis=0), TIE_DECIMALS)))


def resample_winners(
    res: pd.DataFrame, preds: RunPredictions, split: str, method: str, seed: int
) -> tuple[list[tuple], int, list[int | None]]:
    """Selection rerun on N_RESAMPLES resamples of the validation LLMs and instances: (the
    method's candidate combinations, sorted; the index of its chosen one; the index of the
    winner in each resample, None where no resampled LLM has an AUC)."""
    src, keys = COMBO_KEYS[method]
    r = res[(res["split"] == split) & (res["method"] == src)]
    if method == "random_selector":
        r = r[r["selector"] == "random"]
    val = r[(r["llm_role"] == "validation") & (r["eval_set"] == "validation")]
    best, _, _, _ = choose(res, split, method)
    combos = sorted(map(tuple, val[keys].drop_duplicates().itertuples(index=False)))  # sorted
    target = combos.index(tuple(best))
    llms = sorted(val["llm"].unique())
    ys, ps = [], []
    for m in llms:
        g = val[val["llm"] == m].set_index(keys).sort_index()
        y, _ = preds.get(split, int(g["row"].iloc[0]), "validation", m)
        ys.append(y)
        ps.append(np.stack([preds.get(split, int(i), "validation", m)[1] for i in g["row"]]))
    rng = np.random.default_rng([seed, len(split), *split.encode(), *method.encode()])
    n_inst = len(ys[0])
    winners = []
    for _ in range(N_RESAMPLES):
        pick_llm = rng.integers(0, len(llms), len(llms))
        pick_inst = rng.integers(0, n_inst, n_inst)
        a = np.stack([_auc_matrix(ys[j][pick_inst], ps[j][:, pick_inst]) for j in pick_llm])
        winners.append(_winner(a))
    return combos, target, winners


def winner_stability(
    res: pd.DataFrame, preds: RunPredictions, split: str, method: str, seed: int
) -> float:
    """Share of N_RESAMPLES resamples of the validation LLMs and instances in which `method`'s
    chosen combination on `split` is chosen again."""
    _, target, winners = resample_winners(res, preds, split, method, seed)
    return sum(w == target for w in winners) / N_RESAMPLES


def generic_winner_resamples(
    res: pd.DataFrame, preds: RunPredictions, seed: int
) -> tuple[pd.DataFrame, dict[str, float]]:
    """Per split, the generic assessor's winning (features, selector, classifier) in each
    resample of `resample_winners` (what Table 3's tallies rest on), and its stability."""
    keys = COMBO_KEYS["generic"][1]
    rows, stability = [], {}
    for split in res["split"].unique():
        combos, target, winners = resample_winners(res, preds, split, "generic", seed)
        stability[split] = sum(w == target for w in winners) / N_RESAMPLES
        for b, w in enumerate(winners):
            rows.append(
                {"split": split, "resample": b, **dict(zip(keys, combos[w], strict=True))}
                if w is not None
                else {"split": split, "resample": b}
            )
    return pd.DataFrame(rows, columns=["split", "resample", *keys]), stability
