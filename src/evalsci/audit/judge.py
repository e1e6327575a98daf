"""Judge results against the standard and the max random baseline (evalsci.maxrandom).

Tail p-values are at the exact count of correct answers: P(X >= correct) for one guesser
(`p_standard`), P(max of t guessers >= correct) (`p_max`) and P(X <= correct) for one guesser
(`p_below`). Each is adjusted across the rows of the output (`--adjust`, multiplicity.py: the
family is every score of the output, one family per kind of test), and the `verdict` is the
test at level alpha (`--alpha`):

  above_max            p_max adjusted < alpha: better than the best of t random guessers;
  above_standard_only  p_standard adjusted < alpha, p_max not: better than one guesser only;
  not_above_chance     neither, nor below: the data cannot tell it from one random guesser;
  below_chance         p_below adjusted < alpha: significantly worse than one guesser.

(p_standard + p_below = 1 + P(X = correct) >= 1, so at alpha < 1/2 a score is never both
above and below chance.) The paper's point comparison, accuracy > baseline strictly, stays
as `point_verdict` (the baselines study's Table 1 and study `audit`'s counts use it).

Speed: the scores are judged as columns (frames.py). The count distribution is built once per
distinct (n, options), the max baseline once per distinct (n, options, t), and both tails of
every score of that (n, options) come from one vectorised call, so a million scores over a
hundred tasks cost a hundred baselines, not a million.

t, the number of tries a score was selected from (Yauney & Mimno: prompts, runs, checkpoints,
submissions), comes from one rule per score, named in the output column `t_rule`:

  option       --t given: every score gets it;
  stated       the input states it (a CSV `t` column, HELM trials, inspect-ai epochs);
  task_scores  otherwise: t = the number of scores of the same task in the inputs (every
               model, every run). The best of them was selected from that many tries; every
               score is judged against the same max baseline. A task with one score gets
               t = 1, where the max baseline is the standard one, and says so in `note`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

from evalsci.maxrandom import (
    count_tables,
    max_random_baseline,
    max_random_tail,
    standard_baseline,
    standard_lower_tail,
)

from .columns import OUTPUT_COLUMNS
from .frames import concat_frames, frame_labels, results_frame
from .multiplicity import adjust, check_adjust, check_alpha, significant
from .records import Result

# ordered from worst to best
VERDICTS = ("below_chance", "not_above_chance", "above_standard_only", "above_max")
POINT_VERDICTS = ("not_above_standard", "above_standard_only", "above_max")
#: one sentence per verdict, for the legend under the table and docs/audit.md
VERDICT_MEANING = {
    "above_max": "better than the best of t random guessers: p_max adjusted < alpha",
    "above_standard_only": "better than one random guesser (p_standard adjusted < alpha), "
    "but not than the best of t (p_max adjusted >= alpha)",
    "not_above_chance": "not distinguishable from one random guesser at alpha, either way",
    "below_chance": "worse than one random guesser: P(X <= correct) adjusted < alpha",
}
T_RULES = {
    "option": "--t given",
    "stated": "t stated by the input (CSV t column, HELM trials, inspect-ai epochs)",
    "task_scores": "t = the number of scores of the task in the inputs (every model and run): "
    "the best of them was selected from t tries",
}
T1_NOTE = (
    "t = 1: one score of this task in the inputs, so the max baseline is the standard one; "
    "if it was the best of several prompts, runs or checkpoints, give that number with --t"
)


def point_verdict(accuracy: float, standard: float, maximum: float) -> str:
    """The paper's point comparison (Yauney & Mimno): not above the standard baseline, above it
    only, or above the max random baseline too (strict inequalities, no test)."""
    return POINT_VERDICTS[int(point_verdicts(accuracy, standard, maximum))]


def point_verdicts(accuracy, standard, maximum) -> np.ndarray:
    """`point_verdict` for arrays: indices into POINT_VERDICTS."""
    above_std = np.asarray(accuracy > standard)
    return np.where(above_std, np.where(accuracy > maximum, 2, 1), 0)


def tested_verdicts(p_below, p_standard, p_max, alpha: float) -> np.ndarray:
    """The verdict of each score from its (already adjusted) p-values: indices into VERDICTS."""
    out = np.ones(np.shape(p_max), dtype=np.int8)  # not_above_chance
    out[significant(p_standard, alpha)] = 2
    out[significant(p_max, alpha)] = 3
    out[significant(p_below, alpha)] = 0
    return out


def choices_label(labels: Mapping) -> int | str:
    """The number of choices when every item agrees, else the label counts as compact JSON
    ('{"2": 10, "4": 240}')."""
    labels = {int(k): int(v) for k, v in labels.items()}
    if len(labels) == 1:
        return next(iter(labels))
    return json.dumps({str(k): v for k, v in sorted(labels.items())}, separators=(", ", ": "))


def check_t_option(t) -> int | None:
    if t is not None and (isinstance(t, bool) or int(t) != t or t < 1):
        raise ValueError(f"--t must be an integer >= 1, got {t!r}")
    return None if t is None else int(t)


def resolve_t(frame: pd.DataFrame, t: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(t per score as float64, index into T_RULE_CODES per score): the rule in the module
    docstring."""
    t = check_t_option(t)
    size = len(frame)
    if t is not None:
        return np.full(size, float(t)), np.zeros(size, dtype=np.int8)
    stated = frame["t"].to_numpy(dtype=float)
    has = ~np.isnan(stated)
    if has.all():  # no task's scores to count (a million-row CSV with a t column)
        return stated, np.ones(size, dtype=np.int8)
    per_task = frame.groupby("task", observed=True, sort=False)["n"].transform("size")
    tt = np.where(has, stated, per_task.to_numpy(dtype=float))
    return tt, np.where(has, 1, 2).astype(np.int8)


T_RULE_CODES = tuple(T_RULES)


#: a (t values x n+1 counts) tail table is built when it is no larger than this many entries
#: or than four times the scores it serves; else each score's tail is computed on its own
_TABLE = 1 << 16


def _groups(frame: pd.DataFrame):
    """(n, choices, labels, row indices in increasing order) per distinct (n, options): a hash
    of the keys (pandas' groupby hashes every key column: several times the memory for a
    million rows), then a stable sort of the group numbers (small integers: a radix sort)."""
    if not len(frame):
        return
    n = frame["n"].to_numpy(dtype=np.int64)
    choices = frame["choices"].to_numpy(dtype=np.int64)
    mixed = choices == 0
    lab = np.zeros(len(frame), dtype=np.int64)
    if mixed.any():
        lab[mixed] = pd.factorize(frame["labels"].to_numpy(dtype=object)[mixed])[0] + 1
    top = int(choices.max()) + 1
    if not mixed.any() and int(n.max()) < (2**62) // top:  # n, choices >= 0: one hash
        key = pd.factorize(n * top + choices)[0]
    else:
        key = np.zeros(len(frame), dtype=np.int64)
        for k in (n, choices, lab):  # each factor < len(frame) + 1, so no product overflows
            codes, uniq = pd.factorize(k)
            key = pd.factorize(key * len(uniq) + codes)[0]
    order = np.argsort(key.astype(np.min_scalar_type(max(int(key.max()), 0))), kind="stable")
    cut = np.flatnonzero(np.diff(key[order])) + 1
    labels = frame["labels"].to_numpy(dtype=object)
    for idx in np.split(order, cut):
        i = idx[0]
        yield int(n[i]), int(choices[i]), labels[i], idx


def _baselines(frame: pd.DataFrame, tt: np.ndarray):
    """standard, max_baseline, p_standard, p_max, p_below per score: one count distribution per
    distinct (n, options), one max baseline per distinct (n, options, t), and the tails of all
    of that (n, options)'s scores from one call (a table over every count 0..n when that is
    smaller than the scores; the same elementwise formula, so the same bits)."""
    size = len(frame)
    std, mx, p_std, p_max, p_low = (np.empty(size) for _ in range(5))
    correct = frame["correct"].to_numpy(dtype=np.int64)
    for n, choices, labels, idx in _groups(frame):
        n = int(n)
        p = frame_labels(choices, labels, n)
        std[idx] = standard_baseline(n, p)
        tg = tt[idx]
        inv, ut = pd.factorize(tg, sort=True)  # np.unique's answer, by a hash
        c = correct[idx]
        if (n + 1) * (len(ut) + 1) <= max(4 * len(idx), _TABLE):
            # t = 1 first: the standard tail is the max tail of one guesser
            baseline, upper, lower = count_tables(n, p, np.concatenate([[1.0], ut]))
            mx[idx] = baseline[1:][inv]
            p_std[idx], p_max[idx], p_low[idx] = upper[0][c], upper[1:][inv, c], lower[c]
        else:
            mx[idx] = np.asarray(max_random_baseline(n, p, ut))[inv]
            p_std[idx] = max_random_tail(c, n, p, 1.0)
            p_max[idx] = max_random_tail(c, n, p, tg)
            p_low[idx] = standard_lower_tail(c, n, p)
    return std, mx, p_std, p_max, p_low


def _notes(frame: pd.DataFrame, tt: np.ndarray, rule: np.ndarray):
    single = (rule == T_RULE_CODES.index("task_scores")) & (tt == 1)
    if not single.any() and isinstance(frame["notes"].dtype, pd.StringDtype):
        return frame["notes"].array  # text held in Arrow (a tidy CSV's): kept as it is
    notes = frame["notes"].to_numpy(dtype=object)
    if single.any():
        notes = notes.copy()
        notes[single] = [f"{s}; {T1_NOTE}" if s else T1_NOTE for s in notes[single]]
    return notes


def _sources(frame: pd.DataFrame) -> pd.Series:
    """'file:line' where the score has a line (CSV rows), else the reader's source. Built in
    Arrow: a million rows as Python strings would cost ~100 MB and seconds."""
    import pyarrow as pa
    import pyarrow.compute as pc

    line = frame["line"].to_numpy()
    if not (line > 0).any():
        return frame["source"]
    cat = frame["source"].array
    if len(cat.categories) == 1:  # one file: no per-row copy of its name before the join
        src = pa.scalar(str(cat.categories[0]), type=pa.string())
    else:
        words = pa.array([str(c) for c in cat.categories], type=pa.string())
        src = words.take(pa.array(cat.codes))
    has = line > 0
    out = pc.binary_join_element_wise(src, pc.cast(pa.array(line), pa.string()), ":")
    if not has.all():
        out = pc.if_else(pa.array(has), out, src)
    return pd.Series(pd.arrays.ArrowExtensionArray(out), index=frame.index)


def _choices_column(frame: pd.DataFrame) -> pd.Categorical:
    """The number of options (an int), or the label counts as JSON where the items differ,
    as a categorical: a million scores hold a few distinct values, so the CSV writer makes
    each one's text once instead of hashing a million Python objects per write."""
    choices = frame["choices"].to_numpy(dtype=np.int64)
    mixed = choices == 0
    if mixed.any():
        values = choices.astype(object)  # Python ints, as the scores' JSON shows them
        values[mixed] = frame["labels"].to_numpy(dtype=object)[mixed]
        codes, uniq = pd.factorize(values)
    else:
        codes, uniq = pd.factorize(choices)
    return pd.Categorical.from_codes(codes, categories=pd.Index(uniq.astype(object), dtype=object))


def _below_at_most(frame: pd.DataFrame, p_low: np.ndarray, below_at: dict) -> np.ndarray:
    """p_below of the scores whose options per item are known only as a range
    (`option_bounds`): their labels put every item at the least options, the conservative end
    of the tests above chance but the wrong end of the test below it (a guesser among fewer
    options gets more right, so P(X <= correct) is smaller); this one takes every item at the
    most options, its conservative end. `below_at`: {row: most options}."""
    p_low = p_low.copy()
    n, correct = frame["n"].to_numpy(), frame["correct"].to_numpy()
    for i, most in below_at.items():
        size = int(n[i])
        p_low[i] = float(standard_lower_tail(int(correct[i]), size, {int(most): size}))
    return p_low


def audit_frame(
    frame: pd.DataFrame,
    t: int | None = None,
    alpha: float = 0.05,
    method: str = "holm",
    below_at: dict | None = None,
) -> pd.DataFrame:
    """One judged row per score of a results frame (OUTPUT_COLUMNS), in its order. The
    verdicts are tests at `alpha`, each kind of p-value adjusted by `method` (`--adjust`)
    across every row."""
    alpha, method = check_alpha(alpha), check_adjust(method)
    tt, rule = resolve_t(frame, t)
    std, mx, p_std, p_max, p_low = _baselines(frame, tt)
    if below_at:
        p_low = _below_at_most(frame, p_low, below_at)
    adj_std, adj_max, adj_low = (adjust(p, method) for p in (p_std, p_max, p_low))
    acc = frame["accuracy"].to_numpy(dtype=float)
    missing = np.isnan(acc)
    if missing.any():  # the count's ratio where the input gives no accuracy
        acc = np.where(missing, frame["correct"].to_numpy() / frame["n"].to_numpy(), acc)
    size = len(frame)
    out = pd.DataFrame(
        {
            "model": frame["model"],
            "task": frame["task"],
            "accuracy": acc,
            "n": frame["n"],
            "choices": _choices_column(frame),
            "t": tt.astype(np.int64) if np.all(tt < 2**62) else tt,
            "standard": std,
            "max_baseline": mx,
            "p_standard": p_std,
            "p_max": p_max,
            "verdict": pd.Categorical.from_codes(
                tested_verdicts(adj_low, adj_std, adj_max, alpha), categories=VERDICTS
            ),
            "source": _sources(frame),
            "t_rule": pd.Categorical.from_codes(rule, categories=T_RULE_CODES),
            "metric": frame["metric"],
            "derived": frame["derived"],
            "limited": frame["limited"],
            "choices_source": frame["choices_source"],
            "note": _notes(frame, tt, rule),
            "point_verdict": pd.Categorical.from_codes(
                point_verdicts(acc, std, mx), categories=POINT_VERDICTS
            ),
            "p_below": p_low,
            "p_standard_adjusted": adj_std,
            "p_max_adjusted": adj_max,
            "p_below_adjusted": adj_low,
            "adjust": pd.Categorical.from_codes(np.zeros(size, dtype=np.int8), categories=[method]),
            "alpha": np.full(size, alpha),
            "family_size": np.full(size, size, dtype=np.int64),
        },
        columns=OUTPUT_COLUMNS,
        copy=False,  # no consolidation into 2-D blocks: a copy of every column
    )
    return out.reset_index(drop=True)


def audit_results(
    results: Iterable[Result],
    t: int | None = None,
    frames: Iterable[pd.DataFrame] = (),
    alpha: float = 0.05,
    method: str = "holm",
) -> pd.DataFrame:
    """One row per result (OUTPUT_COLUMNS). `t` overrides every result's own t; otherwise a
    result without t gets the number of results of its task (the rule `task_scores`).
    `frames`: results already in columns (a large CSV), judged together with `results`."""
    from .option_bounds import below_at

    check_t_option(t)
    results = list(results)
    frame = concat_frames([results_frame(results), *frames])
    return audit_frame(frame, t=t, alpha=alpha, method=method, below_at=below_at(results))


def family_line(judged: pd.DataFrame) -> str:
    """The multiplicity family and correction of the verdicts, in words."""
    if not len(judged):
        return "no score judged"
    method, alpha = str(judged["adjust"].iloc[0]), float(judged["alpha"].iloc[0])
    how = {
        "none": "no correction (each verdict a test at alpha on its own)",
        "holm": "Holm (family-wise error)",
        "bh": "Benjamini-Hochberg (false discovery rate)",
    }[method]
    return (
        f"verdicts: exact one-sided tests at alpha = {alpha:g}; family: the {len(judged)} "
        f"scores of this output, each kind of test (p_max, p_standard, p_below) adjusted "
        f"across them by {how} (--adjust {method})"
    )


def verdict_counts(judged: pd.DataFrame, column: str = "verdict") -> str:
    """'above_max 49, above_standard_only 21, ...' (best first, every verdict named)."""
    names = VERDICTS if column == "verdict" else POINT_VERDICTS
    counts = judged[column].value_counts()
    return ", ".join(f"{v} {int(counts.get(v, 0))}" for v in reversed(names))


def t_summary(judged: pd.DataFrame) -> list[str]:
    """Lines that say which t rule gave which scores' t, for the CLI to print."""
    lines = []
    counts = judged["t_rule"].value_counts(sort=False)
    for code, k in counts.items():
        if k:
            lines.append(f"t rule {code} ({k} scores): {T_RULES[code]}")
    single = int((judged["note"].astype(str).str.contains("t = 1: ", regex=False)).sum())
    if single:
        lines.append(
            f"t = 1 for {single} scores (one score of their task): best-of-t needs the number "
            "of tries; give it with --t"
        )
    return lines
