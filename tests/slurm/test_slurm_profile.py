"""workflow/profiles/slurm routes exactly the rules that ask for a GPU to the GPU partition.

No cluster needed: the rules' resources come from the parsed workflow. A GPU rule renamed or
added without its `set-resources` entry would otherwise be sent to the CPU partition with a
`--gpus=1` request that a real site rejects (or queues forever).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
import yaml
from snakemake.api import SnakemakeApi
from snakemake.settings.types import ConfigSettings, ResourceSettings, StorageSettings

from conftest import REPO

pytestmark = pytest.mark.workflow  # parses the workflow (a few seconds)
PROFILE = yaml.safe_load((REPO / "workflow/profiles/slurm/config.yaml").read_text())


def _rules():
    with SnakemakeApi() as api, tempfile.TemporaryDirectory() as wd:
        wf = api.workflow(
            resource_settings=ResourceSettings(),
            config_settings=ConfigSettings(),
            storage_settings=StorageSettings(),
            snakefile=REPO / "Snakefile",
            workdir=Path(wd),
        )
        # The API has no public accessor for parsed rules' resources.
        return {r.name: dict(r.resources) for r in wf._workflow.rules}


def test_gpu_rules_go_to_the_gpu_partition():
    rules = _rules()
    gpu_rules = {name for name, res in rules.items() if "gpu" in res}
    assert gpu_rules, "no rule declares a gpu resource"
    routed = {
        name
        for name, res in PROFILE["set-resources"].items()
        if res.get("slurm_partition") == "gpu"
    }
    assert routed == gpu_rules
    assert set(PROFILE["set-resources"]) <= set(rules), "set-resources names unknown rules"
    assert PROFILE["default-resources"]["slurm_partition"] == "cpu"
    assert PROFILE["slurm-status-command"] == "squeue"
