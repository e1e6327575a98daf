"""Rule tapt_make_pca: Figure 6 (Appendix G)."""

from evalsci.pipeline.jobs import logged
from evalsci.studies.tapt import steps

with logged(snakemake):  # noqa: F821
    smk = snakemake  # noqa: F821
    steps.make_pca(
        n_trials=smk.params.n_trials, table_out=smk.output.table, figure_out=smk.output.figure
    )
