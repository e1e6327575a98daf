"""Parse-time checks of the names in an assessors collection's config, so a typo stops the run
before any job (light: pandas only for a leaderboard or helm collection, through its loader's
dataset names)."""

from __future__ import annotations

from evalsci.configcheck import where
from evalsci.data.released import BUNDLES, RELEASED_LLMS, bundle_files, released_llms

from .settings import ROLES, Collection

#: the bundle of the HELM-Lite run list, which names the LLMs of every `helm` collection
HELM_RUN_LIST = "helm_lite_runs"


def _unknown(key: str, given, known, what: str, source: str) -> None:
    unknown = [x for x in given if x not in known]
    if unknown:
        raise ValueError(
            f"config {key} ({where(key)}): unknown {what}(s) {unknown} ({source}); "
            f"the {what}s there: {sorted(known)}"
        )


def _datasets(loader: str) -> list[str]:
    """The datasets a leaderboard or helm collection's instances belong to (imported only
    for such a collection: the loaders need pandas)."""
    if loader == "helm":
        from evalsci.data.helm import kept_datasets

        return kept_datasets()
    from evalsci.data.leaderboard import BENCHMARKS

    return sorted(name for _, name in BENCHMARKS.values())


def _check_held_out(key: str, collection: Collection, datasets: list[str], source: str) -> None:
    """Every held-out entry of every OOD split is a dataset or a prefix of some (`math` for
    `math/...`, evalsci.studies.assessors.splits): one that matches none was dropped without
    a word when another entry of its split matched."""
    for split, held in collection.ood:
        bad = [h for h in held if not any(d == h or d.startswith(h + "/") for d in datasets)]
        if bad:
            k = f"{key}.ood_splits.{split}"
            raise ValueError(
                f"config {k} ({where(k)}): {bad} match(es) no dataset ({source}); the "
                f"datasets there (an entry holds out a dataset or the ones under it): {datasets}"
            )


def check_released_names(collection: Collection) -> None:
    """At parse time, every name of a collection that selects among a released bundle's is
    one the bundle holds; else a ValueError naming the key, where it was set and the names
    there are, not a failure in the collection's first job:
    - an `evals_logs` collection read from a bundle: its LLMs, datasets and OOD datasets
      (`<subdir>/<task>/<llm>.jsonl` in the pinned manifest, so nothing needs fetching);
    - a `leaderboard` collection read from a bundle (predictaboard), and every `helm`
      collection (its LLMs are the run list's, bundle helm_lite_runs): its LLMs, against the
      names inside those files, listed in evalsci/data/released_llms.csv; and its OOD
      splits' held-out datasets, against the datasets its loader gives.
    A collection read from a local `path` (evals_logs, leaderboard) holds names only its
    files know: its first job checks them."""
    bundle, loader = collection.bundle, collection.loader
    key = f"assessors.collections.{collection.name}"
    if loader == "helm" or (loader == "leaderboard" and not collection.path):
        source = HELM_RUN_LIST if loader == "helm" else bundle
        known = released_llms(source)
        if known is None:
            return  # a bundle of the user's own: its first job checks
        for r in ROLES:
            _unknown(
                f"{key}.llms.{r}",
                collection.llms.of(r),
                known,
                "LLM",
                f"bundle {source}, evalsci/data/{RELEASED_LLMS}",
            )
        _check_held_out(key, collection, _datasets(loader), f"the {loader} loader's datasets")
        return
    if loader != "evals_logs" or collection.path or bundle not in BUNDLES:
        return
    prefix = f"{collection.subdir}/" if collection.subdir else ""
    parts = [
        f.removeprefix(prefix).split("/")
        for f in bundle_files(bundle)
        if f.startswith(prefix) and f.endswith(".jsonl")
    ]
    tasks = sorted({p[0] for p in parts if len(p) == 2})
    llms = sorted({p[1].removesuffix(".jsonl") for p in parts if len(p) == 2})
    checks = [(f"{key}.llms.{r}", collection.llms.of(r), llms, "LLM") for r in ROLES]
    checks.append((f"{key}.datasets", collection.datasets or (), tasks, "dataset"))
    for split, held in collection.ood:
        checks.append((f"{key}.ood_splits.{split}", held, tasks, "dataset"))
    for k, given, known, what in checks:
        _unknown(k, given, known, what, f"bundle {bundle}")
