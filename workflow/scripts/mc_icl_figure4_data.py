"""Adapter: accuracy of the Section 5.2 set runs (Figure 4 data)."""

from evalsci.workflow import logged

with logged(snakemake):  # noqa: F821
    smk = snakemake  # noqa: F821
    from evalsci.studies.mc_icl import steps

    steps.figure4_data(smk.input.scores, smk.output.accuracy)
