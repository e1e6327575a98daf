"""Parse-time checks of the names in an assessors collection's config (light: no pandas), so a
typo stops the run before any job."""

from __future__ import annotations

from evalsci.configcheck import where
from evalsci.data.released import BUNDLES, bundle_files

from .settings import ROLES, Collection


def check_released_names(collection: Collection) -> None:
    """At parse time, for an `evals_logs` collection read from a released bundle: every
    configured LLM, dataset and OOD dataset is one the bundle holds (`<subdir>/<task>/<llm>
    .jsonl` in the pinned manifest, so nothing needs fetching first). Else a ValueError
    naming the key, where it was set and the names there are, not a failure in the first job.
    Other loaders keep their names inside the files: their first job checks them."""
    bundle = collection.bundle
    if collection.loader != "evals_logs" or collection.path or bundle not in BUNDLES:
        return
    prefix = f"{collection.subdir}/" if collection.subdir else ""
    parts = [
        f.removeprefix(prefix).split("/")
        for f in bundle_files(bundle)
        if f.startswith(prefix) and f.endswith(".jsonl")
    ]
    tasks = sorted({p[0] for p in parts if len(p) == 2})
    llms = sorted({p[1].removesuffix(".jsonl") for p in parts if len(p) == 2})
    key = f"assessors.collections.{collection.name}"
    checks = [(f"{key}.llms.{r}", collection.llms.of(r), llms, "LLM") for r in ROLES]
    checks.append((f"{key}.datasets", collection.datasets or (), tasks, "dataset"))
    for split, held in collection.ood:
        checks.append((f"{key}.ood_splits.{split}", held, tasks, "dataset"))
    for k, given, known, what in checks:
        unknown = [x for x in given if x not in known]
        if unknown:
            raise ValueError(
                f"config {k} ({where(k)}): unknown {what}(s) {unknown} (bundle {bundle}); "
                f"the {what}s there: {known}"
            )
