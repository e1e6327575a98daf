"""The fault suite, corrupted mirror: a released-data mirror damaged in each way below is
refused by the fetch, naming the mirror file, with nothing left in resources/ (no bundle, no
staging directory); the repaired mirror then fetches a bundle byte-identical to a clean one."""

from __future__ import annotations

import hashlib
import os
import shutil

import pytest

from evalsci.data import released

from conftest import snakemake

BUNDLE = "glue"  # 10 files, a few MB: a fetch in seconds


def _flip(f):
    data = bytearray(f.read_bytes())
    data[len(data) // 2] ^= 0x01  # one bit, same size
    f.write_bytes(bytes(data))


def _truncate(f):
    f.write_bytes(f.read_bytes()[: f.stat().st_size // 2])


def _empty(f):
    f.write_bytes(b"")


def _delete(f):
    f.unlink()


def _loop(f):
    f.unlink()
    f.symlink_to(f.name)


def _directory(f):
    f.unlink()
    f.mkdir()


def _dev_zero(f):
    f.unlink()
    f.symlink_to("/dev/zero")  # was copied without bound (issue 47)


#: each way a mirror file was damaged, and what the error says
CORRUPTIONS = {
    "bit flip": (_flip, "checksum mismatch"),
    "truncated": (_truncate, "checksum mismatch"),
    "emptied": (_empty, "checksum mismatch"),
    "deleted": (_delete, "missing from the mirror"),
    "symlink loop": (_loop, ""),
    "a directory": (_directory, ""),
    "a symlink to /dev/zero": (_dev_zero, "not a regular file"),
}


def _mirror_copy(src, dst):
    """The bundle's files of the real mirror, copied (not linked: they get damaged)."""
    source = released.BUNDLES[BUNDLE].source
    for path in released.bundle_files(BUNDLE):
        for name in (path, path + ".gz"):
            f = src / source / name
            if f.exists():
                (dst / source / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(f, dst / source / name)
    return dst / source


def _tree(root):
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != ".snakemake_timestamp"  # Snakemake's, in directory outputs
    }


@pytest.mark.workflow
def test_a_corrupted_mirror_is_refused_and_leaves_nothing(tmp_path, mirror):
    bad = tmp_path / "mirror"
    source = _mirror_copy(mirror, bad)
    victim = sorted(p for p in source.rglob("*") if p.is_file())[0]
    pristine = victim.read_bytes()
    work = tmp_path / "work"
    target = f"resources/released/{BUNDLE}"
    for what, (damage, needle) in CORRUPTIONS.items():
        damage(victim)
        proc = snakemake(work, target, mirror=bad, check=False, cores=1)
        out = proc.stdout + proc.stderr
        assert proc.returncode != 0, what
        assert str(victim) in out and needle in out, f"{what}: {out[-2000:]}"
        left = list((work / "resources" / "released").glob(f"*{BUNDLE}*"))
        assert left == [], f"{what}: left {left}"
        if victim.is_dir():
            victim.rmdir()
        else:
            victim.unlink(missing_ok=True)
        victim.write_bytes(pristine)  # repaired: the next damage starts from the real file
    proc = snakemake(work, target, mirror=bad, cores=1)
    clean = tmp_path / "clean"
    released.materialise(BUNDLE, clean / BUNDLE, mirror=str(mirror))
    assert _tree(work / target) == _tree(clean / BUNDLE)
    hidden = {p for p in os.listdir(work / "resources" / "released") if p.startswith(".")}
    assert hidden == {released.CACHE_DIR}  # no staging directory, only the hash cache
