"""Issue 25 item 6: hub models and datasets load at a locked commit; no hub code runs.

The hub is a local hub cache built here, laid out as huggingface_hub writes it
(`models--org--name/refs/main`, `snapshots/<commit>/...`), with HF_HUB_OFFLINE=1: a second
snapshot and a moved `refs/main` play the hub a year later."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
import yaml

from evalsci.pipeline import hublock

from conftest import REPO

SHA1, SHA2 = "1" * 40, "2" * 40


@pytest.fixture
def hub(tmp_path, monkeypatch):
    """An empty hub cache and a lock file, both in tmp_path."""
    from huggingface_hub import constants

    cache = tmp_path / "hub"
    cache.mkdir()
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setenv("EVALSCI_HUB_LOCK", str(tmp_path / "results" / "hub.lock.yaml"))
    return cache


def _publish(cache: Path, folder: str, sha: str, write) -> Path:
    """Commit `sha` of a repo into the cache and point refs/main at it (the hub moved)."""
    snap = cache / folder / "snapshots" / sha
    snap.mkdir(parents=True)
    write(snap)
    (cache / folder / "refs").mkdir(exist_ok=True)
    (cache / folder / "refs" / "main").write_text(sha)
    return snap


def _tiny(seed):
    from evalsci.lm.load import tiny_model

    model, tok = tiny_model("llama", seed=seed)

    def write(snap):
        model.save_pretrained(snap)
        tok.save_pretrained(snap)

    return model, write


def _same(a, b) -> bool:
    import torch

    return all(
        torch.equal(x, y)
        for x, y in zip(a.state_dict().values(), b.state_dict().values(), strict=True)
    )


@pytest.mark.lm
def test_a_hub_model_loads_the_commit_locked_at_its_first_load(hub, caplog):
    from evalsci.lm.load import load_model

    first, write1 = _tiny(seed=1)
    _publish(hub, "models--org--tiny", SHA1, write1)
    with caplog.at_level(logging.INFO, logger="evalsci.pipeline.hublock"):
        model, _ = load_model({"hub": "org/tiny"}, device="cpu")
    assert _same(model, first)
    assert hublock.read_lock()["model"] == {"org/tiny": SHA1}
    assert f"hub model org/tiny at commit {SHA1} (first load" in caplog.text
    # a year later the hub's main has moved on: the lock still loads the first commit
    moved, write2 = _tiny(seed=2)
    _publish(hub, "models--org--tiny", SHA2, write2)
    assert not _same(moved, first)
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="evalsci.pipeline.hublock"):
        model, _ = load_model({"hub": "org/tiny"}, device="cpu")
    assert _same(model, first)
    assert f"hub model org/tiny at commit {SHA1} (locked" in caplog.text
    # a revision given in the config wins, and is what the lock keeps from then on
    model, _ = load_model({"hub": "org/tiny", "revision": SHA2}, device="cpu")
    assert _same(model, moved)
    assert hublock.read_lock()["model"] == {"org/tiny": SHA2}


def test_a_hub_dataset_loads_the_commit_locked_at_its_first_load(hub, monkeypatch):
    """`datasets` cannot read a hub dataset offline from the hub cache, so `load_dataset` is
    replaced by a recorder: what it is asked for is the point (a revision, no script flag)."""
    import datasets

    from evalsci.data import hf_classification as hfc

    calls = []

    def load_dataset(path, name=None, split=None, **kwargs):
        calls.append(kwargs)
        return datasets.Dataset.from_dict({"text": ["a", "b"], "label": [0, 1]})

    monkeypatch.setattr(datasets, "load_dataset", load_dataset)
    spec = hfc.DatasetSpec("data", "org/data", ("no", "yes"), "The text is. Answer.")
    _publish(hub, "datasets--org--data", SHA1, lambda snap: (snap / "README.md").write_text("x"))
    hfc._read_hub(spec)
    assert calls == [{}]  # the first load: the hub's main, and no trust_remote_code
    assert hublock.read_lock()["dataset"] == {"org/data": SHA1}
    _publish(hub, "datasets--org--data", SHA2, lambda snap: (snap / "README.md").write_text("y"))
    hfc._read_hub(spec)
    assert calls[-1] == {"revision": SHA1}
    lock = yaml.safe_load(Path(hublock.lock_path()).read_text())
    assert lock["dataset"] == {"org/data": SHA1}


def test_a_corrupt_lock_is_named(hub):
    path = hublock.lock_path()
    path.parent.mkdir(parents=True)
    path.write_text("model: {org/tiny: main}\n")
    with pytest.raises(hublock.HubLockError, match=r"hub.lock.yaml: model org/tiny: 'main'"):
        hublock.revision("org/tiny", "model")


def test_no_dataset_spec_asks_for_hub_code():
    """datasets >= 4 removed loading scripts (huggingface/datasets#7592, release 4.0.0): the
    flag is inert there and gone from every spec; pyproject excludes the 3.x that honoured it."""
    from packaging.requirements import Requirement

    tomllib = pytest.importorskip("tomllib", reason="Python 3.11+ reads pyproject.toml")

    from evalsci.data.hf_classification import DatasetSpec, load_specs

    assert "trust_remote_code" not in DatasetSpec.__dataclass_fields__
    assert load_specs()
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    [req] = [Requirement(r) for r in extras["optional-dependencies"]["lm"] if r.startswith("data")]
    assert req.name == "datasets"
    assert not req.specifier.contains("3.6.0") and req.specifier.contains("4.0.0")


def test_the_report_front_page_lists_the_lock(hub):
    """`summary()` is what workflow/report/workflow.rst shows (config key `hub_lock`)."""
    assert hublock.summary().startswith("none (no hub model or dataset loaded")
    _publish(hub, "datasets--org--data", SHA1, lambda snap: (snap / "README.md").write_text("x"))
    hublock.record("org/data", "dataset")
    assert hublock.summary() == f"dataset org/data at {SHA1} ({hublock.lock_path()})"
    rst = (REPO / "workflow" / "report" / "workflow.rst").read_text()
    assert '{{ snakemake.config["hub_lock"] }}' in rst
