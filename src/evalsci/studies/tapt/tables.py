"""Checked reading of tapt tables (writing goes through `evalsci.tables.write_table`)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from evalsci.data.checked import read_csv, require_columns


def read_checked(path: str | Path, columns: Iterable[str]) -> pd.DataFrame:
    """Read a CSV and fail naming the file (unreadable) or the missing columns."""
    df = read_csv(path)
    require_columns(df, columns, path)
    return df
