"""Adapter: accuracy_by_k.csv and the summary table from the trial score shards."""

from evalsci.workflow import logged

with logged(snakemake):  # noqa: F821
    smk = snakemake  # noqa: F821
    from evalsci.studies.mc_icl import steps

    steps.make_accuracy_tables(
        smk.input.scores,
        smk.input.baselines,
        smk.params.params,
        smk.output.accuracy,
        smk.output.summary,
    )
