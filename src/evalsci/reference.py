"""The papers' own numbers: one loader for every study's `reference.yaml`.

Each study keeps the values its tables print beside ours ("paper" columns) in
`evalsci/studies/<study>/reference.yaml`, every value with its source (table, page).
"""

from __future__ import annotations

from functools import cache
from importlib import resources

import yaml

STUDIES = ("baselines", "tapt", "assessors", "mc_icl")


@cache
def load(study: str) -> dict:
    """The parsed reference.yaml of `study` (cached; treat it as read-only)."""
    if study not in STUDIES:
        raise ValueError(f"unknown study {study!r}; studies with a reference.yaml: {STUDIES}")
    # a data file read by path: loading it imports no study package
    text = resources.files("evalsci").joinpath("studies", study, "reference.yaml").read_text()
    return yaml.safe_load(text)
