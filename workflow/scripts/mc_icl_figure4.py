"""Adapter: Figure 4 (high/low/random sets) with the max random baseline."""

from evalsci.workflow import logged

with logged(snakemake):  # noqa: F821
    smk = snakemake  # noqa: F821
    from evalsci.studies.mc_icl import steps

    steps.make_figure4(smk.input.accuracy, smk.input.baselines, smk.output)
