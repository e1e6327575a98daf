"""Rule baselines_make_section53: Mizrahi et al.'s multi-prompt results vs both baselines."""

from evalsci.studies.baselines import steps
from evalsci.workflow import logged

smk = snakemake  # noqa: F821 (injected by Snakemake)
with logged(smk):
    steps.make_section53(
        smk.input.multi_prompt,
        smk.input.baselines,
        list(smk.output.table),
        smk.output.experiments,
        smk.params.cfg,
    )
