"""Resumable shards: long jobs as many small files, each written atomically.

`run_shards(keys, compute, out_dir, plan=...)` calls `compute(key) -> DataFrame` for every
key whose shard file `out_dir/<key>.csv.gz` does not exist yet and writes it through a
temporary file renamed into place, so a job killed at any point leaves only complete
shards, and a rerun redoes exactly the missing ones. The gzip header carries no time
stamp, so identical results give byte-identical files.

`plan` (any JSON-able description of what the shards compute: model, settings, ...) is
stored in `out_dir/_plan.json`; when a rerun's plan differs, the stale shards are deleted
first, so results computed under other settings are never mixed in.
"""

from __future__ import annotations

import gzip
import json
import logging
from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd

from evalsci.pipeline.jobs import atomic_path

log = logging.getLogger(__name__)

PLAN = "_plan.json"
SUFFIX = ".csv.gz"


def shard_path(out_dir: str | Path, key: str) -> Path:
    if not key or "/" in key or key.startswith("."):
        raise ValueError(f"bad shard key {key!r}")
    return Path(out_dir) / f"{key}{SUFFIX}"


def write_frame(df: pd.DataFrame, path: str | Path) -> None:
    """Write a gzipped CSV atomically and reproducibly (no time stamp, no file name in the
    gzip header: the temporary name would differ between runs)."""
    with (
        atomic_path(path) as tmp,
        open(tmp, "wb") as raw,
        gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz,
    ):
        gz.write(df.to_csv(index=False).encode("utf-8"))


def _sync_plan(out_dir: Path, plan: dict | None) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    if plan is None:
        return
    text = json.dumps(plan, sort_keys=True, indent=1, default=str)
    file = out_dir / PLAN
    if file.exists() and file.read_text() != text:
        stale = sorted(out_dir.glob(f"*{SUFFIX}"))
        log.warning("shard plan in %s changed: deleting %d stale shards", out_dir, len(stale))
        for f in stale:
            f.unlink()
    if not file.exists() or file.read_text() != text:
        with atomic_path(file) as tmp:
            tmp.write_text(text)


def pending(keys: Sequence[str], out_dir: str | Path) -> list[str]:
    """Keys whose shard file is not there yet."""
    return [k for k in keys if not shard_path(out_dir, k).exists()]


def run_shards(
    keys: Sequence[str],
    compute: Callable[[str], pd.DataFrame],
    out_dir: str | Path,
    *,
    plan: dict | None = None,
    desc: str = "shards",
    progress: bool = True,
) -> list[Path]:
    """Compute every missing shard; returns all shard paths in `keys` order."""
    from evalsci.pipeline.progress import progress_bar

    out_dir = Path(out_dir)
    if len(set(keys)) != len(keys):
        raise ValueError("shard keys must be unique")
    _sync_plan(out_dir, plan)
    todo = pending(keys, out_dir)
    if len(todo) < len(keys):
        log.info(
            "%s: %d of %d shards already done in %s",
            desc,
            len(keys) - len(todo),
            len(keys),
            out_dir,
        )
    for key in progress_bar(todo, desc=desc, disable=not progress):
        df = compute(key)
        if not isinstance(df, pd.DataFrame):
            raise TypeError(f"shard {key!r}: compute returned {type(df).__name__}, not DataFrame")
        write_frame(df, shard_path(out_dir, key))
    return [shard_path(out_dir, k) for k in keys]


def read_shards(out_dir: str | Path, keys: Sequence[str]) -> pd.DataFrame:
    """Concatenate the shards of `keys` (in that order); a missing one is an error."""
    missing = pending(keys, out_dir)
    if missing:
        raise FileNotFoundError(f"{len(missing)} shards missing in {out_dir}, e.g. {missing[:3]}")
    # keep_default_na=False: answer texts such as "None" or "NA" stay strings
    return pd.concat(
        [pd.read_csv(shard_path(out_dir, k), keep_default_na=False, na_values=[""]) for k in keys],
        ignore_index=True,
    )
