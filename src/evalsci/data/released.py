"""Fetch the authors' released files at a pinned commit and verify their content.

Every file the workflow reads from the authors' repositories is listed in
`released_manifest.json` with the sha256 of its *content* (decompressed): GitHub
archives are not byte-stable, and the offline mirror stores some large CSVs gzipped
where upstream has plain text, so hashing the content is the only pin that holds for
both sources.

A *bundle* is a named group of files from one source (see `BUNDLES`); the workflow
materialises one bundle per job into `resources/released/<bundle>/`, keeping each
file's upstream relative path (and a `.gz` suffix where `store_gzip` says so).

Sources, in order:
1. `$EVALSCI_MIRROR/<source>/<path>` or `<path>.gz` when EVALSCI_MIRROR is set
   (a directory laid out like `shared/released`);
2. otherwise the upstream URL at the pinned commit.

A bundle is written into a temporary sibling directory and renamed into place only
after every file verified, so a failure never leaves a half-written bundle behind.
"""

from __future__ import annotations

import fnmatch
import gzip
import hashlib
import json
import os
import re
import shutil
import tarfile
import tempfile
import urllib.parse
import urllib.request
import zlib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

MIRROR_ENV = "EVALSCI_MIRROR"


class ReleasedDataError(RuntimeError):
    """A released file is missing, unreadable or does not match its pinned sha256."""


@dataclass(frozen=True)
class Bundle:
    source: str  # folder name in the mirror, e.g. "gyauney-stronger-random-baselines"
    include: tuple[str, ...]  # fnmatch patterns over the source's relative paths
    store_gzip: bool = False  # keep large CSVs gzipped in resources/ (pandas reads .gz)


# Bundles the workflow knows. Keep them coarse: one job each.
BUNDLES: dict[str, Bundle] = {
    "srb_aggregated": Bundle(
        "gyauney-stronger-random-baselines",
        ("results/aggregated-results.json", "few-shot-eval/subsampled-idxs/*"),
    ),
    "srb_heldout": Bundle(
        "gyauney-stronger-random-baselines", ("held-out-split-results/*",), store_gzip=True
    ),
    "srb_per_example": Bundle(
        "gyauney-stronger-random-baselines", ("results/*-shot.csv",), store_gzip=True
    ),
    # task_metadata_subset.json in the mirror is a derived subset, not an upstream file.
    "bigbench": Bundle("bigbench", ("benchmark_tasks/*",)),
    "multi_prompt": Bundle("slab-nlp-multi-prompt-llm-evaluation", ("data/*",)),
    "pretrain_on_test": Bundle("kddubey-pretrain-on-test", ("analysis/*",)),
    "glue": Bundle("glue", ("*",)),
    "cfi_ground_truth": Bundle(
        "kinds-of-intelligence-cfi-benchmark-ground-truth-predictability", ("raw_results/*",)
    ),
    "predictaboard": Bundle("kinds-of-intelligence-cfi-PredictaBoard", ("*",), store_gzip=True),
    "kinds_of_reasoning": Bundle("kinds-of-intelligence-cfi-KindsOfReasoning", ("*",)),
    "helm_lite_runs": Bundle("lorypack-referenceinstancespredictability", ("*",)),
}


@cache
def manifest() -> dict:
    """The pinned manifest: {source: {"upstream": {...}, "files": {path: sha256}}}."""
    text = resources.files("evalsci.data").joinpath("released_manifest.json").read_text()
    return json.loads(text)


#: where `released_llms` reads from (package data beside the manifest)
RELEASED_LLMS = "released_llms.csv"


@cache
def _released_llms() -> dict[str, tuple[str, ...]]:
    import csv

    text = resources.files("evalsci.data").joinpath(RELEASED_LLMS).read_text()
    rows = csv.DictReader(line for line in text.splitlines() if not line.startswith("#"))
    out: dict[str, list[str]] = {}
    for r in rows:
        out.setdefault(r["bundle"], []).append(r["llm"])
    return {b: tuple(v) for b, v in out.items()}


def released_llms(bundle: str) -> tuple[str, ...] | None:
    """The LLMs a released bundle holds whose names are inside its files (leaderboard
    results, a HELM run list), as listed in evalsci/data/released_llms.csv; None for a bundle
    not listed there."""
    return _released_llms().get(bundle)


def bundle_files(bundle: str) -> dict[str, str]:
    """{relative path: sha256} of the files in a bundle."""
    if bundle not in BUNDLES:
        raise ReleasedDataError(f"unknown bundle {bundle!r}; known: {sorted(BUNDLES)}")
    b = BUNDLES[bundle]
    files = manifest()[b.source]["files"]
    picked = {p: h for p, h in files.items() if any(fnmatch.fnmatch(p, g) for g in b.include)}
    if not picked:
        raise ReleasedDataError(f"bundle {bundle!r} matches no file of {b.source!r}")
    return picked


def local_name(bundle: str, path: str) -> str:
    """Where `path` of `bundle` lands inside the bundle directory."""
    return path + ".gz" if BUNDLES[bundle].store_gzip and not path.endswith(".gz") else path


def sha256_of_content(path: Path, name: str | os.PathLike | None = None) -> str:
    """sha256 of a file's content, decompressing `.gz` files on the fly. A corrupt or
    truncated .gz raises ReleasedDataError naming the file (gzip's own errors do not), or
    `name` when `path` is a temporary copy of it."""
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    h = hashlib.sha256()
    try:
        with opener(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    except (OSError, EOFError, zlib.error) as e:
        raise ReleasedDataError(f"cannot read {name or path}: {type(e).__name__}: {e}") from e
    return h.hexdigest()


def mirror_origin(mirror: str | os.PathLike) -> str:
    """What set `mirror`, for messages: `EVALSCI_MIRROR=<dir>` when the variable holds it,
    else `config mirror=<dir>` (the workflow's config key, e.g. `--config mirror=<dir>`)."""
    env = os.environ.get(MIRROR_ENV)
    return f"{MIRROR_ENV}={mirror}" if env and env == str(mirror) else f"config mirror={mirror}"


def check_mirror(mirror: str | os.PathLike, origin: str | None = None) -> None:
    """Raise ReleasedDataError unless `mirror` is a directory. The workflow calls this while it
    is parsed (dry runs too), so a mistyped or unmounted mirror is named before any job."""
    if not Path(mirror).is_dir():
        what = "does not exist" if not Path(mirror).exists() else "is not a directory"
        raise ReleasedDataError(
            f"the mirror {mirror} {what} (set by {origin or mirror_origin(mirror)}): fix the "
            "path, or unset it to download the released data from upstream"
        )


def _mirror_copy(mirror: Path, source: str, path: str, dest: Path, origin: str) -> Path:
    """Copy `path` of `source` from the mirror (plain or .gz) to dest; returns the mirror file."""
    plain, gz = mirror / source / path, mirror / source / (path + ".gz")
    src = plain if plain.exists() else gz if gz.exists() else None
    if src is None:
        raise ReleasedDataError(
            f"released file missing from the mirror: {plain} (nor {gz.name}); mirror set by {origin}"
        )
    _store(src, dest)
    return src


#: the most bytes one released file may hold, decompressed (the largest pinned file is 23 MB):
#: a mirror file that is a symlink to /dev/zero, or a gzip bomb, stops here
MAX_FILE_BYTES = 1 << 30


def _copy_bounded(fi, fo, src: Path) -> None:
    """copyfileobj that stops past MAX_FILE_BYTES, naming the source."""
    from evalsci.pipeline.jobs import copy_at_most

    if not copy_at_most(fi, fo, MAX_FILE_BYTES):
        raise ReleasedDataError(
            f"{src}: more than {MAX_FILE_BYTES:,} bytes (decompressed); no released file "
            "is that large: the mirror holds something else here"
        )


def _store(src: Path, dest: Path) -> None:
    """Copy src to dest, converting between plain and gzip as the names say. src must be a
    regular file (a symlink is followed to one), and at most MAX_FILE_BYTES decompressed."""
    import stat

    if not stat.S_ISREG(src.stat().st_mode):
        raise ReleasedDataError(f"{src}: not a regular file (a device, FIFO or directory)")
    dest.parent.mkdir(parents=True, exist_ok=True)
    src_gz, dest_gz = src.suffix == ".gz", dest.suffix == ".gz"
    if src_gz == dest_gz:
        with open(src, "rb") as fi, open(dest, "wb") as fo:
            _copy_bounded(fi, fo, src)
    elif src_gz:
        try:
            with gzip.open(src, "rb") as fi, open(dest, "wb") as fo:
                _copy_bounded(fi, fo, src)
        except (OSError, EOFError, zlib.error) as e:
            raise ReleasedDataError(f"cannot read {src}: {type(e).__name__}: {e}") from e
    else:
        # mtime=0 keeps the gzip bytes identical across reruns.
        with (
            open(src, "rb") as fi,
            open(dest, "wb") as raw,
            gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as fo,
        ):
            _copy_bounded(fi, fo, src)


def _download(url: str, dest: Path) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    try:
        with urllib.request.urlopen(url, timeout=60) as r, open(dest, "wb") as fo:
            shutil.copyfileobj(r, fo)
    except OSError as e:
        raise ReleasedDataError(
            f"could not download {url}: {e}. Offline? Set {MIRROR_ENV} (or the workflow's "
            "config `mirror`) to a directory laid out like shared/released."
        ) from e


def _upstream_fetch(source: str, paths: list[str], workdir: Path) -> dict[str, Path]:
    """Download `paths` of `source` from upstream into workdir; returns path -> file."""
    up = manifest()[source]["upstream"]
    out: dict[str, Path] = {}
    if up["kind"] == "github":
        for p in paths:
            repo, commit, prefix = up["repo"], up["commit"], up.get("prefix", "")
            for override in up.get("commit_overrides", []):
                if fnmatch.fnmatch(p, override["pattern"]):
                    commit = override["commit"]
            quoted = urllib.parse.quote(prefix + p)
            dest = workdir / "dl" / p
            _download(f"https://raw.githubusercontent.com/{repo}/{commit}/{quoted}", dest)
            out[p] = dest
    elif up["kind"] == "pypi_sdist":
        tarball = workdir / "sdist.tar.gz"
        _download(up["url"], tarball)
        with tarfile.open(tarball) as tf:
            members = {m.name.split("/", 1)[1]: m for m in tf.getmembers() if "/" in m.name}
            for p in paths:
                member = members.get(up.get("prefix", "") + p)
                if member is None:
                    raise ReleasedDataError(f"{p} is not in the sdist {up['url']}")
                dest = workdir / "dl" / p
                dest.parent.mkdir(parents=True, exist_ok=True)
                with tf.extractfile(member) as fi, open(dest, "wb") as fo:
                    shutil.copyfileobj(fi, fo)
                out[p] = dest
    else:
        raise ReleasedDataError(f"unknown upstream kind {up['kind']!r} for {source}")
    return out


def fetch(bundle: str, directory: str | os.PathLike, mirror: str | None) -> Path:
    """Rule `released_bundle`: a verified copy of `bundle` in `directory`, from `mirror` (a
    directory laid out like released/) when one is set, else upstream."""
    # messages say what set the mirror: EVALSCI_MIRROR or config `mirror` (--config mirror=...)
    out = materialise(
        bundle, directory, mirror=mirror, origin=mirror_origin(mirror) if mirror else None
    )
    print(f"verified {out}")
    return out


def materialise(
    bundle: str,
    outdir: str | os.PathLike,
    mirror: str | None = None,
    origin: str | None = None,
) -> Path:
    """Write a verified copy of `bundle` to `outdir`, atomically.

    `mirror` defaults to $EVALSCI_MIRROR; without one the files are downloaded. Messages name
    the mirror file (not the temporary copy) and what set the mirror: `origin` (the workflow
    passes `mirror_origin(mirror)`), else `EVALSCI_MIRROR=<dir>` or `mirror=<dir>`.
    """
    outdir = Path(outdir)
    files = bundle_files(bundle)
    source = BUNDLES[bundle].source
    if mirror is None:
        mirror = os.environ.get(MIRROR_ENV) or None
        origin = origin or f"{MIRROR_ENV}={mirror}"
    origin = origin or f"mirror={mirror}"
    if mirror is not None:
        check_mirror(mirror, origin)
    outdir.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_staging(outdir)
    tmp = Path(tempfile.mkdtemp(prefix=f".{outdir.name}.", dir=outdir.parent))
    try:
        staged = tmp / "bundle"
        if mirror is None:
            fetched = _upstream_fetch(source, sorted(files), tmp)
        for path, want in sorted(files.items()):
            dest = staged / local_name(bundle, path)
            if mirror is not None:
                src = _mirror_copy(Path(mirror), source, path, dest, origin)
            else:
                _store(fetched[path], dest)
                src = f"{source}/{path} downloaded from upstream"
            got = sha256_of_content(dest, name=src)  # a bad .gz: the mirror file, not the copy
            if got != want:
                raise ReleasedDataError(
                    f"checksum mismatch for {source}/{path} (from {src}): "
                    f"sha256 {got}, pinned {want}. The file is corrupt or not the pinned version."
                )
        (staged / "SHA256SUMS").write_text("".join(f"{h}  {p}\n" for p, h in sorted(files.items())))
        if outdir.exists():
            shutil.rmtree(outdir)
        staged.rename(outdir)
        _write_cache(outdir, {p: h for p, h in _read_sums(outdir).items()})
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return outdir


# --- after the fetch: staging debris, and re-verification when a rule reads a bundle -----------

SUMS = "SHA256SUMS"
CACHE_DIR = ".sha256-cache"  # beside the bundles: writing inside one would touch its mtime


def remove_stale_staging(outdir: str | os.PathLike) -> list[Path]:
    """Delete `.<bundle>.<random>/` staging directories a killed fetch left beside `outdir`.

    Only the job that fetches `outdir` calls this, and Snakemake runs one such job at a
    time per working directory, so any staging directory of this bundle is debris."""
    outdir = Path(outdir)
    pattern = re.compile(rf"\.{re.escape(outdir.name)}\.[A-Za-z0-9_]{{8}}")
    removed = []
    if outdir.parent.is_dir():
        for d in outdir.parent.iterdir():
            if d.is_dir() and not d.is_symlink() and pattern.fullmatch(d.name):
                shutil.rmtree(d, ignore_errors=True)
                removed.append(d)
    return removed


def bundle_root(path: str | os.PathLike) -> Path | None:
    """The bundle directory (the one holding SHA256SUMS) that `path` lies in, or None."""
    path = Path(path).absolute()
    for d in [path, *path.parents][:8]:
        if d.is_dir() and (d / SUMS).is_file():
            return d
    return None


def _read_sums(root: Path) -> dict[str, str]:
    sums = {}
    for i, line in enumerate((root / SUMS).read_text().splitlines(), 1):
        want, sep, rel = line.partition("  ")
        if not sep or not re.fullmatch(r"[0-9a-f]{64}", want):
            raise ReleasedDataError(f"{root / SUMS}: line {i} is not '<sha256>  <path>'")
        sums[rel] = want
    return sums


def _local(root: Path, rel: str) -> Path:
    """The file of upstream path `rel` in a bundle: as is, or gzipped (`store_gzip`)."""
    plain = root / rel
    return plain if plain.exists() or rel.endswith(".gz") else root / (rel + ".gz")


def _cache_file(root: Path) -> Path:
    return root.parent / CACHE_DIR / f"{root.name}.json"


def _stat_key(f: Path) -> list[int]:
    """What the cache compares: size and mtime, which a user can restore (`touch -d`, `cp -p`),
    and ctime, inode and device, which they cannot: any write or replacement moves ctime, and
    a file put back in place is a new inode (issue 47: a byte flipped with size and mtime
    restored passed the cached check and changed a table)."""
    st = f.stat()
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev]


def _write_cache(root: Path, hashes: dict[str, str]) -> None:
    """{path: [size, mtime_ns, ctime_ns, inode, device, sha256]} of files whose content was
    hashed just now."""
    entries = {}
    for rel, h in hashes.items():
        f = _local(root, rel)
        entries[rel] = [*_stat_key(f), h]
    cache = _cache_file(root)
    cache.parent.mkdir(parents=True, exist_ok=True)
    tmp = cache.with_name(f".{cache.name}.{os.getpid()}")
    tmp.write_text(json.dumps(entries, sort_keys=True))
    tmp.replace(cache)


_VERIFIED: dict[Path, tuple] = {}  # bundle -> file stats, verified in this process


def verify_bundle(root: str | os.PathLike, rehash: bool = False) -> None:
    """Re-check every file of a bundle against its SHA256SUMS (and the SHA256SUMS against
    the pinned manifest, for a known bundle). Raises ReleasedDataError naming the file that
    changed, vanished or cannot be read.

    `rehash=False` is the workflow's shortcut between its own jobs: a file is rehashed only
    when its stat key (`_stat_key`: size, mtime, ctime, inode, device) differs from the
    cache, so an unchanged bundle costs one stat per file. A write through the file system
    moves ctime, so only a change below it (bit rot on disk) passes; `rehash=True`
    (`evalsci verify`) hashes every file."""
    root = Path(root).absolute()
    if root in _VERIFIED and not rehash:  # once per process (a job): its reads follow soon
        return
    sums = _read_sums(root)
    if root.name in BUNDLES:
        pinned = bundle_files(root.name)
        if sums != pinned:
            changed = sorted(set(sums.items()) ^ set(pinned.items()))[:3]
            raise ReleasedDataError(
                f"{root / SUMS} differs from the pinned manifest (e.g. "
                f"{changed}); re-fetch: delete {root} and rerun"
            )
    if root.name in BUNDLES:  # the name is known: no stat to find it (a run checks ~1250)
        files = {rel: root / local_name(root.name, rel) for rel in sums}
    else:
        files = {rel: _local(root, rel) for rel in sums}
    try:
        stats = tuple((rel, *_stat_key(f)) for rel, f in sorted(files.items()))
    except FileNotFoundError as e:
        raise ReleasedDataError(
            f"released file missing: {e.filename} (listed in "
            f"{root / SUMS}); re-fetch: delete {root} and rerun"
        ) from None
    try:
        cache = json.loads(_cache_file(root).read_text())
    except (OSError, ValueError):
        cache = {}
    fresh = {}
    for rel, *key in stats:
        entry = cache.get(rel)
        if not rehash and entry == [*key, sums[rel]]:
            continue
        got = sha256_of_content(files[rel])
        if got != sums[rel]:
            raise ReleasedDataError(
                f"{files[rel]} changed after it was verified: sha256 {got}, {root / SUMS} "
                f"says {sums[rel]}; re-fetch: delete {root} and rerun"
            )
        fresh[rel] = got
    if fresh:
        _write_cache(root, {**{r: e[-1] for r, e in cache.items() if r in sums}, **fresh})
    _VERIFIED[root] = stats


def fetched_bundles(base: str | os.PathLike) -> list[Path]:
    """The bundle directories (holding SHA256SUMS) directly under `base`, or `base` itself when
    it is one; staging directories (`.<bundle>.<random>/`) are not bundles yet."""
    base = Path(base)
    if (base / SUMS).is_file():
        return [base]
    if not base.is_dir():
        return []
    return sorted(d for d in base.iterdir() if not d.name.startswith(".") and (d / SUMS).is_file())


def verify_fetched_bundles(base: str | os.PathLike = "resources/released") -> list[Path]:
    """verify_bundle every fetched bundle under `base`; returns them. The workflow calls this
    when a run starts, so a file edited after its fetch stops the run, naming the file, before
    Snakemake schedules a job (or deletes the outputs of one it would rerun). Costs one stat per
    file when nothing changed (the stat-key cache)."""
    bundles = fetched_bundles(base)
    for b in bundles:
        verify_bundle(b)
    return bundles


def verify_file(path: str | os.PathLike) -> None:
    """verify_bundle of the bundle `path` lies in (nothing when it is in none)."""
    root = bundle_root(path)
    if root is not None:
        verify_bundle(root)


def build_manifest(mirror: str | os.PathLike, upstream: dict) -> dict:
    """Hash every file under a mirror (maintainers: run when a pin changes)."""
    mirror = Path(mirror)
    out: dict = {}
    for source, up in sorted(upstream.items()):
        files = {}
        for f in sorted((mirror / source).rglob("*")):
            if f.is_file() and f.name != "COMMIT":
                rel = f.relative_to(mirror / source).as_posix()
                rel = rel[:-3] if rel.endswith(".gz") else rel
                files[rel] = sha256_of_content(f)
        out[source] = {"upstream": up, "files": files}
    return out
