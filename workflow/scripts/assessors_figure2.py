"""assessors: Figure 2 (test AUC per method, split and test LLM) with the max random line."""

from evalsci.studies.assessors.steps import make_figure2
from evalsci.workflow import logged

smk = snakemake  # noqa: F821
with logged(smk):
    make_figure2(
        smk.input.figure2,
        smk.input.baselines,
        smk.wildcards.collection,
        smk.params.cfg,
        smk.output.figure,
    )
