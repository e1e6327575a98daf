"""Resumable shards: a job killed at any point, rerun, redoes only unfinished shards and
gives byte-identical results."""

from __future__ import annotations

import pandas as pd
import pytest

from evalsci.studies.baselines.resumable import pending, read_shards, run_shards, shard_path


def _compute(key: str) -> pd.DataFrame:
    i = int(key.split("-")[1])
    return pd.DataFrame({"k": [key] * 3, "x": [i * 0.1, i * 0.2, i / 3]})


KEYS = [f"s-{i}" for i in range(6)]


class Killed(BaseException):
    """Stands in for SIGKILL/KeyboardInterrupt (not an Exception: nothing may catch it)."""


def test_interrupted_run_resumes_and_matches(tmp_path):
    calls, killed = [], []

    def flaky(key):
        calls.append(key)
        if key == "s-3" and not killed:
            killed.append(key)
            raise Killed("simulated kill")
        return _compute(key)

    with pytest.raises(Killed):
        run_shards(KEYS, flaky, tmp_path / "a", progress=False)
    assert pending(KEYS, tmp_path / "a") == KEYS[3:]
    assert not list((tmp_path / "a").glob(".*"))  # no half-written temporary file left
    calls.clear()
    run_shards(KEYS, flaky, tmp_path / "a", progress=False)
    assert calls == KEYS[3:]  # only the unfinished ones
    run_shards(KEYS, _compute, tmp_path / "b", progress=False)
    for k in KEYS:
        assert (
            shard_path(tmp_path / "a", k).read_bytes() == shard_path(tmp_path / "b", k).read_bytes()
        )
    pd.testing.assert_frame_equal(
        read_shards(tmp_path / "a", KEYS), pd.concat([_compute(k) for k in KEYS], ignore_index=True)
    )


def test_changed_plan_discards_stale_shards(tmp_path):
    run_shards(KEYS, _compute, tmp_path, plan={"model": "a"}, progress=False)
    calls = []
    run_shards(
        KEYS,
        lambda k: calls.append(k) or _compute(k),
        tmp_path,
        plan={"model": "a"},
        progress=False,
    )
    assert calls == []
    run_shards(
        KEYS,
        lambda k: calls.append(k) or _compute(k),
        tmp_path,
        plan={"model": "b"},
        progress=False,
    )
    assert calls == KEYS


def test_missing_shard_is_an_error(tmp_path):
    run_shards(KEYS[:2], _compute, tmp_path, progress=False)
    with pytest.raises(FileNotFoundError, match="s-2"):
        read_shards(tmp_path, KEYS)
