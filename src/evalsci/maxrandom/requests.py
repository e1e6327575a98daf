"""The `maxrandom` rule's files: requests (written by a study), baselines and distributions
(written by the rule). Every comparison in every study reads its random baselines from here.

requests.csv, one row per `key`:
  key           unique non-empty string
  metric        "accuracy" (default) or "auc"
  n             accuracy: number of examples (int >= 1); auc: empty or n_pos + n_neg
  p             accuracy: success probability in (0, 1], or empty when `labels` is given
  labels        accuracy: JSON object {"number of labels": number of examples}, or empty
  n_pos, n_neg  auc: numbers of positives and negatives (ints >= 1); empty for accuracy
  t             number of random classifiers (int >= 1, up to 1e12)
  correct       empty, or an integer count for tail probabilities: correct answers
                (accuracy) or the Mann-Whitney U = AUC * n_pos * n_neg (auc); convert with
                `evalsci.maxrandom.correct_count` (rounds, never floors)
  distribution  true/false (default false): also write the pmf/cdf of the max

baselines.csv: the request columns plus `standard` (expected accuracy/AUC of one random
classifier), `expected_max`, `tail_standard` = P(X >= correct), `tail_max` = P(max >= correct)
(empty tails where `correct` is empty).
distributions.csv: key, k, accuracy (k / n, or U / (n_pos n_neg) for auc), pmf, cdf.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd

REQUEST_COLUMNS = [
    "key",
    "metric",
    "n",
    "p",
    "labels",
    "n_pos",
    "n_neg",
    "t",
    "correct",
    "distribution",
]
RESULT_COLUMNS = ["standard", "expected_max", "tail_standard", "tail_max"]
DISTRIBUTION_COLUMNS = ["key", "k", "accuracy", "pmf", "cdf"]
_OPTIONAL_DEFAULTS = {
    "metric": "accuracy",
    "n": None,
    "p": None,
    "labels": None,
    "n_pos": None,
    "n_neg": None,
    "correct": None,
    "distribution": False,
}
_TRUE, _FALSE = {"true", "1", "yes"}, {"false", "0", "no", ""}
#: a requested distribution has upper + 1 rows (k = 0..n, or U = 0..n_pos n_neg); cap its size
MAX_DISTRIBUTION_ROWS = 2_000_001


def _empty(v) -> bool:
    return (
        v is None
        or (isinstance(v, float) and np.isnan(v))
        or (isinstance(v, str) and v.strip() == "")
        or v is pd.NA
    )


def _int(v, col: str, where: str, minimum: int | None = None) -> int:
    try:
        f = float(v)
    except (TypeError, ValueError):
        f = float("nan")
    if not np.isfinite(f) or not f.is_integer() or (minimum is not None and f < minimum):
        need = "an integer" + (f" >= {minimum}" if minimum is not None else "")
        raise ValueError(f"{where}: column '{col}' must be {need}, got {v!r}")
    return int(f)


def validate_requests(df: pd.DataFrame, source: str = "requests") -> pd.DataFrame:
    """Check every row of a requests table; return it normalised (all columns, typed).

    Raises ValueError naming the source, the row (1-based data row), the key and the column."""
    _check_columns(df, source)
    rows = []
    seen: set[str] = set()
    for i, rec in enumerate(df.to_dict("records"), start=1):
        rec = {c: rec.get(c, _OPTIONAL_DEFAULTS.get(c)) for c in REQUEST_COLUMNS}
        key, where = _unique_key(rec, f"{source} row {i}", seen)
        metric = "accuracy" if _empty(rec["metric"]) else str(rec["metric"]).strip()
        if metric not in ("accuracy", "auc"):
            raise ValueError(
                f"{where}: column 'metric' must be 'accuracy' or 'auc', got {metric!r}"
            )
        out = {
            "key": key,
            "metric": metric,
            "n": None,
            "p": None,
            "labels": None,
            "n_pos": None,
            "n_neg": None,
            "t": _int(rec["t"], "t", where, 1),
            "correct": None,
        }
        fields, upper = (_accuracy_fields if metric == "accuracy" else _auc_fields)(rec, where)
        out.update(fields)
        out["correct"] = _correct(rec["correct"], upper, where)
        out["distribution"] = _distribution_flag(rec["distribution"], upper, where)
        rows.append(out)
    return _typed(pd.DataFrame(rows, columns=REQUEST_COLUMNS))


def _check_columns(df: pd.DataFrame, source: str) -> None:
    missing = [c for c in ("key", "t") if c not in df.columns]
    if missing:
        raise ValueError(
            f"{source}: missing required column(s) {missing}; columns are {REQUEST_COLUMNS}"
        )
    unknown = [c for c in df.columns if c not in REQUEST_COLUMNS]
    if unknown:
        raise ValueError(f"{source}: unknown column(s) {unknown}; columns are {REQUEST_COLUMNS}")


def _unique_key(rec: dict, row: str, seen: set[str]) -> tuple[str, str]:
    """The row's key (non-empty, not seen before) and the location prefix of its errors."""
    if _empty(rec["key"]):
        raise ValueError(f"{row}: column 'key' is empty")
    key = str(rec["key"])
    where = f"{row} (key {key!r})"
    if key in seen:
        raise ValueError(f"{where}: column 'key' is not unique ({key!r} repeats)")
    seen.add(key)
    return key, where


def _must_be_empty(rec: dict, cols, metric: str, where: str) -> None:
    for col in cols:
        if not _empty(rec[col]):
            raise ValueError(f"{where}: column '{col}' must be empty for metric {metric}")


def _accuracy_fields(rec: dict, where: str) -> tuple[dict, int]:
    """n and exactly one of p and labels; the largest count is n."""
    from .poisson_binomial import success_groups

    _must_be_empty(rec, ("n_pos", "n_neg"), "accuracy", where)
    n = _int(rec["n"], "n", where, 1)
    has_p, has_labels = not _empty(rec["p"]), not _empty(rec["labels"])
    if has_p == has_labels:
        raise ValueError(f"{where}: give exactly one of columns 'p' and 'labels'")
    if has_p:
        try:
            p = float(rec["p"])
        except (TypeError, ValueError):
            p = float("nan")
        if not (0.0 < p <= 1.0):
            raise ValueError(f"{where}: column 'p' must be in (0, 1], got {rec['p']!r}")
        return {"n": n, "p": p}, n
    try:
        labels = json.loads(rec["labels"]) if isinstance(rec["labels"], str) else rec["labels"]
        if not isinstance(labels, dict):
            raise TypeError
    except (TypeError, ValueError):
        raise ValueError(
            f"{where}: column 'labels' must be a JSON object "
            f'{{"num_labels": num_examples}}, got {rec["labels"]!r}'
        ) from None
    try:
        success_groups(n, labels)
    except ValueError as e:
        raise ValueError(f"{where}: column 'labels': {e}") from None
    labels = json.dumps(
        {str(int(float(k))): int(float(v)) for k, v in labels.items()}, sort_keys=True
    )
    return {"n": n, "labels": labels}, n


def _auc_fields(rec: dict, where: str) -> tuple[dict, int]:
    """n_pos and n_neg (n empty or their sum); the largest count is U = n_pos n_neg."""
    _must_be_empty(rec, ("p", "labels"), "auc", where)
    n_pos = _int(rec["n_pos"], "n_pos", where, 1)
    n_neg = _int(rec["n_neg"], "n_neg", where, 1)
    if not _empty(rec["n"]) and _int(rec["n"], "n", where, 1) != n_pos + n_neg:
        raise ValueError(
            f"{where}: column 'n' must be empty or n_pos + n_neg = "
            f"{n_pos + n_neg} for metric auc, got {rec['n']!r}"
        )
    return {"n": n_pos + n_neg, "n_pos": n_pos, "n_neg": n_neg}, n_pos * n_neg


def _correct(value, upper: int, where: str) -> int | None:
    if _empty(value):
        return None
    c = _int(value, "correct", where, 0)
    if c > upper:
        raise ValueError(
            f"{where}: column 'correct' must be a count in [0, {upper}], got {value!r}"
        )
    return c


def _distribution_flag(d, upper: int, where: str) -> bool:
    if isinstance(d, (bool, np.bool_)):
        flag = bool(d)
    elif _empty(d) or str(d).strip().lower() in _TRUE | _FALSE:
        flag = (not _empty(d)) and str(d).strip().lower() in _TRUE
    else:
        raise ValueError(f"{where}: column 'distribution' must be true or false, got {d!r}")
    if flag and upper + 1 > MAX_DISTRIBUTION_ROWS:
        raise ValueError(
            f"{where}: column 'distribution': {upper + 1} rows (k = 0..{upper}) "
            f"exceed the limit of {MAX_DISTRIBUTION_ROWS}"
        )
    return flag


def _typed(res: pd.DataFrame) -> pd.DataFrame:
    for col in ("n", "n_pos", "n_neg", "t", "correct"):
        res[col] = res[col].astype("Int64")
    res["p"] = res["p"].astype(float)
    res["distribution"] = res["distribution"].astype(bool)
    return res


def accuracy_request(
    key: str,
    n: int,
    t: int,
    *,
    p: float | None = None,
    labels: dict | None = None,
    correct: int | None = None,
    distribution: bool = False,
) -> dict:
    """One accuracy request row: t random guessers on n examples, each right with probability
    `p`, or with `labels` ({number of labels: number of examples}, the Poisson-binomial case).
    A study builds its rows with this and `auc_request`, then calls `write_requests`."""
    return {
        "key": key,
        "metric": "accuracy",
        "n": n,
        "p": p,
        "labels": None if labels is None else json.dumps(labels),
        "t": t,
        "correct": correct,
        "distribution": distribution,
    }


def auc_request(
    key: str,
    n_pos: int,
    n_neg: int,
    t: int,
    *,
    correct: int | None = None,
    distribution: bool = False,
) -> dict:
    """One AUC request row: t random scorers on n_pos positives and n_neg negatives."""
    return {
        "key": key,
        "metric": "auc",
        "n_pos": n_pos,
        "n_neg": n_neg,
        "t": t,
        "correct": correct,
        "distribution": distribution,
    }


def requests_frame(rows) -> pd.DataFrame:
    """Request rows (dicts from `accuracy_request` / `auc_request`) as one validated table in
    the rule's column order; raises on a bad row or a repeated key."""
    rows = list(rows)
    df = (
        pd.DataFrame(rows, columns=REQUEST_COLUMNS)
        if rows
        else pd.DataFrame(columns=REQUEST_COLUMNS)
    )
    return validate_requests(df, source="requests")


def write_requests(df: pd.DataFrame, path: str | os.PathLike) -> pd.DataFrame:
    """Validate a study's requests and write them to `path` (atomically). Returns the
    normalised table. Optional columns may be left out (defaults: metric accuracy,
    distribution false, the rest empty)."""
    from evalsci.pipeline.jobs import atomic_path

    norm = validate_requests(df, source=str(path))
    with atomic_path(path) as tmp:
        norm.to_csv(tmp, index=False)
    return norm


def read_requests(path: str | os.PathLike) -> pd.DataFrame:
    """Load and validate a requests.csv (errors name the file, row, key and column)."""
    df = pd.read_csv(
        path,
        dtype={"key": str, "labels": str, "metric": str},
        keep_default_na=False,
        na_values=[""],
    )
    return validate_requests(df, source=str(path))


def read_baselines(path: str | os.PathLike) -> pd.DataFrame:
    """Load the rule's baselines.csv indexed by `key` (columns checked)."""
    df = pd.read_csv(
        path,
        dtype={"key": str, "labels": str, "metric": str},
        keep_default_na=False,
        na_values=[""],
    )
    missing = [c for c in REQUEST_COLUMNS + RESULT_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"{path}: missing column(s) {missing}")
    for col in ("n", "n_pos", "n_neg", "t", "correct"):
        df[col] = df[col].astype("Int64")
    dup = df["key"][df["key"].duplicated()].tolist()
    if dup:
        raise ValueError(f"{path}: column 'key' is not unique: {dup[:5]}")
    return df.set_index("key")


def read_distributions(path: str | os.PathLike) -> pd.DataFrame:
    """Load the rule's distributions.csv (columns checked)."""
    df = pd.read_csv(path, dtype={"key": str})
    missing = [c for c in DISTRIBUTION_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"{path}: missing column(s) {missing}")
    return df


def _p_arg(row):
    return json.loads(row["labels"]) if isinstance(row["labels"], str) else float(row["p"])


def answer_requests(req: pd.DataFrame, progress: bool = True):
    """Compute baselines (and distributions) for validated requests.

    Rows that share a distribution (same metric and n and p/labels, or n_pos/n_neg) are
    answered together, vectorised over their t and correct values; the distribution itself is
    cached across groups. Returns (baselines, distributions) DataFrames."""
    from evalsci.pipeline.progress import progress_bar

    from . import _distribution, max_order
    from . import auc as auc_mod

    req = req.reset_index(drop=True)
    res = {c: np.full(len(req), np.nan) for c in RESULT_COLUMNS}
    dist_frames = []
    cols = ["metric", "n", "p", "labels", "n_pos", "n_neg"]
    group_key = pd.Series(
        [
            repr(tuple(None if _empty(v) else v for v in r))
            for r in req[cols].itertuples(index=False)
        ],
        index=req.index,
    )
    with progress_bar(total=len(req), desc="maxrandom", unit="row", disable=not progress) as bar:
        for _, idx in req.groupby(group_key, sort=False, dropna=False).groups.items():
            rows = req.loc[idx]
            first = rows.iloc[0]
            t = rows["t"].to_numpy(dtype=float)
            ut, inv = np.unique(t, return_inverse=True)
            if first["metric"] == "accuracy":
                n, dist = _distribution(int(first["n"]), _p_arg(first))
                total = n
                standard = dist.mean / n
                expected = max_order.expected_max_count(dist, ut)[inv] / n
            else:
                dist = auc_mod.u_distribution(int(first["n_pos"]), int(first["n_neg"]))
                total = dist.n
                standard = 0.5
                expected = max_order.expected_max_count(dist, ut)[inv] / total
            res["standard"][idx] = standard
            res["expected_max"][idx] = np.clip(expected, 0, 1)
            has_c = rows["correct"].notna().to_numpy()
            if has_c.any():
                c = rows["correct"].to_numpy(dtype=float)[has_c].astype(np.int64)
                tc = t[has_c]
                sel = np.asarray(idx)[has_c]
                res["tail_standard"][sel] = max_order.max_tail_counts(dist, np.ones_like(tc), c)
                res["tail_max"][sel] = max_order.max_tail_counts(dist, tc, c)
            for j in np.flatnonzero(rows["distribution"].to_numpy()):
                row = rows.iloc[j]
                k = np.arange(total + 1)
                tt = np.asarray(float(row["t"]))
                dist_frames.append(
                    pd.DataFrame(
                        {
                            "key": row["key"],
                            "k": k,
                            "accuracy": k / total,
                            "pmf": max_order.max_pmf_counts(dist, tt, k),
                            "cdf": max_order.max_cdf_counts(dist, tt, k),
                        }
                    )
                )
            bar.update(len(rows))
    out = req.copy()
    for c in RESULT_COLUMNS:
        out[c] = res[c]
    dists = (
        pd.concat(dist_frames, ignore_index=True)
        if dist_frames
        else pd.DataFrame(columns=DISTRIBUTION_COLUMNS)
    )
    return out, dists


def answer_file(requests, baselines, distributions, progress: bool = True):
    """The `maxrandom` rule: read + validate the requests file, answer, write the baselines
    and distributions files atomically (nothing is written when a request is bad)."""
    from evalsci.pipeline.jobs import atomic_path

    requests_path, baselines_path, distributions_path = requests, baselines, distributions
    req = read_requests(requests_path)
    base, dists = answer_requests(req, progress=progress)
    with atomic_path(baselines_path) as tmp_b, atomic_path(distributions_path) as tmp_d:
        base.to_csv(tmp_b, index=False)
        dists.to_csv(tmp_d, index=False)
    return Path(baselines_path), Path(distributions_path)
