"""Adapter: Section 5.2 values, Z-scores and the high/low/random sets of one (model, dataset)."""

from evalsci.workflow import logged

with logged(snakemake):  # noqa: F821
    smk = snakemake  # noqa: F821
    from evalsci.studies.mc_icl import steps

    steps.selection(
        smk.input.scores,
        smk.wildcards.dataset,
        smk.input.glue,
        smk.params.params,
        smk.params.seed,
        smk.output.values,
        smk.output.sets,
    )
