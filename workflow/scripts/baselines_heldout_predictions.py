"""Rule baselines_heldout_predictions: held-out predictions in the authors' schema."""

from evalsci.studies.baselines import steps
from evalsci.workflow import logged

smk = snakemake  # noqa: F821 (injected by Snakemake)
with logged(smk):
    steps.heldout_predictions(
        smk.input.source or None,
        smk.input.splits or None,
        smk.input.baselines or None,
        smk.output.predictions,
    )
