"""assessors: max random AUC requests for every collection (answered by rule maxrandom)."""

from evalsci.studies.assessors.steps import build_requests_file
from evalsci.workflow import logged

smk = snakemake  # noqa: F821
with logged(smk):
    paths = {
        c: {"success": s, "splits": p}
        for c, s, p in zip(smk.params.collections, smk.input.success, smk.input.splits, strict=True)
    }
    build_requests_file(paths, smk.params.settings, smk.output.requests)
