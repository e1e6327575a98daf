"""Paper tables as CSV (machine-readable, full precision), Markdown (README) and LaTeX (paper).

One writer for every study, so that every table is written atomically the same way.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from evalsci.pipeline.jobs import atomic_path


def write_table(
    df: pd.DataFrame,
    outputs: Iterable[str | os.PathLike],
    *,
    floatfmt: str = ".3f",
    markdown: str | None = None,
    latex: str | None = None,
) -> None:
    """Write `df` to each output by suffix (.csv, .md, .tex), each atomically.

    The CSV keeps full precision. Markdown and LaTeX are rendered from `df` with `floatfmt`,
    unless a study passes its own paper-shaped `markdown`/`latex` text.
    """
    for out in outputs:
        out = Path(out)
        with atomic_path(out) as tmp:
            if out.suffix == ".csv":
                df.to_csv(tmp, index=False)
            elif out.suffix == ".md":
                text = (
                    markdown
                    if markdown is not None
                    else df.to_markdown(index=False, floatfmt=floatfmt)
                )
                tmp.write_text(text if text.endswith("\n") else text + "\n")
            elif out.suffix == ".tex":
                fmt = "{:" + floatfmt + "}"
                text = (
                    latex
                    if latex is not None
                    else df.to_latex(index=False, float_format=fmt.format, na_rep="--")
                )
                tmp.write_text(text if text.endswith("\n") else text + "\n")
            else:
                raise ValueError(f"unsupported table format: {out}")


def markdown_table(df: pd.DataFrame) -> str:
    """`df` as a Markdown table, every cell as `str` gives it (the caller formats numbers):
    the docs' generated blocks."""
    head = "| " + " | ".join(str(c) for c in df.columns) + " |"
    sep = "| " + " | ".join("---" for _ in df.columns) + " |"
    rows = ["| " + " | ".join(str(v) for v in r) + " |" for r in df.itertuples(index=False)]
    return "\n".join([head, sep, *rows]) + "\n"
