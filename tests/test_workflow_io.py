"""evalsci.pipeline.jobs.atomic_path: files land whole, with the permissions the umask allows."""

from __future__ import annotations

import os
import stat

import pytest

from evalsci.pipeline.jobs import atomic_path


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_atomic_path_respects_the_umask(tmp_path, umask, mode):
    old = os.umask(umask)
    try:
        with atomic_path(tmp_path / "t.csv") as tmp:
            tmp.write_text("a\n1\n")
        # what a plain open() gives under the same umask
        (tmp_path / "plain.csv").write_text("a\n")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "t.csv").stat().st_mode) == mode
    assert stat.S_IMODE((tmp_path / "plain.csv").stat().st_mode) == mode


def test_atomic_path_leaves_nothing_on_failure(tmp_path):
    with pytest.raises(RuntimeError), atomic_path(tmp_path / "t.csv") as tmp:
        tmp.write_text("half")
        raise RuntimeError("boom")
    assert list(tmp_path.iterdir()) == []


def test_atomic_path_removes_what_a_killed_write_left(tmp_path):
    """Issue 35 item 7: a `kill -9` inside atomic_path leaves `.<name>.<8 chars><suffix>`;
    the next write of the same file removes it (and only it)."""
    left = tmp_path / ".t.csv.k3x_9qz0.csv"  # mkstemp's name for t.csv
    left.write_text("")
    keep = [tmp_path / ".t.csv.short.csv", tmp_path / ".u.csv.k3x_9qz0.csv", tmp_path / "x.csv"]
    for f in keep:
        f.write_text("keep")
    with atomic_path(tmp_path / "t.csv") as tmp:
        tmp.write_text("a\n")
    assert sorted(tmp_path.iterdir()) == sorted([tmp_path / "t.csv", *keep])
