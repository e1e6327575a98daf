"""Merge one run's shards into the authors' accuracies.csv (rule tapt_train_merge)."""

from pathlib import Path

from evalsci.pipeline.jobs import logged

with logged(snakemake):  # noqa: F821
    smk = snakemake  # noqa: F821
    from evalsci.studies.tapt.training.shards import ShardPaths, merge

    shards = [
        ShardPaths(a, p, m)
        for a, p, m in zip(
            smk.input.accuracies, smk.input.predictions, smk.input.metrics, strict=True
        )
    ]
    merge(shards, Path(smk.output.accuracies).parent)
