"""List every accuracies.csv of the configured recompute runs (rule tapt_train_manifest)."""

from evalsci.pipeline.jobs import logged

with logged(snakemake):  # noqa: F821
    smk = snakemake  # noqa: F821
    from evalsci.studies.tapt.training.shards import write_manifest

    write_manifest(smk.params.runs, smk.input.accuracies, smk.output.manifest)
