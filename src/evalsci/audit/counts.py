"""Counts of runs above the standard and the max random baseline, per task and t kind.

"Above" is the paper's: strict (accuracy > baseline); flipped = above the standard baseline but
not above the max random baseline: a claim of "better than chance" that selection over t tries
explains. Beside them, the same counts as tests (`above_standard_test`, `above_max_test`: the
exact tail p-value below TEST_ALPHA after Holm's correction; the family is every run of the
table with the same t kind, one family per kind of test), as `evalsci audit` judges.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from .columns import COUNT_COLUMNS, RUN_DETAIL_COLUMNS
from .judge import POINT_VERDICTS, VERDICTS, choices_label, point_verdicts, tested_verdicts
from .maxrandom_requests import attach, sweep_key

#: level and correction of the test-based counts (the CLI's defaults)
TEST_ALPHA, TEST_ADJUST = 0.05, "holm"
# the columns that name a row in each source's table
ROW_KEYS = {"baselines_prompts": ["model", "task", "shots"]}


def _p_below(runs: pd.DataFrame) -> np.ndarray:
    """P(X <= correct) for one guesser per run, one distribution per distinct (n, labels)."""
    from evalsci.maxrandom import standard_lower_tail

    out = np.empty(len(runs))
    for (n, labels), idx in runs.groupby(["n", "labels"], sort=False).indices.items():
        c = runs["correct"].to_numpy(dtype=np.int64)[idx]
        out[idx] = standard_lower_tail(c, int(n), json.loads(labels))
    return out


def judge(runs: pd.DataFrame, baselines: pd.DataFrame) -> pd.DataFrame:
    """Runs with baselines, tail p-values, the paper's point verdict and the tested verdict
    (Holm across the runs of each t kind, at TEST_ALPHA): the per-run detail table."""
    from .multiplicity import adjust

    out = attach(runs, baselines).reset_index(drop=True)
    out["choices"] = [choices_label(json.loads(s)) for s in out["labels"]]
    out["p_below"] = _p_below(out)
    point = point_verdicts(out.accuracy.to_numpy(), out.standard.to_numpy(), out.max_baseline)
    out["point_verdict"] = [POINT_VERDICTS[i] for i in point]
    tested = np.empty(len(out), dtype=np.int8)
    for _, idx in out.groupby("t_kind", sort=False).indices.items():
        p = [
            adjust(out[c].to_numpy()[idx], TEST_ADJUST) for c in ("p_below", "p_standard", "p_max")
        ]
        tested[idx] = tested_verdicts(*p, TEST_ALPHA)
    out["verdict"] = [VERDICTS[i] for i in tested]
    return out[RUN_DETAIL_COLUMNS]


def _mode(s: pd.Series):
    return s.value_counts(sort=True).index[0]


def counts(judged: pd.DataFrame, source: str) -> pd.DataFrame:
    """One row per task (and model, shots where the source has them) and t kind."""
    keys = ROW_KEYS.get(source, ["task"])
    rows = []
    for _, g in judged.groupby([*keys, "t_kind"], sort=False, dropna=False):
        above_s = g.accuracy > g.standard
        above_m = g.accuracy > g.max_baseline
        first = g.iloc[0]
        rows.append(
            {
                **{k: first[k] for k in keys},
                "n": int(_mode(g.n)),
                "choices": _mode(g.choices.astype(str)),
                "t_kind": first.t_kind,
                "t": int(_mode(g.t)),
                "runs": len(g),
                "above_standard": int(above_s.sum()),
                "above_max": int(above_m.sum()),
                "flipped": int((above_s & ~above_m).sum()),
                "above_standard_test": int(g.verdict.isin(VERDICTS[2:]).sum()),
                "above_max_test": int((g.verdict == VERDICTS[3]).sum()),
            }
        )
    cols = [*keys, *COUNT_COLUMNS[1:]]
    df = pd.DataFrame(rows, columns=cols)
    if "shots" in df:
        df["shots"] = df["shots"].astype(int)
    return df


def group_of(task: str) -> str:
    return task.split("/")[0]


def sweep(
    judged: pd.DataFrame, baselines: pd.DataFrame, ts, t_kind: str = "models"
) -> pd.DataFrame:
    """Flipped share against t: runs of `t_kind` (one per model by default), per benchmark
    group and over all tasks; the max baseline of t guessers at each t of `ts`."""
    d = judged[judged.t_kind == t_kind].copy()
    d["group"] = d.task.map(group_of)
    above_s = (d.accuracy > d.standard).to_numpy()
    rows = []
    for t in ts:
        keys = [sweep_key(n, lab, t) for n, lab in zip(d.n, d.labels, strict=True)]
        emax = baselines.loc[keys, "expected_max"].to_numpy(dtype=float)
        above_m = d.accuracy.to_numpy() > emax
        for group in [*sorted(d.group.unique()), "all"]:
            sel = np.ones(len(d), bool) if group == "all" else (d.group == group).to_numpy()
            s, m = int(above_s[sel].sum()), int((above_m & sel).sum())
            flipped = int((above_s & ~above_m & sel).sum())
            rows.append(
                {
                    "group": group,
                    "t": int(t),
                    "runs": int(sel.sum()),
                    "above_standard": s,
                    "above_max": m,
                    "flipped": flipped,
                    "flipped_share": flipped / s if s else np.nan,
                }
            )
    return pd.DataFrame(rows)


def _md_escape(df: pd.DataFrame) -> pd.DataFrame:
    return df.assign(
        **{
            c: df[c].astype(str).str.replace("|", "\\|", regex=False)
            for c in df.columns
            if df[c].dtype == object
        }
    )


def to_markdown(df: pd.DataFrame, note: str = "") -> str:
    text = _md_escape(df).to_markdown(index=False)
    return text + ("\n\n" + note if note else "") + "\n"
