"""Rule baselines_icl_cell: shards -> authors' per-example CSV + per-option file."""

from evalsci.workflow import logged

smk = snakemake  # noqa: F821
with logged(smk):
    from evalsci.studies.baselines.shards import assemble_cell

    df = assemble_cell(smk.input.shards, smk.output.per_example, smk.output.options)
    print(f"{len(df)} per-example rows, accuracy {df['Correct prediction'].mean():.3f}")
