"""assessors: in-distribution and out-of-distribution instance splits of a collection."""

from evalsci.studies.assessors.steps import build_splits
from evalsci.workflow import logged

smk = snakemake  # noqa: F821
with logged(smk):
    build_splits(
        smk.input.instances,
        smk.params.settings,
        smk.params.collection,
        smk.params.seed,
        smk.output.splits,
    )
