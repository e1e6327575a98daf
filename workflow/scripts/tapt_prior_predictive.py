"""Rule tapt_make_prior_predictive: Figure 7 (prior predictive accuracies)."""

from evalsci.pipeline.jobs import logged
from evalsci.studies.tapt import steps

with logged(snakemake):  # noqa: F821
    smk = snakemake  # noqa: F821
    steps.make_prior_predictive(
        smk.input[0],
        draws=smk.params.draws,
        seed=smk.params.seed,
        count_rule=smk.params.count_rule,
        table_out=smk.output.table,
        figure_out=smk.output.figure,
    )
