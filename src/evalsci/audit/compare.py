"""`evalsci audit --compare`: paired tests between models on the same items, each model
against the max random baseline, multiplicity control, and the groups the data cannot separate.

For every task with per-item 0/1 outcomes from two or more scores (models, or runs of one):

  paired      for each pair (a, b), on the items both answered (`n_items`; `accuracy_a` and
              `accuracy_b` are on those items): the exact McNemar test, i.e. the two-sided
              binomial sign test on the discordant items (a right and b wrong: `a_only`; the
              reverse: `b_only`), p = P(|X - d/2| >= |a_only - d/2|) for
              X ~ Binomial(d = a_only + b_only, 1/2), which is scipy.stats.binomtest's two-sided
              p-value (tests/test_audit_compare.py checks every pair against it);
  max_random  each score's exact p-value against the max random baseline of its task, the
              judge's `p_max` = P(max of t random guessers >= its count), t by the judge's rule.

Only what can be tested is tested (`status`):

  tested          the test is run and enters the family;
  not_comparable  a pair with no item in common: there is nothing to compare (no p-value);
  too_small       a test that cannot reach alpha whatever the data: a pair with d discordant
                  items, whose smallest attainable p-value is 2 * 0.5^d (d <= 5 at alpha 0.05),
                  or a score whose best possible count (n of n) has P(max >= n) >= alpha.
                  Conditioning on d (the sign test's ancillary) keeps the level (Tarone 1990).

Untested rows have no p-value and stay out of the multiplicity family; each is named on stderr. A pair whose runs were made with different settings (shots, --limit, model
arguments, harness version: `Result.settings`) is tested but flagged in `settings_differ`.

Multiplicity: one family, every tested row of the output (all pairs and all max_random tests of
every task), adjusted by Holm (`--adjust holm`, the default: family-wise error) or Benjamini-Hochberg
(`--adjust bh`: false discovery rate, scipy.stats.false_discovery_control), or none
(`--adjust none`); multiplicity.py. A pair is *separated* when its adjusted p-value is below
alpha (`--alpha`, 0.05).

Groups: per task, over the scores with at least one tested pair (a score whose every pair is
untested, such as a 1-item run, is in no group and so can join no two others), the connected
components of the graph whose edges join the pairs the data cannot separate: tested and not
separated, or too small to test (few discordant items: the two agree, or share too few items).
Pairs with no item in common join nothing. Two models in different groups are separated from
each other, and from every model of the other group, except a pair with no item in common
(status not_comparable, listed);
inside a group every model is linked to the others by a chain of pairs the data cannot tell
apart (a chain may join two models that are themselves separated: the group is then the set the
data cannot split cleanly, not a set of mutual ties). Groups are numbered from 1 by their best
accuracy.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from evalsci.stats.exact import sign_test  # one implementation with `evalsci compare`

from .columns import GROUP_COLUMNS, TEST_COLUMNS
from .multiplicity import ADJUST, adjust, check_alpha, holm, significant
from .records import AuditInputError

__all__ = ["compare", "sign_test", "holm", "adjust", "ADJUST"]

STATUS = ("tested", "not_comparable", "too_small")


def _labels(rows: pd.DataFrame) -> list[str]:
    """Model names, made unique within a task where a model repeats: by its run, else by the
    shortest tail of its source path that tells the repeats apart."""
    from pathlib import PurePath

    models = rows["model"].astype(str).tolist()
    runs = rows["run"].astype(str).tolist() if "run" in rows else [""] * len(models)
    sources = rows["source"].astype(str).tolist()
    out = list(models)
    for m in set(models):
        idx = [i for i, x in enumerate(models) if x == m]
        if len(idx) == 1:
            continue
        base = [runs[i] for i in idx]
        if len(set(base)) < len(base) or not all(base):
            base = [sources[i] for i in idx]
        tags = base
        for depth in range(1, 64):  # the shortest path tail that tells them apart
            tail = [str(PurePath(*PurePath(b).parts[-depth:])) for b in base]
            if len(set(tail)) == len(tail):
                tags = tail
                break
        for i, tag in zip(idx, tags, strict=True):
            out[i] = f"{m} [{tag}]"
    if len(set(out)) < len(out):
        out = [f"{m} #{i + 1}" for i, m in enumerate(out)]
    return out


def _matrix(rows: pd.DataFrame, task: str):
    """(outcomes, presence): systems x items int64 matrices (1: right / answered)."""
    index: dict[str, int] = {}
    per = []
    for items, outcomes, src in zip(rows["items"], rows["outcomes"], rows["source"], strict=True):
        ids = [str(i) for i in items]
        if len(set(ids)) != len(ids):
            raise AuditInputError(
                f"{src}: task {task!r}: item ids repeat; a paired test needs one outcome per item"
            )
        if len(ids) != len(outcomes):
            raise AuditInputError(
                f"{src}: task {task!r}: {len(ids)} item ids but {len(outcomes)} outcomes"
            )
        per.append(([index.setdefault(i, len(index)) for i in ids], outcomes))
    right = np.zeros((len(per), len(index)), dtype=np.int64)
    present = np.zeros_like(right)
    for s, (cols, outcomes) in enumerate(per):
        right[s, cols] = np.asarray(outcomes, dtype=np.int64)
        present[s, cols] = 1
    return right, present


def settings_differ(a: str, b: str) -> str:
    """The settings two runs differ in ('shots 0 vs 2; limit - vs 5'), '' when they agree
    or neither file states them (`Result.settings`, as JSON)."""
    import json

    sa, sb = (json.loads(x) if x else {} for x in (a, b))
    if not sa and not sb:
        return ""
    out = []
    for key in sorted(set(sa) | set(sb)):
        va, vb = sa.get(key), sb.get(key)
        if va == vb:
            continue
        if isinstance(va, dict) or isinstance(vb, dict):
            va, vb = va or {}, vb or {}
            keys = sorted(k for k in set(va) | set(vb) if va.get(k) != vb.get(k))
            out.append(f"{key} ({', '.join(keys)})")
        else:
            show = lambda v: "-" if v is None else str(v)  # noqa: E731
            out.append(f"{key} {show(va)} vs {show(vb)}")
    return "; ".join(out)


def _min_p_max(judged: pd.DataFrame, rows: pd.DataFrame) -> np.ndarray:
    """The smallest p_max each score could have: P(max of t guessers >= n), at n of n."""
    from evalsci.maxrandom import max_random_tail

    from .frames import frame_labels

    out = []
    for choices, labels, n, t in zip(
        rows["choices"], rows["labels"], judged["n"], judged["t"], strict=True
    ):
        out.append(float(max_random_tail(int(n), int(n), frame_labels(choices, labels, n), t)))
    return np.asarray(out)


def _task_tests(task: str, rows: pd.DataFrame, judged: pd.DataFrame, alpha: float):
    labels = _labels(rows)
    right, present = _matrix(rows, task)
    acc = judged["accuracy"].to_numpy(dtype=float)
    common = present @ present.T
    both_right = right @ present.T  # a right, on the items b answered
    a_only = right @ (present - right).T  # a right and b wrong, on items both answered
    i, j = np.triu_indices(len(labels), k=1)
    n_ij, ao, bo = common[i, j], a_only[i, j], a_only[j, i]
    d = ao + bo
    with np.errstate(invalid="ignore", divide="ignore"):
        acc_a, acc_b = both_right[i, j] / n_ij, both_right[j, i] / n_ij
    status = np.where(n_ij == 0, 1, np.where(2.0 * 0.5**d >= alpha, 2, 0))
    settings = rows["settings"].astype(str).tolist() if "settings" in rows else [""] * len(labels)
    pairs = pd.DataFrame(
        {
            "task": task,
            "test": "paired",
            "model_a": [labels[k] for k in i],
            "model_b": [labels[k] for k in j],
            "n_items": n_ij,
            "accuracy_a": np.where(n_ij > 0, acc_a, np.nan),
            "accuracy_b": np.where(n_ij > 0, acc_b, np.nan),
            "a_only": ao,
            "b_only": bo,
            "t": np.nan,
            "p": np.where(status == 0, sign_test(ao, bo), np.nan),
            "status": [STATUS[k] for k in status],
            "settings_differ": [
                settings_differ(settings[x], settings[y]) for x, y in zip(i, j, strict=True)
            ],
        }
    )
    small = _min_p_max(judged, rows) >= alpha
    single = pd.DataFrame(
        {
            "task": task,
            "test": "max_random",
            "model_a": labels,
            "model_b": "",
            "n_items": judged["n"].to_numpy(),
            "accuracy_a": acc,
            "accuracy_b": np.nan,
            "a_only": np.nan,
            "b_only": np.nan,
            "t": judged["t"].to_numpy(dtype=float),
            "p": np.where(small, np.nan, judged["p_max"].to_numpy(dtype=float)),
            "status": np.where(small, STATUS[2], STATUS[0]),
            "settings_differ": "",
        }
    )
    return pd.concat([single, pairs], ignore_index=True)


def _groups(task: str, tests: pd.DataFrame, alpha: float):
    """(group per model label, the groups table rows) for one task."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    single = tests[tests["test"] == "max_random"]
    tested = tests[(tests["test"] == "paired") & (tests["status"] == "tested")]
    grouped = set(tested["model_a"]) | set(tested["model_b"])
    labels = [m for m in single["model_a"] if m in grouped]
    acc = dict(zip(single["model_a"], single["accuracy_a"], strict=True))
    pos = {m: k for k, m in enumerate(labels)}
    small = tests[(tests["test"] == "paired") & (tests["status"] == "too_small")]
    small = small[small["model_a"].isin(grouped) & small["model_b"].isin(grouped)]
    pairs = pd.concat([tested[~tested["separated"].astype(bool)], small])
    a = [pos[m] for m in pairs["model_a"]]
    b = [pos[m] for m in pairs["model_b"]]
    graph = coo_matrix((np.ones(len(a)), (a, b)), shape=(len(labels), len(labels)))
    _, comp = connected_components(graph, directed=False)
    members: dict[int, list[str]] = {}
    for m, c in zip(labels, comp, strict=True):
        members.setdefault(int(c), []).append(m)
    ordered = sorted(members.values(), key=lambda ms: (-max(acc[m] for m in ms), min(ms)))
    group, rows = {}, []
    for g, ms in enumerate(ordered, 1):
        ms = sorted(ms, key=lambda m: (-acc[m], m))
        for m in ms:
            group[m] = g
        rows.append((task, g, "; ".join(ms), acc[ms[0]], acc[ms[-1]]))
    return group, rows


def _untested_notes(tests: pd.DataFrame, alpha: float) -> list[str]:
    """One line per untested row and per pair run with different settings."""
    out = []
    for r in tests[tests["status"] != "tested"].itertuples():
        what = f"{r.model_a} vs {r.model_b}" if r.test == "paired" else r.model_a
        if r.status == "not_comparable":
            why = "no item in common: not comparable"
        elif r.test == "paired":
            d = int(r.a_only + r.b_only)
            why = (
                f"too small to test: {d} discordant of {r.n_items} shared items, smallest "
                f"attainable p 2 x 0.5^{d} = {min(1.0, 2 * 0.5**d):.3g} >= alpha {alpha:g}"
            )
        else:
            why = (
                f"too small to test against the max baseline: n = {r.n_items}, even n of n "
                f"correct has p_max >= alpha {alpha:g}"
            )
        where = "the family and the groups" if r.test == "paired" else "the family"
        out.append(f"task {r.task!r}: {what}: {why}; out of {where}")
    for r in tests[tests["settings_differ"] != ""].itertuples():
        out.append(
            f"task {r.task!r}: {r.model_a} vs {r.model_b}: compared, but run with different "
            f"settings: {r.settings_differ}"
        )
    return out


def compare(
    frame: pd.DataFrame, judged: pd.DataFrame, method: str = "holm", alpha: float = 0.05
) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """(tests, groups, notes) for the scores of `frame` (a results frame) judged as `judged`
    (audit_frame's rows, same order). Notes say which tasks had nothing to compare."""
    check_alpha(alpha)
    adjust(np.zeros(0), method)  # an unknown method fails before any work
    if "outcomes" not in frame:
        has = np.zeros(len(frame), dtype=bool)
    else:
        has = frame["outcomes"].notna().to_numpy()
    if not has.any():
        raise AuditInputError(
            "--compare needs per-item results (lm-eval with --log_samples, inspect-ai logs, "
            "HELM per_instance_stats, lighteval details): none of the inputs has them"
        )
    notes, parts = [], []
    frame = frame.reset_index(drop=True)
    judged = judged.reset_index(drop=True)
    for task, idx in frame[has].groupby("task", observed=True, sort=True).indices.items():
        rows_idx = np.flatnonzero(has)[idx]
        if len(rows_idx) < 2:
            notes.append(f"task {task!r}: one score with per-item results; nothing to compare")
            continue
        parts.append(_task_tests(str(task), frame.iloc[rows_idx], judged.iloc[rows_idx], alpha))
    for task in sorted(set(frame["task"].astype(str)) - set(frame[has]["task"].astype(str))):
        notes.append(f"task {task!r}: no per-item results; not compared")
    if not parts:
        raise AuditInputError(
            "--compare: no task has per-item results from two or more scores; " + "; ".join(notes)
        )
    tests = pd.concat(parts, ignore_index=True)
    family = (tests["status"] == "tested").to_numpy()
    p_adj = np.full(len(tests), np.nan)
    p_adj[family] = adjust(tests["p"].to_numpy()[family], method)
    tests["p_adjusted"] = p_adj
    tests["separated"] = pd.array(
        np.where(family, significant(np.nan_to_num(p_adj, nan=1.0), alpha), False),
        dtype="boolean",
    )
    tests.loc[~family, "separated"] = pd.NA
    notes.extend(_untested_notes(tests, alpha))
    notes.append(
        f"--compare family: the {int(family.sum())} tested rows of the tests table (pairs and "
        f"max_random), adjusted by {method}; separated: adjusted p < {alpha:g}"
    )
    group_rows, gmap = [], {}
    for task in tests["task"].unique():
        g, rows = _groups(task, tests[tests["task"] == task], alpha)
        gmap.update({(task, m): k for m, k in g.items()})
        group_rows.extend(rows)
    tests["group_a"] = [
        gmap.get((t, m), pd.NA) for t, m in zip(tests["task"], tests["model_a"], strict=True)
    ]
    tests["group_a"] = tests["group_a"].astype("Int64")
    tests["group_b"] = [
        gmap.get((t, m), pd.NA) if m else pd.NA
        for t, m in zip(tests["task"], tests["model_b"], strict=True)
    ]
    tests["group_b"] = tests["group_b"].astype("Int64")
    return tests[TEST_COLUMNS], pd.DataFrame(group_rows, columns=GROUP_COLUMNS), notes
