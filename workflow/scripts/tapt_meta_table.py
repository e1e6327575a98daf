"""Rule tapt_make_meta_analysis: Figure 5 and P(|mean| > threshold)."""

from evalsci.pipeline.jobs import logged
from evalsci.studies.tapt import steps

with logged(snakemake):  # noqa: F821
    smk = snakemake  # noqa: F821
    steps.make_meta_table(
        list(smk.input), dict(smk.params.thresholds), smk.output.table, smk.output.figure
    )
