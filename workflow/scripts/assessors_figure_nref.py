"""assessors: Figures 8-9, AUC against the number of reference instances."""

from evalsci.studies.assessors.steps import make_nref_figure
from evalsci.workflow import logged

smk = snakemake  # noqa: F821
with logged(smk):
    make_nref_figure(
        smk.input.runs,
        smk.input.baselines,
        smk.wildcards.collection,
        smk.wildcards.fig,
        smk.params.settings,
        smk.output.table,
        smk.output.figure,
    )
