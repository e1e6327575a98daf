"""Adapter: Figure {n} (1, 2, 3, 5-20) from the accuracy table and the max random baselines."""

from evalsci.workflow import logged

with logged(snakemake):  # noqa: F821
    smk = snakemake  # noqa: F821
    from evalsci.studies.mc_icl import steps

    steps.make_figure(
        int(smk.wildcards.n), smk.input.accuracy, smk.input.baselines, smk.params.params, smk.output
    )
