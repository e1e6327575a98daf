"""assessors: Figure 2 (test AUC per method, split and test LLM) against chance, with the
generic assessor's interval and winner stability."""

from evalsci.studies.assessors.steps import make_figure2
from evalsci.workflow import logged

smk = snakemake  # noqa: F821
with logged(smk):
    make_figure2(
        smk.input.figure2,
        smk.input.summary,
        smk.wildcards.collection,
        smk.output.figure,
    )
