"""The paper's Section 5 findings, each as a stated test on one run's per-example scores.

Paper 004 states four findings (Sections 5.1 and 5.2); each becomes a test at ALPHA whose
multiplicity family is named in its row, decided from the scores of the run's trials (every
curve: a trial's permutation over k = 0..K, with its trial's zero-shot prompt at k = 0, all on
the same validation examples, so comparisons are paired by example):

- `plateau` (Sec. 5.1, Figure 1): on the curve averaged over trials and permutations, "much of
  the performance improvement ... occurs within the first 8 in-context examples, where
  performance then begins to plateau". Tested: the early gain A(8) - A(0) > 0 and the early
  gain exceeds the late gain A(K) - A(8), both one-sided, Holm over the two. Each is a mean over
  (curves x examples), its SE from both samples (`two_way_mean`: curves are random prompt
  draws, examples a random validation subsample), t with Satterthwaite df.
- `erratic` (Sec. 5.1, Figure 2): plateaus "are not observable within individual permutations
  ... we continue to observe erratic performance changes up through k = 20". Tested per curve:
  Cochran's Q that the accuracies at k = 8..K are equal (the same examples at every k), Holm
  over the curves; supported when some curve rejects equality. `erratic_after_4`: the same
  from k = 4 (the plateau the paper cites from Wang et al. 2024).
- `late_best` (Sec. 5.1): "the best performance ... may occur anywhere from k = 1..20". Tested
  per curve: some k > 8 scores significantly higher than k = 8 (exact McNemar, Bonferroni over
  the k > 8, Holm over the curves).
- `one_shot_below` / `one_shot_above` (Sec. 5.1, Figure 3): one-shot prompts can be
  significantly worse, and significantly better, than zero-shot "depending on the selected
  example". Tested per one-shot prompt (each curve's k = 1) against its zero-shot prompt:
  exact McNemar, two-sided, Holm over all the run's one-shot prompts; supported when some
  prompt is significantly below (above).
- `one_shot_depends` (Sec. 5.1): one-shot accuracy depends on the selected example. Tested:
  Cochran's Q across the one-shot prompts (distinct first demonstrations) on the same examples.
- `selection` (Sec. 5.2, Figure 4): needs the high/low/random set runs at a size where their
  curves can be told apart; this table states why a run cannot test it (`selection_reason`).

A finding the run cannot test is `untestable` with the measured reason: the curves stop before
k = 8, too few examples for the exact test to reach ALPHA (`min_mcnemar_p`), a single one-shot
prompt, or the model at chance (its best accuracy not above chance by a one-sided binomial
test at ALPHA: then no finding about its curves is informative).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from evalsci.stats.multiple import holm
from evalsci.stats.repeated import cochran_q, mcnemar, min_mcnemar_p, two_way_mean
from evalsci.studies.mc_icl.columns import FINDING_COLUMNS
from evalsci.studies.mc_icl.scores import correct

ALPHA = 0.05
#: the paper's plateau point (Section 5.1: k = 8 after Min et al. 2022 and Wu et al. 2023)
PLATEAU_K = 8
#: the earlier plateau point the paper cites (Wang et al. 2024)
EARLY_PLATEAU_K = 4
FINDINGS = (
    "plateau",
    "erratic",
    "erratic_after_4",
    "late_best",
    "one_shot_below",
    "one_shot_above",
    "one_shot_depends",
)
COLUMNS = FINDING_COLUMNS


def curves(scores: pd.DataFrame) -> dict[tuple[str, str], tuple[np.ndarray, list]]:
    """Per (model, dataset): the 0/1 matrix (curves x k = 0..K x examples) of the trial runs,
    k = 0 from each curve's trial, and the curves' (trial, permutation, first demo) keys."""
    df = scores[scores["set"] == "trial"].assign(correct=correct(scores[scores["set"] == "trial"]))
    out = {}
    for (m, d), sub in df.groupby(["model", "dataset"], sort=True):
        examples = np.sort(sub["example"].unique())
        col = {e: i for i, e in enumerate(examples)}
        K = int(sub["k"].max())
        zero = {
            t: z.set_index("example")["correct"].reindex(examples).to_numpy()
            for t, z in sub[sub["k"] == 0].groupby("trial")
        }
        keys, mats = [], []
        for (t, p), c in sub[sub["permutation"] >= 0].groupby(["trial", "permutation"]):
            mat = np.zeros((K + 1, len(examples)), dtype=np.int64)
            mat[0] = zero[t]
            for k, ck in c.groupby("k"):
                mat[int(k), [col[e] for e in ck["example"]]] = ck["correct"].to_numpy()
            first = int(c.loc[c["k"] == 1, "demo"].iloc[0])
            keys.append((int(t), int(p), first))
            mats.append(mat)
        out[(m, d)] = (np.stack(mats), keys)
    return out


def _fmt(x: float) -> str:
    return f"{x:+.3f}"


def _chance(mat: np.ndarray, n_choices: int) -> tuple[bool, str]:
    """Whether the model is at chance on every prompt of the run: the best prompt's accuracy
    (max over curves and k) is not above 1/n_choices by a one-sided binomial test at ALPHA,
    Bonferroni over the run's distinct prompts (the max is a selection)."""
    acc = mat.mean(axis=2)
    best = float(acc.max())
    n = mat.shape[2]
    prompts = 1 + mat.shape[0] * (mat.shape[1] - 1)
    p = float(stats.binomtest(int(round(best * n)), n, 1 / n_choices, "greater").pvalue)
    at_chance = min(1.0, p * prompts) >= ALPHA
    return at_chance, (
        f"the model is at chance: its best prompt scores {best:.3f} on {n} examples, not above "
        f"1/{n_choices} (one-sided binomial p = {p:.2g}, Bonferroni over {prompts} prompts)"
    )


def _row(key, finding, n, ncurves, **kw) -> dict:
    m, d = key
    return {
        "model": m,
        "dataset": d,
        "finding": finding,
        "n": n,
        "curves": ncurves,
        "ours": kw.get("ours", ""),
        "uncertainty": kw.get("uncertainty", ""),
        "test": kw.get("test", ""),
        "p": kw.get("p", np.nan),
        "outcome": kw["outcome"],
        "reason": kw.get("reason", ""),
    }


def _plateau(key, mat, K) -> dict:
    n, r = mat.shape[2], mat.shape[0]
    if K <= PLATEAU_K:
        reason = f"the curves stop at K = {K}, before the paper's plateau k = {PLATEAU_K}"
        return _row(key, "plateau", n, r, outcome="untestable", reason=reason)
    early = mat[:, PLATEAU_K] - mat[:, 0]
    late = mat[:, K] - mat[:, PLATEAU_K]
    e, gap = two_way_mean(early), two_way_mean(early - late)
    lt = two_way_mean(late)
    p_for = holm([e.p_greater(0), gap.p_greater(0)])
    p_against = holm([1 - e.p_greater(0), 1 - gap.p_greater(0)])
    outcome = (
        "supports"
        if (p_for < ALPHA).all()
        else "contradicts"
        if (p_against < ALPHA).any()
        else "inconclusive"
    )
    lo, hi = e.interval()
    glo, ghi = gap.interval()
    se_kind = (
        "two-way curves x examples SE, Satterthwaite df"
        if r > 1
        else "one curve: SE over the examples only, for this demonstration draw and order; "
        "the variance between draws needs more curves"
    )
    return _row(
        key,
        "plateau",
        n,
        r,
        ours=(
            f"gain k = 0 to {PLATEAU_K}: {_fmt(e.mean)}; k = {PLATEAU_K} to {K}: {_fmt(lt.mean)}; "
            f"early minus late: {_fmt(gap.mean)}"
        ),
        uncertainty=(
            f"early gain SE {e.se:.3f}, 95% CI [{lo:+.3f}, {hi:+.3f}] (df {e.df:.1f}); early "
            f"minus late SE {gap.se:.3f}, 95% CI [{glo:+.3f}, {ghi:+.3f}] (df {gap.df:.1f})"
        ),
        test=(
            f"one-sided t tests ({se_kind}) of early gain > 0 and early gain > late gain at "
            f"alpha {ALPHA}, Holm over the 2; contradicted when either opposite is shown"
        ),
        p=float(max(p_for)) if outcome != "contradicts" else float(min(p_against)),
        outcome=outcome,
    )


def _erratic(key, mat, K, start: int, name: str) -> dict:
    """Cochran's Q per curve that the accuracies at k = start..K are equal, Holm over curves."""
    n, r = mat.shape[2], mat.shape[0]
    if K <= start:
        reason = f"the curves stop at K = {K}: no k after the paper's plateau k = {start}"
        return _row(key, name, n, r, outcome="untestable", reason=reason)
    qs = [cochran_q(c[start:].T) for c in mat]
    adj = holm([p for *_, p in qs])
    acc = mat[:, start:].mean(axis=2)
    rejected = int((adj < ALPHA).sum())
    return _row(
        key,
        name,
        n,
        r,
        ours=(
            f"{rejected} of {r} curves change beyond noise over k = {start}..{K} (accuracy "
            f"ranges there: {', '.join(f'{a.min():.3f}-{a.max():.3f}' for a in acc)})"
        ),
        uncertainty="Holm-adjusted p per curve: " + ", ".join(f"{p:.2g}" for p in adj),
        test=(
            f"Cochran's Q per curve (equal accuracy at k = {start}..{K} on the same "
            f"{n} examples), alpha {ALPHA}, Holm over the {r} curves; supported when one rejects"
        ),
        p=float(adj.min()),
        outcome="supports" if rejected else "inconclusive",
    )


def _late_best(key, mat, K) -> dict:
    """Whether some curve does significantly better after the plateau point than at it: per
    curve, the exact McNemar of each k in PLATEAU_K+1..K against k = PLATEAU_K, the smallest
    p among the k that score higher, Bonferroni over those K - PLATEAU_K candidates (the best k
    is a selection), then Holm over the curves."""
    n, r = mat.shape[2], mat.shape[0]
    if K <= PLATEAU_K:
        reason = f"the curves stop at K = {K}: no k after the paper's plateau k = {PLATEAU_K}"
        return _row(key, "late_best", n, r, outcome="untestable", reason=reason)
    best = [int(np.argmax(np.round(c.mean(axis=1), 9))) for c in mat]  # ties: smallest k
    ps = []
    for c in mat:
        late = [
            mcnemar(c[k], c[PLATEAU_K])[2]
            for k in range(PLATEAU_K + 1, K + 1)
            if c[k].mean() > c[PLATEAU_K].mean()
        ]
        ps.append(min(1.0, min(late, default=1.0) * (K - PLATEAU_K)))
    adj = holm(ps)
    hits = int((adj < ALPHA).sum())
    return _row(
        key,
        "late_best",
        n,
        r,
        ours=(
            f"best k per curve: {', '.join(map(str, best))}; {hits} of {r} curves score "
            f"significantly higher at some k > {PLATEAU_K} than at k = {PLATEAU_K}"
        ),
        uncertainty="Holm-adjusted p per curve: " + ", ".join(f"{p:.2g}" for p in adj),
        test=(
            f"per curve, exact McNemar of each higher-scoring k in {PLATEAU_K + 1}..{K} against "
            f"k = {PLATEAU_K} on the same {n} examples, Bonferroni over the {K - PLATEAU_K} k, "
            f"alpha {ALPHA}, Holm over the {r} curves; supported when one curve's is significant"
        ),
        p=float(adj.min()),
        outcome="supports" if hits else "inconclusive",
    )


def _one_shot(key, mat, keys) -> list[dict]:
    n, r = mat.shape[2], mat.shape[0]
    # distinct one-shot prompts: one per first demonstration (a repeat is the same prompt)
    firsts: dict[int, int] = {}
    for i, (_, _, first) in enumerate(keys):
        firsts.setdefault(first, i)
    idx = list(firsts.values())
    rows = []
    if min_mcnemar_p(n) >= ALPHA:
        reason = (
            f"n = {n} examples: the exact McNemar test's smallest attainable p-value is "
            f"{min_mcnemar_p(n):.3g} >= alpha {ALPHA}, so no one-shot prompt can differ from "
            f"zero-shot significantly"
        )
        return [
            _row(key, f, n, r, outcome="untestable", reason=reason)
            for f in ("one_shot_below", "one_shot_above", "one_shot_depends")
        ]
    tests = [mcnemar(mat[i, 1], mat[i, 0]) for i in idx]
    adj = holm([p for *_, p in tests])
    diffs = [mat[i, 1].mean() - mat[i, 0].mean() for i in idx]
    below = [i for i, (d, p) in enumerate(zip(diffs, adj, strict=True)) if d < 0 and p < ALPHA]
    above = [i for i, (d, p) in enumerate(zip(diffs, adj, strict=True)) if d > 0 and p < ALPHA]
    listed = ", ".join(f"{_fmt(d)} (p {p:.2g})" for d, p in zip(diffs, adj, strict=True))
    test = (
        f"exact McNemar (two-sided) of each one-shot prompt against zero-shot on the same {n} "
        f"examples, alpha {ALPHA}, Holm over the run's {len(idx)} one-shot prompts"
    )
    for finding, hits, word in (
        ("one_shot_below", below, "below"),
        ("one_shot_above", above, "above"),
    ):
        rows.append(
            _row(
                key,
                finding,
                n,
                r,
                ours=f"{len(hits)} of {len(idx)} one-shot prompts significantly {word} zero-shot",
                uncertainty=f"one-shot minus zero-shot per prompt (Holm-adjusted p): {listed}",
                test=test + f"; supported when one is significantly {word}",
                p=float(min((adj[i] for i in hits), default=adj.min())),
                outcome="supports" if hits else "inconclusive",
            )
        )
    if len(idx) < 2:
        reason = "one distinct one-shot prompt: nothing to compare it with"
        rows.append(_row(key, "one_shot_depends", n, r, outcome="untestable", reason=reason))
    else:
        q, df, p = cochran_q(mat[idx, 1].T)
        accs = ", ".join(f"{mat[i, 1].mean():.3f}" for i in idx)
        rows.append(
            _row(
                key,
                "one_shot_depends",
                n,
                r,
                ours=f"one-shot accuracies {accs} (zero-shot {mat[0, 0].mean():.3f})",
                uncertainty=f"Cochran's Q = {q:.2f} on {df} df, p = {p:.2g}",
                test=(
                    f"Cochran's Q (equal accuracy of the {len(idx)} one-shot prompts on the "
                    f"same {n} examples) at alpha {ALPHA}, a family of one"
                ),
                p=p,
                outcome="supports" if p < ALPHA else "inconclusive",
            )
        )
    return rows


def findings(scores: pd.DataFrame, n_choices: dict[str, int]) -> pd.DataFrame:
    """The findings table of a run (COLUMNS), one row per (model, dataset, finding).
    `n_choices`: the number of answer options per dataset (chance is 1 / that). A finding the
    run's size cannot test says so first (K, n); a testable one on a model at chance says that."""
    rows = []
    for key, (mat, keys) in curves(scores).items():
        K = mat.shape[1] - 1
        at_chance, why = _chance(mat, n_choices[key[1]])
        for row in [
            _plateau(key, mat, K),
            _erratic(key, mat, K, PLATEAU_K, "erratic"),
            _erratic(key, mat, K, EARLY_PLATEAU_K, "erratic_after_4"),
            _late_best(key, mat, K),
            *_one_shot(key, mat, keys),
        ]:
            if at_chance and row["outcome"] != "untestable":
                row = _row(key, row["finding"], row["n"], row["curves"], outcome="untestable")
                row["reason"] = why
            rows.append(row | {"K": K})
    return pd.DataFrame(rows, columns=COLUMNS)


def curve_table(scores: pd.DataFrame, ks=(0, 1, 2, 4, 8, 12, 16, 20)) -> pd.DataFrame:
    """Accuracy of every curve at the given k (those the run reached), and their mean."""
    out = []
    for (m, d), (mat, keys) in curves(scores).items():
        reached = [k for k in ks if k < mat.shape[1]]
        acc = mat.mean(axis=2)
        for (t, p, _), a in zip(keys, acc, strict=True):
            head = {"model": m, "dataset": d, "curve": f"trial {t}, permutation {p}"}
            out.append(head | {f"k={k}": a[k] for k in reached})
        head = {"model": m, "dataset": d, "curve": "mean"}
        out.append(head | {f"k={k}": acc[:, k].mean() for k in reached})
    return pd.DataFrame(out)


def main(argv=None) -> int:
    """Write a run's findings table from its trial shards: for a recorded run whose commit
    predates the table (the rule mc_icl_make_accuracy_tables writes it in newer runs)."""
    import argparse
    from pathlib import Path

    from evalsci import paths
    from evalsci.pipeline import artefacts
    from evalsci.pipeline.jobs import atomic_path
    from evalsci.studies.mc_icl.scores import ScoresError, read_scores
    from evalsci.studies.mc_icl.templates import num_choices

    p = argparse.ArgumentParser(
        prog="python -m evalsci.studies.mc_icl.findings", description=main.__doc__.split(":")[0]
    )
    p.add_argument("--root", required=True, help="the run's directory (its results/ tree)")
    a = p.parse_args(argv)
    root = Path(a.root)
    shards = sorted(root.glob(str(paths.result("mc_icl", "scores/*/*/trial*.parquet"))))
    try:
        sc = read_scores(shards)
    except ScoresError as e:
        p.exit(2, f"{p.prog}: error: {root}: {e}\n")
    out = root / artefacts.outputs("mc_icl")["findings"][0]
    found = findings(sc, {d: num_choices(d) for d in sc["dataset"].unique()})
    with atomic_path(out) as tmp:
        found.to_csv(tmp, index=False)
    print(f"{out}: {len(shards)} shards")
    print(found[["model", "dataset", "finding", "outcome"]].to_string())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
