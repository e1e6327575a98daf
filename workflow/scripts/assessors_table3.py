"""assessors: Table 3 (winning combination per split) of every collection."""

from evalsci.studies.assessors.steps import make_table3
from evalsci.workflow import logged

smk = snakemake  # noqa: F821
with logged(smk):
    make_table3(smk.input.tables, smk.params.collections, smk.input.baselines, smk.output.table)
