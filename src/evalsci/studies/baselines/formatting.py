"""Formatting helpers for the paper-shaped Markdown and LaTeX of the baselines tables."""

from __future__ import annotations

import numpy as np
import pandas as pd


def fmt(x, digits: int = 2) -> str:
    """A number for a printed table; NaN/None -> 'n/a'."""
    if x is None or (isinstance(x, float) and np.isnan(x)) or x is pd.NA:
        return "n/a"
    return f"{x:.{digits}f}"


def tex_escape(s: str) -> str:
    return s.replace("_", r"\_").replace("%", r"\%")


def md_table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] * len(header)) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)
