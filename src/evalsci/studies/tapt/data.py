"""The accuracies of the tapt experiment, in the authors' schema, as one long table.

The authors store one `accuracies.csv` per (m, n, LM, task) under
`<root>/m{m}/n{n}/{lm}/{dataset}/accuracies.csv`, one row per repeated subsample (row
order = subsample index), with columns `base, extra, test, majority, num_classes,
majority_all`. Released roots (kddubey/pretrain-on-test `analysis/`):
`accuracies_from_paper` (Sections 5-7, LMs bert and gpt2), `accuracies_gpt2_epochs_2`
(Section 8), `accuracies_zero_shot` and `accuracies_zero_shot_packing` (Section 9). Our own
recompute path writes the same layout under one root, so the same loader reads both.

A *configuration* is what the paper fits one hierarchical model to: `m{m}_n{n}` (main, both
LMs), `gpt2_epochs_2_m{m}_n{n}` (overtraining), `zero_shot_n{n}` and
`zero_shot_packing_n{n}`.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from evalsci.data.checked import expect_count, numeric, read_csv, require_columns
from evalsci.studies.tapt.columns import ACCURACY_COLUMNS, TABLE_COLUMNS

ACCURACY_METHODS = ("base", "extra", "test")
# The accuracy columns that must lie in [0, 1]
_PROBABILITIES = ("base", "extra", "test", "majority", "majority_all")
RELEASED_ROOTS = (
    "analysis/accuracies_from_paper",
    "analysis/accuracies_gpt2_epochs_2",
    "analysis/accuracies_zero_shot",
    "analysis/accuracies_zero_shot_packing",
)
# The two paired comparisons of the paper: (control, treatment).
COMPARISONS = {"boost": ("base", "extra"), "bias": ("extra", "test")}

_PATH = re.compile(r"m(?P<m>\d+)/n(?P<n>\d+)/(?P<lm>[^/]+)/(?P<dataset>[^/]+)/accuracies\.csv$")


class AccuracyDataError(ValueError):
    """An accuracies file is missing, malformed or inconsistent."""


def family_of(lm: str) -> str:
    """Which experiment an LM directory belongs to (by the authors' naming)."""
    if "zero-shot-packing" in lm:
        return "zero_shot_packing"
    if "zero-shot" in lm:
        return "zero_shot"
    if re.search(r"-epochs-\d+$", lm):
        return "overtraining"
    return "main"


def config_name(lm: str, m: int, n: int) -> str:
    """The configuration a (LM, m, n) cell is fitted in (see module docstring)."""
    fam = family_of(lm)
    if fam == "main":
        return f"m{m}_n{n}"
    if fam == "overtraining":
        return f"{lm.replace('-', '_')}_m{m}_n{n}"
    # Zero-shot runs pass m only to keep the test splits identical; it does not vary.
    return f"{fam}_n{n}"


def find_accuracy_files(root: str | Path) -> list[tuple[int, int, str, str, Path]]:
    """Every `m*/n*/<lm>/<dataset>/accuracies.csv` under `root` as (m, n, lm, dataset, path)."""
    root = Path(root)
    found = []
    for path in sorted(root.glob("m*/n*/*/*/accuracies.csv")):
        match = _PATH.search(path.relative_to(root).as_posix())
        if match is None:
            raise AccuracyDataError(f"{path}: not laid out as m{{m}}/n{{n}}/{{lm}}/{{dataset}}")
        g = match.groupdict()
        found.append((int(g["m"]), int(g["n"]), g["lm"], g["dataset"], path))
    return found


def released_subsamples(lm: str, n: int) -> int | None:
    """Subsamples (rows) per accuracies.csv of the released bundle: 100, 100, 50, 20 for
    n = 50, 100, 200, 500 (paper Section 4), 20 for the zero-shot runs; None if unknown."""
    if family_of(lm) in ("zero_shot", "zero_shot_packing"):
        return 20
    return {50: 100, 100: 100, 200: 50, 500: 20}.get(n)


def read_accuracy_file(path: str | Path, n: int, rows: int | None = None) -> pd.DataFrame:
    """One authors' accuracies.csv, checked: columns, types and ranges (naming the row),
    n*acc being a count, and `rows` subsamples when given."""
    path = Path(path)
    err = AccuracyDataError
    df = read_csv(path, err)
    require_columns(df, ACCURACY_COLUMNS, path, err)
    if df.empty:
        raise err(f"{path}: no rows")
    if rows is not None:
        expect_count(len(df), rows, "subsamples (rows)", path, err)
    df = df[list(ACCURACY_COLUMNS)].copy()
    for col in _PROBABILITIES:
        df[col] = numeric(df, col, path, lo=0, hi=1, error=err)
    df["num_classes"] = numeric(df, "num_classes", path, lo=2, integer=True, error=err).astype(int)
    off = _not_whole(df[list(ACCURACY_METHODS)].to_numpy(float) * n)
    if off.any():
        i, j = map(int, np.argwhere(off)[0])
        raise err(
            f"{path}: column {ACCURACY_METHODS[j]!r}, row {i + 1}: n*accuracy is not a "
            f"whole count for n={n}"
        )
    return df


def _not_whole(counts: np.ndarray) -> np.ndarray:
    """Where n * accuracy is not a whole count (beyond float noise of 1e-6)."""
    return np.abs(counts - np.round(counts)) > 1e-6


def parse_path(path: str | Path) -> tuple[int, int, str, str]:
    """(m, n, lm, dataset) of a path ending in m{m}/n{n}/{lm}/{dataset}/accuracies.csv."""
    match = _PATH.search(Path(path).as_posix())
    if match is None:
        raise AccuracyDataError(
            f"{path}: not laid out as m{{m}}/n{{n}}/{{lm}}/{{dataset}}/accuracies.csv"
        )
    g = match.groupdict()
    return int(g["m"]), int(g["n"]), g["lm"], g["dataset"]


def released_files(bundle_dir: str | Path) -> list[Path]:
    """Every accuracies.csv of the released bundle (the four roots of RELEASED_ROOTS)."""
    files = []
    for root in RELEASED_ROOTS:
        found = [f[-1] for f in find_accuracy_files(Path(bundle_dir) / root)]
        if not found:
            raise AccuracyDataError(f"{Path(bundle_dir) / root}: no accuracies.csv files")
        files.extend(found)
    return files


def _read_all_at_once(files: list[str | Path], released: bool) -> pd.DataFrame | None:
    """The checks of `read_accuracy_file` on every file at once, or None when a file fails
    one (or is not plain numbers): the caller then reads file by file, which names the
    file, column and row. Parsing is pyarrow's (correctly rounded decimals); the per-file
    pandas reads cost about 10 ms each, 6 CPU-s for the 600 released files, and 40 times
    that with every job on an emulated CPU (tests/test_portable_qemu.py)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    from evalsci.data.checked import verify_released

    tables, sizes = [], []
    meta: dict[str, list] = {k: [] for k in ("config", "family", "m", "n", "lm", "dataset")}
    for path in files:
        m, n, lm, dataset = parse_path(path)
        verify_released(path, AccuracyDataError)
        try:
            t = pacsv.read_csv(path)
        except (pa.ArrowInvalid, OSError):
            return None
        if t.num_rows == 0 or not set(ACCURACY_COLUMNS) <= set(t.column_names):
            return None
        t = t.select(list(ACCURACY_COLUMNS))
        if not all(pa.types.is_integer(f.type) or pa.types.is_floating(f.type) for f in t.schema):
            return None
        rows = released_subsamples(lm, n) if released else None
        if rows is not None and t.num_rows != rows:
            return None
        tables.append(t.cast(pa.schema([(c, pa.float64()) for c in ACCURACY_COLUMNS])))
        row = (config_name(lm, m, n), family_of(lm), m, n, lm, dataset)
        for k, v in zip(meta, row, strict=True):
            meta[k].append(v)
        sizes.append(t.num_rows)
    values = pa.concat_tables(tables)
    if any(col.null_count for col in values.columns):
        return None
    x = {c: values.column(c).to_numpy() for c in ACCURACY_COLUMNS}
    ok = all(np.isfinite(v).all() for v in x.values())
    ok = ok and all(((x[c] >= 0) & (x[c] <= 1)).all() for c in _PROBABILITIES)
    ok = ok and bool(
        ((x["num_classes"] >= 2) & (x["num_classes"] == np.floor(x["num_classes"]))).all()
    )
    n_row = np.repeat(np.array(meta["n"], float), sizes)
    if (
        not ok
        or _not_whole(np.column_stack([x[c] for c in ACCURACY_METHODS]) * n_row[:, None]).any()
    ):
        return None
    # strings stay Python objects (pandas then types them as the file-by-file reader does)
    out = {
        k: np.repeat(np.array(v, dtype=object if isinstance(v[0], str) else np.int64), sizes)
        for k, v in meta.items()
    }
    out["subsample"] = np.concatenate([np.arange(s) for s in sizes])
    for c in ACCURACY_COLUMNS:
        out[c] = x[c].astype(int) if c == "num_classes" else x[c]
    return pd.DataFrame(out)


def load_accuracies(files: list[str | Path], released: bool = False) -> pd.DataFrame:
    """The given accuracies.csv files as one long table with columns TABLE_COLUMNS.
    `released`: the files are the authors' bundle, whose subsample counts are known."""
    if not files:
        raise AccuracyDataError("no accuracies.csv files to load")
    out = _read_all_at_once(files, released)
    if out is None:
        out = pd.concat(_read_one_by_one(files, released), ignore_index=True)
    dup = out.duplicated(["config", "lm", "dataset", "subsample"])
    if dup.any():
        first = out.loc[dup].iloc[0]
        raise AccuracyDataError(
            f"duplicate accuracies for {first['config']}/{first['lm']}/{first['dataset']} "
            "(the same (m, n, lm, dataset) twice?)"
        )
    out = out.sort_values(["family", "m", "n", "lm", "dataset", "subsample"], kind="stable")
    return out.reset_index(drop=True)[list(TABLE_COLUMNS)]


def _read_one_by_one(files: list[str | Path], released: bool) -> list[pd.DataFrame]:
    frames = []
    for path in files:
        m, n, lm, dataset = parse_path(path)
        df = read_accuracy_file(path, n, released_subsamples(lm, n) if released else None)
        df.insert(0, "subsample", np.arange(len(df)))
        df.insert(0, "dataset", dataset)
        df.insert(0, "lm", lm)
        df.insert(0, "n", n)
        df.insert(0, "m", m)
        df.insert(0, "family", family_of(lm))
        df.insert(0, "config", config_name(lm, m, n))
        frames.append(df)
    return frames


def configs_of_files(files) -> list[str]:
    """Configurations covered by a list of accuracies.csv paths (paper order)."""
    return config_order(config_name(lm, m, n) for m, n, lm, _ in map(parse_path, files))


# Configurations of the released bundle (kddubey/pretrain-on-test at the pinned commit).
RELEASED_CONFIGS = (
    *(f"m{m}_n{n}" for m in (50, 100) for n in (50, 100, 200, 500)),
    "gpt2_epochs_2_m50_n50",
    "gpt2_epochs_2_m50_n200",
    "gpt2_epochs_2_m100_n50",
    "gpt2_epochs_2_m100_n100",
    "gpt2_epochs_2_m100_n200",
    "gpt2_epochs_2_m100_n500",
    "zero_shot_n100",
    "zero_shot_packing_n100",
)


def family_of_config(config: str) -> str:
    if config.startswith("zero_shot_packing"):
        return "zero_shot_packing"
    if config.startswith("zero_shot"):
        return "zero_shot"
    return "main" if re.fullmatch(r"m\d+_n\d+", config) else "overtraining"


def read_table(path: str | Path) -> pd.DataFrame:
    """The normalised long table written by `load_accuracies` (columns checked)."""
    df = read_csv(path, AccuracyDataError)
    require_columns(df, TABLE_COLUMNS, path, AccuracyDataError)
    return df


def config_order(configs) -> list[str]:
    """Configurations sorted as the paper presents them: main, overtraining, zero-shot."""

    def key(c):
        nums = [int(x) for x in re.findall(r"[mn](\d+)", c)]
        fam = 0 if c.startswith("m") else 1 if "epochs" in c else 2 + ("packing" in c)
        return (fam, *nums)

    return sorted(set(configs), key=key)
