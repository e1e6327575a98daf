"""`compare`: system B against system A across tasks, by the tapt paper's hierarchical model
(evalsci.compare.model, fitted by evalsci.compare.fit) beside an exact cross-check.

Per pair (A, B), on the tasks both systems have:
- cells: where both have item ids on a task, the items they share (each system's correct count
  on those); else each system's own n and correct count (a warning names tasks where they
  differ);
- exact cross-check, no sampler: per task McNemar's exact test on the discordant shared items
  where items are shared, else Fisher's exact test (evalsci.stats.exact); across tasks the
  exact sign test on the number of tasks each system does better on (ties left out). Per-task
  p-values are adjusted across every task row of the output (all pairs: one family), the
  population ones across the pairs (a second family), by Holm (default), BH or none;
- hierarchical: population effect (beta; accuracy points on a typical task), per-task shrunken
  effects, each with posterior mean, 95% equal-tailed interval, P(B better) and the posterior
  mass inside the region of practical equivalence |effect| < rope accuracy points.
Verdicts, both at level alpha: exact, adjusted p < alpha (direction: the raw difference's
sign); Bayesian, the 95% interval excludes 0, i.e. P(B better) > 1 - alpha/2 or < alpha/2.
`agree` says whether they match. The hierarchical model pools tasks instead of adjusting:
its per-task verdicts have no multiplicity correction, which is where they can disagree with
the adjusted exact tests.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from evalsci.audit.multiplicity import adjust, check_adjust, check_alpha
from evalsci.audit.records import AuditInputError
from evalsci.stats.exact import fisher_test, sign_test

from .fit import Fit, FitSettings, fit_cells, interval
from .inputs import Score
from .model import Cells

COLUMNS = [
    "model_a",
    "model_b",
    "scope",
    "task",
    "n",
    "n_b",
    "accuracy_a",
    "accuracy_b",
    "raw_diff",
    "effect",
    "low",
    "high",
    "effect_logodds",
    "low_logodds",
    "high_logodds",
    "prob_b_better",
    "prob_rope",
    "test",
    "a_better",
    "b_better",
    "p_exact",
    "p_exact_adjusted",
    "verdict_bayes",
    "verdict_exact",
    "agree",
    "r_hat",
    "ess_bulk",
]


class NothingToCompare(AuditInputError):
    """Valid input, but the two systems share no task (exit code 3)."""


@dataclass
class PairCells:
    model_a: str
    model_b: str
    cells: Cells
    paired: np.ndarray  # bool per task: outcomes on shared items
    a_only: np.ndarray  # per task: A right and B wrong (paired tasks; else 0)
    b_only: np.ndarray
    notes: list[str] = field(default_factory=list)


def models_of(scores: list[Score]) -> list[str]:
    return sorted({s.model for s in scores})


def check_pair(scores: list[Score], a: str, b: str) -> None:
    models = models_of(scores)
    unknown = [m for m in (a, b) if m not in models]
    if unknown:
        raise AuditInputError(
            f"unknown model {', '.join(map(repr, unknown))}; the inputs have: " + ", ".join(models)
        )
    if a == b:
        raise AuditInputError(f"--a and --b name the same model {a!r}: nothing to compare")


def pair_cells(scores: list[Score], a: str, b: str) -> PairCells:
    """The (A, B) cells on the tasks both have; notes name what was dropped."""
    check_pair(scores, a, b)
    by_a = {s.task: s for s in scores if s.model == a}
    by_b = {s.task: s for s in scores if s.model == b}
    tasks = sorted(set(by_a) & set(by_b))
    notes = []
    for who, other, own in ((a, b, by_a), (b, a, by_b)):
        only = sorted(set(own) - set(tasks))
        if only:
            notes.append(
                f"{who} vs {other}: {len(only)} task(s) of {who} missing for {other}, dropped: "
                + ", ".join(only)
            )
    if not tasks:
        raise NothingToCompare(f"{a} and {b} have no task in common: nothing to compare")
    n_a, y_a, n_b, y_b, paired, a_only, b_only = ([] for _ in range(7))
    for t in tasks:
        sa, sb = by_a[t], by_b[t]
        if sa.items is not None and sb.items is not None:
            pos_b = {item: k for k, item in enumerate(sb.items)}
            ia = [k for k, item in enumerate(sa.items) if item in pos_b]
            if not ia:
                raise AuditInputError(
                    f"task {t!r}: {a} ({sa.source}) and {b} ({sb.source}) share no item id"
                )
            ib = [pos_b[sa.items[k]] for k in ia]
            oa, ob = sa.outcomes[ia].astype(np.int64), sb.outcomes[ib].astype(np.int64)
            dropped = sa.n + sb.n - 2 * len(ia)
            if dropped:
                notes.append(
                    f"task {t!r}: {len(ia)} items shared by {a} ({sa.n}) and {b} ({sb.n}); "
                    "the others are dropped"
                )
            n_a.append(len(ia))
            n_b.append(len(ia))
            y_a.append(int(oa.sum()))
            y_b.append(int(ob.sum()))
            paired.append(True)
            a_only.append(int((oa * (1 - ob)).sum()))
            b_only.append(int((ob * (1 - oa)).sum()))
        else:
            if sa.n != sb.n:
                notes.append(f"task {t!r}: {a} on {sa.n} items, {b} on {sb.n}: compared unpaired")
            n_a.append(sa.n)
            n_b.append(sb.n)
            y_a.append(sa.correct)
            y_b.append(sb.correct)
            paired.append(False)
            a_only.append(0)
            b_only.append(0)
    cells = Cells(tuple(tasks), n_a, y_a, n_b, y_b)
    return PairCells(a, b, cells, np.asarray(paired), np.asarray(a_only), np.asarray(b_only), notes)


def exact_rows(pc: PairCells) -> pd.DataFrame:
    """The exact cross-check of one pair: one row per task, then the population row."""
    c = pc.cells
    acc_a, acc_b = c.y_a / c.n_a, c.y_b / c.n_b
    diff = 100.0 * (acc_b - acc_a)
    p = np.where(
        pc.paired, sign_test(pc.a_only, pc.b_only), fisher_test(c.y_a, c.n_a, c.y_b, c.n_b)
    )
    tasks = pd.DataFrame(
        {
            "model_a": pc.model_a,
            "model_b": pc.model_b,
            "scope": "task",
            "task": list(c.tasks),
            "n": c.n_a,
            "n_b": c.n_b,
            "accuracy_a": acc_a,
            "accuracy_b": acc_b,
            "raw_diff": diff,
            "test": np.where(pc.paired, "mcnemar", "fisher"),
            "a_better": np.where(pc.paired, pc.a_only, -1),
            "b_better": np.where(pc.paired, pc.b_only, -1),
            "p_exact": p,
        }
    )
    # across tasks: rounded to 9 decimals, so float noise cannot make a tie a win
    d = np.round(diff, 9)
    wins_a, wins_b = int((d < 0).sum()), int((d > 0).sum())
    pop = pd.DataFrame(
        {
            "model_a": [pc.model_a],
            "model_b": [pc.model_b],
            "scope": ["population"],
            "task": [""],
            "n": [int(c.n_a.sum())],
            "n_b": [int(c.n_b.sum())],
            "accuracy_a": [float(acc_a.mean())],
            "accuracy_b": [float(acc_b.mean())],
            "raw_diff": [float(diff.mean())],
            "test": ["sign"],
            "a_better": [wins_a],
            "b_better": [wins_b],
            "p_exact": [float(sign_test(wins_a, wins_b))],
        }
    )
    return pd.concat([pop, tasks], ignore_index=True)


def bayes_columns(fit: Fit, rope: float) -> pd.DataFrame:
    """Posterior summaries in the row order of `exact_rows` (population, then the tasks)."""
    post = fit.post
    rows = []
    series = [("population", post["effect_points"], post["beta"], "beta")]
    series += [
        ("task", post["task_points"][..., j], post["theta"][..., j], f"theta[{t}]")
        for j, t in enumerate(fit.cells.tasks)
    ]
    for _, points, logodds, name in series:
        lo, hi = interval(points)
        lo_l, hi_l = interval(logodds)
        r_hat, ess = fit.diagnostics[name]
        rows.append(
            {
                "effect": float(points.mean()),
                "low": lo,
                "high": hi,
                "effect_logodds": float(logodds.mean()),
                "low_logodds": lo_l,
                "high_logodds": hi_l,
                "prob_b_better": float((logodds > 0).mean()),
                "prob_rope": float((np.abs(points) < rope).mean()),
                "r_hat": r_hat,
                "ess_bulk": ess,
            }
        )
    return pd.DataFrame(rows)


def _verdicts(table: pd.DataFrame, alpha: float) -> pd.DataFrame:
    sign = np.sign(table["raw_diff"].round(9))
    exact = np.where(
        table["p_exact_adjusted"] < alpha,
        np.where(sign > 0, "B", np.where(sign < 0, "A", "-")),
        "-",
    )
    pb = table["prob_b_better"].to_numpy(dtype=float)
    bayes = np.where(pb > 1 - alpha / 2, "B", np.where(pb < alpha / 2, "A", "-"))
    bayes = np.where(np.isnan(pb), "", bayes)
    table["verdict_exact"] = exact
    table["verdict_bayes"] = bayes
    table["agree"] = pd.array(np.where(bayes == "", None, bayes == exact), dtype="boolean")
    return table


def compare(
    scores: list[Score],
    pairs: list[tuple[str, str]],
    *,
    rope: float = 1.0,
    method: str = "holm",
    alpha: float = 0.05,
    settings: FitSettings | None = None,
    hierarchical: bool = True,
) -> tuple[pd.DataFrame, list[str], dict[tuple[str, str], Fit]]:
    """(the table, notes, the fits by pair) for each (A, B) in `pairs`. Raises NotConverged
    (evalsci.compare.fit) when a fit fails its checks after a refit."""
    check_alpha(alpha)
    check_adjust(method)
    if not rope > 0:
        raise ValueError(f"--rope must be > 0 accuracy points, got {rope!r}")
    for a, b in pairs:
        check_pair(scores, a, b)
    parts, notes, fits = [], [], {}
    for a, b in pairs:
        pc = pair_cells(scores, a, b)
        notes += pc.notes
        rows = exact_rows(pc)
        if hierarchical and len(pc.cells.tasks) >= 2:
            fit = fit_cells(pc.cells, settings, label=f"{b} vs {a}")
            fits[(a, b)] = fit
            rows = pd.concat([rows, bayes_columns(fit, rope)], axis=1)
        elif hierarchical:
            notes.append(
                f"{b} vs {a}: one shared task ({pc.cells.tasks[0]!r}): the hierarchical model "
                "needs at least 2 tasks to estimate their spread; the exact test alone is reported"
            )
        parts.append(rows)
    table = pd.concat(parts, ignore_index=True).reindex(columns=COLUMNS)
    p_adj = np.full(len(table), np.nan)
    for scope in ("task", "population"):
        sel = (table["scope"] == scope).to_numpy()
        p_adj[sel] = adjust(table["p_exact"].to_numpy(dtype=float)[sel], method)
    table["p_exact_adjusted"] = p_adj
    table = _verdicts(table, alpha)
    notes.append(
        f"exact tests: per task McNemar (shared items) or Fisher, adjusted by {method} across "
        f"the {int((table['scope'] == 'task').sum())} task rows; across tasks the sign test, "
        f"adjusted across the {len(pairs)} pair(s); verdicts at alpha {alpha:g}; rope "
        f"|effect| < {rope:g} accuracy points"
    )
    return table[COLUMNS], notes, fits
