"""assessors: the leave-one-model-out table, paired tests and figure."""

from evalsci.studies.assessors.steps import make_lomo
from evalsci.workflow import logged

smk = snakemake  # noqa: F821
with logged(smk):
    make_lomo(
        smk.input.runs,
        smk.params.cfg,
        {"table": smk.output.table, "tests": smk.output.tests, "figure": smk.output.figure},
    )
