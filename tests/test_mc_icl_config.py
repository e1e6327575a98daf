"""The `paper` preset is the paper's setup (reference.yaml), one switch away."""

from __future__ import annotations

from importlib import resources

import pytest
import yaml

from evalsci.settings import resolved
from evalsci.studies.mc_icl.maxrandom_requests import requests
from evalsci.studies.mc_icl.params import PAPER_MODELS, effective


def _section(scale: str) -> dict:
    """Config `mc_icl` of a run at this preset, as the workflow resolves it."""
    return resolved({"mc_icl": {"scale": scale}})["mc_icl"]


@pytest.fixture(scope="module")
def section():
    return _section("default")


@pytest.fixture(scope="module")
def reference():
    text = resources.files("evalsci.studies.mc_icl").joinpath("reference.yaml").read_text()
    return yaml.safe_load(text)["setup"]


def test_paper_scale_is_the_paper(reference):
    full = effective(_section("paper"))
    for key in (
        "num_demos",
        "num_permutations",
        "num_trials",
        "num_eval",
        "models",
        "datasets",
        "figure2_dataset",
        "figure3_dataset",
    ):
        value = getattr(full, key)
        assert (list(value) if isinstance(value, tuple) else value) == reference[key]["value"], key
    assert full.selection.set_size == reference["selection_set_size"]["value"]
    assert full.selection.z_threshold == reference["z_threshold"]["value"]
    fig4 = reference["figure4"]["value"]
    assert full.selection.models == (fig4["model"],)
    assert full.selection.datasets == (fig4["dataset"],)
    assert set(full.models) == set(PAPER_MODELS)


def test_default_scale_runs_offline_only(section):
    p = effective(section)
    assert p.scale == "default"
    assert set(p.datasets) <= {"sst2", "rte", "wnli", "mrpc"}


def test_effective_rejects_inconsistent_config(section):
    bad = {**section, "figure3_dataset": "mnli"}
    with pytest.raises(ValueError, match="figure3_dataset"):
        effective(bad)


def test_maxrandom_requests_follow_the_plan():
    p = effective(_section("paper"))
    req = requests(["wnli", "sst2"], p, seed=1).set_index("key")
    assert req.loc["wnli|k_curve", "n"] == 71  # fewer than 256: the whole split
    assert req.loc["sst2|k_curve", "n"] == 256
    assert req.loc["sst2|k_curve", "t"] == 21  # best of k = 0..20
    assert req.loc["sst2|k_curve", "labels"] == '{"2": 256}'
    for i in range(5):  # distinct prompts of a trial: at most 1 + P * K
        assert 1 + 20 < req.loc[f"sst2|trial{i}|prompts", "t"] <= 1 + 20 * 20
    assert 1 <= req.loc["sst2|one_shot", "t"] <= 5 * 20
    assert [req.loc[f"sst2|set_k_curve|s{s}", "t"] for s in (1, 6)] == [2, 7]
