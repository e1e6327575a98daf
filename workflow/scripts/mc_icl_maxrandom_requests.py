"""Adapter: the max random baseline requests of Figures 1-4."""

from evalsci.workflow import logged

with logged(snakemake):  # noqa: F821
    smk = snakemake  # noqa: F821
    from evalsci.studies.mc_icl import steps

    steps.maxrandom_requests(smk.params.params, smk.params.seed, smk.output.requests)
