"""Released-data rules: pinned sha256 of content, mirror reads, clear failures, no partial output."""

from __future__ import annotations

import gzip
import shutil

import pytest

from evalsci.data import released


def _small_mirror(tmp_path, mirror, source, paths):
    for p in paths:
        src = mirror / source / p
        if not src.exists():
            src = src.with_name(src.name + ".gz")
        dst = tmp_path / "mirror" / source / src.relative_to(mirror / source)
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dst)
    return tmp_path / "mirror"


def test_every_bundle_is_pinned_and_nonempty():
    for name in released.BUNDLES:
        files = released.bundle_files(name)
        assert files, name
        assert all(len(h) == 64 for h in files.values())


def test_materialise_from_mirror_verifies_and_decompresses(tmp_path, mirror):
    out = released.materialise("multi_prompt", tmp_path / "multi_prompt", mirror=str(mirror))
    files = released.bundle_files("multi_prompt")
    for path, sha in files.items():
        assert released.sha256_of_content(out / path) == sha
    assert (out / "SHA256SUMS").read_text().count("\n") == len(files)


def test_gzip_store_hashes_content_not_archive(tmp_path, mirror):
    # srb_heldout is plain CSV in the mirror and stored gzipped locally: the pin must hold.
    out = released.materialise("srb_heldout", tmp_path / "h", mirror=str(mirror))
    for path, sha in released.bundle_files("srb_heldout").items():
        local = out / released.local_name("srb_heldout", path)
        assert local.suffix == ".gz"
        assert released.sha256_of_content(local) == sha
        with gzip.open(local) as fh:
            assert fh.read(7) == b"Dataset"


def test_corrupt_file_fails_naming_it_and_leaves_nothing(tmp_path, mirror):
    files = sorted(released.bundle_files("helm_lite_runs"))
    src = "lorypack-referenceinstancespredictability"
    m = _small_mirror(tmp_path, mirror, src, files)
    target = m / src / files[0]
    target.write_text(target.read_text() + "tampered\n")
    out = tmp_path / "resources" / "helm_lite_runs"
    with pytest.raises(released.ReleasedDataError, match=r"checksum mismatch .*helm_lite\.csv"):
        released.materialise("helm_lite_runs", out, mirror=str(m))
    assert not out.exists()
    assert list(out.parent.iterdir()) == []  # no temporary leftovers either


def test_missing_file_fails_naming_it(tmp_path, mirror):
    m = tmp_path / "empty-mirror"
    (m / "lorypack-referenceinstancespredictability").mkdir(parents=True)
    with pytest.raises(
        released.ReleasedDataError, match=r"missing from the mirror: .*helm_lite\.csv"
    ):
        released.materialise("helm_lite_runs", tmp_path / "out", mirror=str(m))
    assert not (tmp_path / "out").exists()


def test_unknown_bundle_is_a_clear_error():
    with pytest.raises(released.ReleasedDataError, match="unknown bundle 'nope'"):
        released.bundle_files("nope")
