"""A script job never runs more compute threads than the cores Snakemake gave it."""

from __future__ import annotations

import os

import pytest

from conftest import python_json

PROBE = """
import json, os, sys
import numpy, torch  # loaded before the cap, as when a script imports its step module first
from threadpoolctl import threadpool_info
from evalsci.pipeline.jobs import THREAD_VARIABLES, logged

class Job:  # the parts of Snakemake's `snakemake` object that `logged` reads
    threads = int(sys.argv[1])
    log = []

with logged(Job()):
    pools = {p["internal_api"]: p["num_threads"] for p in threadpool_info()}
    print(json.dumps({"pools": pools, "torch": torch.get_num_threads(),
                      "env": {v: os.environ[v] for v in THREAD_VARIABLES}}))
"""


@pytest.mark.parametrize("threads", [1, 2])
def test_logged_caps_every_thread_pool_at_the_jobs_threads(threads):
    pytest.importorskip("torch")
    env = {
        k: v for k, v in os.environ.items() if not k.endswith(("_NUM_THREADS", "_MAXIMUM_THREADS"))
    }
    got = python_json(PROBE, str(threads), env=env)
    assert got["torch"] == threads
    assert got["pools"] and all(n <= threads for n in got["pools"].values()), got["pools"]
    assert set(got["env"].values()) == {str(threads)}
