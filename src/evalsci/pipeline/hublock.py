"""The commit of every Hugging Face hub model and dataset a run loads, locked under results/.

A hub id without a revision names a branch (`main`), which moves: a recompute next year would
load other weights or data. So every loader asks `revision(repo, kind, given)` first:

- a `revision` given in the config wins (a commit, tag or branch);
- else the commit recorded in the lock (`results/hub.lock.yaml`, or `$EVALSCI_HUB_LOCK`) at
  the first load is used, on every later run;
- else (the first load) the hub's default branch is loaded, and `record(...)` then writes the
  commit it resolved to into the lock. The hub cache knows it: `hf_hub_download` and
  `snapshot_download` write the commit a branch resolved to into
  `<HF_HUB_CACHE>/<kind>s--<org>--<name>/refs/<branch>`.

Each load logs `hub <kind> <repo> at commit <sha> (<where from>)`, so the run's job log names
the commits, and the report's front page lists the lock (`summary`, `workflow/report/workflow.rst`).
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path

log = logging.getLogger(__name__)

DEFAULT_LOCK = Path("results") / "hub.lock.yaml"
KINDS = ("model", "dataset")
_SHA = re.compile(r"[0-9a-f]{40}")


class HubLockError(ValueError):
    """The hub lock is unreadable, or a hub commit could not be resolved."""


def lock_path() -> Path:
    return Path(os.environ.get("EVALSCI_HUB_LOCK") or DEFAULT_LOCK)


def is_hub_id(name: str) -> bool:
    """A hub repository id (`gpt2`, `org/name`), not a local directory."""
    name = str(name)
    return not Path(name).exists() and re.fullmatch(r"[\w.-]+(/[\w.-]+)?", name) is not None


def read_lock(path: str | os.PathLike | None = None) -> dict[str, dict[str, str]]:
    """`{kind: {repo: commit}}` from the lock (empty if there is none yet)."""
    import yaml

    path = Path(path or lock_path())
    if not path.exists():
        return {k: {} for k in KINDS}
    try:
        data = yaml.safe_load(path.read_text()) or {}
        out = {k: {str(r): str(c) for r, c in (data.get(k) or {}).items()} for k in KINDS}
    except (yaml.YAMLError, AttributeError, TypeError) as e:
        raise HubLockError(f"{path}: not a hub lock ({e}); delete it to record anew") from e
    for kind, repos in out.items():
        for repo, sha in repos.items():
            if not _SHA.fullmatch(sha):
                raise HubLockError(f"{path}: {kind} {repo}: {sha!r} is not a 40-hex commit")
    return out


def revision(repo: str, kind: str, given: str | None = None) -> str | None:
    """The revision to load `repo` at: the config's, else the locked commit, else None."""
    if kind not in KINDS:
        raise ValueError(f"hub kind must be one of {KINDS}, not {kind!r}")
    if given:
        return str(given)
    return read_lock().get(kind, {}).get(repo)


def cached_commit(repo: str, kind: str, rev: str | None = None) -> str | None:
    """The commit `rev` (default `main`) of `repo` resolved to, from the local hub cache."""
    if rev and _SHA.fullmatch(rev):
        return rev
    from huggingface_hub import constants
    from huggingface_hub.file_download import repo_folder_name

    ref = Path(constants.HF_HUB_CACHE) / repo_folder_name(repo_id=repo, repo_type=kind)
    ref = ref / "refs" / (rev or "main")
    try:
        sha = ref.read_text().strip()
    except OSError:
        return None
    return sha if _SHA.fullmatch(sha) else None


def record(repo: str, kind: str, rev: str | None = None) -> str | None:
    """After a load through the hub cache: log the commit it used, keep it in the lock."""
    sha = cached_commit(repo, kind, rev)
    if sha is None:
        log.warning(
            "hub %s %s: no commit found in the hub cache for revision %s; not locked",
            *(kind, repo, rev or "main"),
        )
        return None
    return _keep(repo, kind, sha, given=bool(rev))


def snapshot(repo: str, kind: str = "model", given: str | None = None, code: bool = False) -> str:
    """The local directory of `repo` at its locked (or given) commit, downloaded if needed.

    Weights, configs and tokenizer files only (`*.py` too when `code`: the model's own
    modelling code, for `trust_remote_code`); the directory name is the commit."""
    from huggingface_hub import snapshot_download

    rev = revision(repo, kind, given)
    patterns = ["*.json", "*.safetensors", "*.txt", "*.model", "*.tiktoken", "*.jinja"]
    path = snapshot_download(
        repo, repo_type=kind, revision=rev, allow_patterns=patterns + (["*.py"] if code else [])
    )
    _keep(repo, kind, Path(path).name, given=bool(given))
    return path


def _keep(repo: str, kind: str, sha: str, given: bool) -> str:
    import fcntl

    import yaml

    from evalsci.pipeline.jobs import atomic_path

    path = lock_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(f".{path.name}.flock"), "w") as guard:
        fcntl.flock(guard, fcntl.LOCK_EX)  # parallel jobs add their entries one at a time
        lock = read_lock(path)
        locked = lock[kind].get(repo)
        source = "locked" if locked == sha else ("given" if given else "first load")
        log.info("hub %s %s at commit %s (%s; lock %s)", kind, repo, sha, source, path)
        if locked != sha:
            lock[kind][repo] = sha
            with atomic_path(path) as tmp:
                tmp.write_text(_HEADER + yaml.safe_dump(lock, sort_keys=True))
    return sha


_HEADER = (
    "# The commit of every Hugging Face hub model and dataset this results/ tree loaded\n"
    "# (evalsci.pipeline.hublock): later runs load these commits. Delete an entry to move to the\n"
    "# hub's current commit; give a `revision` in the config to choose one.\n"
)


def summary(path: str | os.PathLike | None = None) -> str:
    """One line for the report's front page: every locked commit, or that there is none."""
    path = Path(path or lock_path())
    lock = read_lock(path)
    items = [
        f"{kind} {repo} at {sha}" for kind in KINDS for repo, sha in sorted(lock[kind].items())
    ]
    if not items:
        return f"none (no hub model or dataset loaded; {path} does not list any)"
    return f"{'; '.join(items)} ({path})"
