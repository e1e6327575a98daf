"""Rule baselines_make_table2: Table 2 (non-quantized models) from NF4/full-precision pairs."""

from evalsci.studies.baselines import steps
from evalsci.workflow import logged

smk = snakemake  # noqa: F821 (injected by Snakemake)
with logged(smk):
    steps.make_table2(
        list(smk.input.per_example),
        list(smk.input.options),
        smk.input.baselines,
        list(smk.output),
        smk.params.settings,
    )
