"""Rule baselines_maxrandom_requests: the study's random-baseline requests for the maxrandom rule."""

from evalsci.studies.baselines import steps
from evalsci.workflow import logged

smk = snakemake  # noqa: F821 (injected by Snakemake)
with logged(smk):
    steps.requests(
        smk.input.aggregated,
        smk.input.multi_prompt,
        smk.input.splits or None,
        smk.output.requests,
        smk.params.cfg,
        smk.params.recompute,
    )
