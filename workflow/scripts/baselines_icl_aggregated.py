"""Rule baselines_icl_aggregated: per-example CSVs -> aggregated-results.json."""

from evalsci.workflow import logged

smk = snakemake  # noqa: F821
with logged(smk):
    from evalsci.studies.baselines.shards import write_aggregated

    agg = write_aggregated(
        dict(zip(smk.params.cell_keys, smk.input.per_example, strict=True)), smk.output.aggregated
    )
    for key, accs in agg.items():
        print(key, f"max {max(accs):.3f}", f"mean {sum(accs) / len(accs):.3f}")
