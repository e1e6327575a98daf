"""Readers of the authors' released files (or our recompute in the same schema).

Every reader checks the columns/keys it relies on and names the file when they are wrong.
Inputs may be a released bundle directory (``resources/released/<bundle>``, upstream
layout) or the recompute directory ``results/baselines/recompute/results``.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from evalsci.data.checked import binary, expect_count, numeric, read_csv, read_json, require_columns
from evalsci.lm.icl import PER_EXAMPLE_COLUMNS
from evalsci.studies.baselines.columns import HELDOUT_COLUMNS
from evalsci.studies.baselines.settings import Cell, parse_key

HELDOUT_TS = (1, 2, 5, 10, 100, 200)
HELDOUT_BINARY = (
    "Above max random on train",
    "Above standard random on train",
    "Above standard random on test",
)
HELDOUT_SPLITS = 100  # random 75/25 splits per experiment in the released files
AGGREGATED = "aggregated-results.json"
# the fixed 200-example subsets of the larger tasks, in the srb_aggregated bundle
SUBSAMPLED_IDXS = "few-shot-eval/subsampled-idxs"
RELEASED_PROMPTS = 200  # prompts per experiment in the released aggregated-results.json


class BaselinesDataError(ValueError):
    """A released/recomputed file of the baselines study is missing or malformed."""


def _find(base: Path, names: Iterable[str]) -> Path:
    for name in names:
        if (base / name).exists():
            return base / name
    raise BaselinesDataError(f"none of {list(names)} found under {base}")


def aggregated_path(path: str | Path) -> Path:
    """The aggregated-results.json of a bundle dir, a results dir, or the file itself."""
    path = Path(path)
    if path.is_dir():
        return _find(path, (f"results/{AGGREGATED}", AGGREGATED))
    return path


def load_aggregated(
    path: str | Path,
    cells: Iterable[Cell] | None = None,
    strict: bool = True,
    prompts: int | None = None,
) -> dict[Cell, np.ndarray]:
    """{cell: per-prompt validation accuracies} from aggregated-results.json.

    `cells` restricts to a subset; with `strict`, a requested cell that is missing is an
    error (released data has all 288), otherwise it is skipped (a recompute subset).
    `prompts`: the number of prompts every experiment must have (released: 200); a list cut
    short would silently make t smaller.
    """
    file = aggregated_path(path)
    raw = read_json(file, error=BaselinesDataError)
    if not isinstance(raw, dict) or not raw:
        raise BaselinesDataError(f"{file}: expected a non-empty JSON object of key -> list")
    data: dict[Cell, np.ndarray] = {}
    for key, accs in raw.items():
        try:
            cell = parse_key(key)
        except ValueError as e:
            raise BaselinesDataError(f"{file}: {e}") from None
        if not isinstance(accs, list) or not accs:
            raise BaselinesDataError(f"{file}: key {key!r} is not a list of accuracies")
        for i, a in enumerate(accs):
            # bool is an int to Python and "0.5" a number to numpy: neither is an accuracy
            if isinstance(a, bool) or not isinstance(a, (int, float)) or not 0 <= a <= 1:
                raise BaselinesDataError(
                    f"{file}: key {key!r}, entry {i}: {a!r} is not an accuracy in [0, 1]"
                )
        if prompts is not None:
            expect_count(len(accs), prompts, f"prompts for {key!r}", file, BaselinesDataError)
        data[cell] = np.asarray(accs, dtype=float)
    if cells is None:
        return dict(sorted(data.items()))
    wanted = list(cells)
    missing = [c.key for c in wanted if c not in data]
    if missing and strict:
        raise BaselinesDataError(f"{file}: missing {len(missing)} cells, e.g. {missing[:3]}")
    out = {c: data[c] for c in wanted if c in data}
    if not out:
        raise BaselinesDataError(f"{file}: none of the configured cells is present")
    return out


def per_example_files(paths: str | Path | Iterable[str | Path]) -> dict[Cell, Path]:
    """{cell: per-example CSV} from a bundle/results directory or a list of files."""
    if isinstance(paths, (str, Path)):
        paths = [paths]
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            base = p / "results" if (p / "results").is_dir() else p
            files.extend(sorted(base.glob("*-shot.csv*")))
        else:
            files.append(p)
    out: dict[Cell, Path] = {}
    for f in files:
        name = f.name.removesuffix(".gz").removesuffix(".csv")
        try:
            out[parse_key(name)] = f
        except ValueError as e:
            raise BaselinesDataError(f"{f}: {e}") from None
    if not out:
        raise BaselinesDataError(f"no per-example CSVs in {[str(p) for p in paths]}")
    return out


def read_per_example(
    path: str | Path, usecols: Iterable[str] = PER_EXAMPLE_COLUMNS
) -> pd.DataFrame:
    """One per-example CSV, only `usecols` (the files are large: read what you need)."""
    usecols = list(usecols)
    path = Path(path)
    header = read_csv(path, BaselinesDataError, nrows=0).columns
    missing = [c for c in usecols if c not in header]
    if missing:
        raise BaselinesDataError(f"{path}: missing columns {missing}; has {list(header)}")
    # read without dtypes, then check: a bad value is named with its row, not a pandas error
    df = read_csv(path, BaselinesDataError, verify=False, usecols=usecols)
    for col in ("Prompt ID", "Example ID"):
        if col in df:
            df[col] = numeric(df, col, path, lo=0, integer=True, error=BaselinesDataError).astype(
                np.int32
            )
    if "Loss of correct answer" in df:
        df["Loss of correct answer"] = numeric(
            df, "Loss of correct answer", path, lo=0, error=BaselinesDataError
        )
    if "Correct prediction" in df:
        df["Correct prediction"] = binary(
            df, "Correct prediction", path, BaselinesDataError
        ).astype(np.float64)
    return df


def heldout_file(bundle: str | Path, t: int) -> Path:
    base = Path(bundle) / "held-out-split-results"
    stem = f"all-train-test-splits_100-trials_t={t}_all-predictions.csv"
    return _find(base, (stem + ".gz", stem))


def load_heldout(bundle: str | Path, ts: Iterable[int] = HELDOUT_TS) -> pd.DataFrame:
    """The authors' held-out split predictions for every t, stacked with a column `t`."""
    frames = []
    for t in ts:
        file = heldout_file(bundle, t)
        df = read_csv(file, BaselinesDataError)
        frames.append(check_heldout(df, file).assign(t=t))
    return pd.concat(frames, ignore_index=True)


def check_heldout(
    df: pd.DataFrame, file, experiments: int = 288, splits: int = HELDOUT_SPLITS
) -> pd.DataFrame:
    """The authors' held-out predictions of one t: every value typed and in range, and
    `splits` splits (0..splits-1) of each of the `experiments` experiments."""
    err = BaselinesDataError
    require_columns(df, HELDOUT_COLUMNS, file, err)
    df = df[list(HELDOUT_COLUMNS)].copy()
    for col in ("Dataset", "Model"):
        bad = df[col].isna()
        if bad.any():
            raise err(f"{file}: column {col!r}, row {int(np.flatnonzero(bad)[0]) + 1} is empty")
    df["Number of shots"] = numeric(
        df, "Number of shots", file, lo=1, integer=True, error=err
    ).astype(int)
    df["Split number"] = numeric(
        df, "Split number", file, lo=0, hi=splits - 1, integer=True, error=err
    ).astype(int)
    for col in HELDOUT_BINARY:
        df[col] = binary(df, col, file, err).astype(int)
    for col in ("Max random F", "Standard random F"):
        df[col] = numeric(df, col, file, lo=0, hi=1, tol=1e-9, error=err)
    expect_count(len(df), experiments * splits, "rows", file, err)
    keys = ["Dataset", "Model", "Number of shots"]
    per = df.groupby(keys)["Split number"].agg(["size", "nunique"])
    expect_count(len(per), experiments, "experiments", file, err)
    bad = per[(per["size"] != splits) | (per["nunique"] != splits)]
    if len(bad):
        raise err(
            f"{file}: experiment {bad.index[0]} has {bad.iloc[0]['size']} rows "
            f"({bad.iloc[0]['nunique']} distinct splits), expected {splits} splits"
        )
    return df


def load_multi_prompt(bundle: str | Path) -> pd.DataFrame:
    """Mizrahi et al.'s per-paraphrase accuracies, long: suite, task, model, paraphrase,
    accuracy (NaN rows dropped)."""
    base = Path(bundle) / "data" / "paraphrases accuracies"
    frames = []
    for suite in ("BBH", "BBL"):
        files = sorted((base / suite).glob("*.csv"))
        if not files:
            raise BaselinesDataError(f"no {suite} CSVs under {base / suite}")
        for f in files:
            df = read_csv(f, BaselinesDataError, dtype={"paraphrase idx": str})
            if "paraphrase idx" not in df.columns:
                raise BaselinesDataError(f"{f}: no 'paraphrase idx' column")
            models = [c for c in df.columns if c.endswith("_acc")]
            if not models:
                raise BaselinesDataError(f"{f}: no '<model>_acc' columns")
            for m in models:  # NaN = not run; anything else must be an accuracy
                df[m] = numeric(df, m, f, lo=0, hi=1, allow_nan=True, error=BaselinesDataError)
            long = df.melt(
                id_vars="paraphrase idx", value_vars=models, var_name="model", value_name="accuracy"
            ).dropna()
            long["model"] = long["model"].str.removesuffix("_acc")
            frames.append(
                long.rename(columns={"paraphrase idx": "paraphrase"}).assign(
                    suite=suite, task=f.stem
                )
            )
    out = pd.concat(frames, ignore_index=True)
    bad = out[(out.accuracy < 0) | (out.accuracy > 1)]
    if len(bad):
        raise BaselinesDataError(f"accuracies outside [0, 1] in {base}: {bad.head(3)}")
    return out[["suite", "task", "model", "paraphrase", "accuracy"]]
