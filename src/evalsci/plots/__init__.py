"""One figure style for all studies, and deterministic PDF + PNG output."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from evalsci.pipeline.jobs import atomic_path  # noqa: E402

STYLE = {
    "figure.dpi": 100,
    "savefig.dpi": 200,
    "savefig.bbox": "tight",
    "font.size": 9,
    "axes.titlesize": 9,
    "axes.labelsize": 9,
    "legend.fontsize": 8,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "lines.linewidth": 1.2,
    "pdf.fonttype": 42,  # embed TrueType so text stays editable/searchable
    "svg.hashsalt": "evalsci",
}

# Colours used across studies for the recurring lines.
COLORS = {
    "standard": "#7f7f7f",  # standard random baseline
    "max": "#d62728",  # max random baseline
    "ours": "#1f77b4",
    "paper": "#ff7f0e",
}


def apply_style() -> None:
    plt.rcParams.update(STYLE)


def savefig(fig, outputs: Iterable[str | Path]) -> None:
    """Save `fig` to each output path (.pdf and/or .png), atomically and reproducibly.

    PDF metadata dates are dropped so reruns give byte-identical files.
    """
    for out in outputs:
        out = Path(out)
        with atomic_path(out) as tmp:
            if out.suffix == ".pdf":
                fig.savefig(tmp, format="pdf", metadata={"CreationDate": None, "ModDate": None})
            elif out.suffix == ".png":
                fig.savefig(tmp, format="png", metadata={"Software": None})
            else:
                raise ValueError(f"unsupported figure format: {out}")
    plt.close(fig)


apply_style()
