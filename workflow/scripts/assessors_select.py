"""assessors: choose each method's combination on validation LLMs (Figure 2 data, Table 3)."""

from evalsci.studies.assessors.steps import select_collection
from evalsci.workflow import logged

smk = snakemake  # noqa: F821
with logged(smk):
    select_collection(
        smk.input.runs,
        {
            "figure2": smk.output.figure2,
            "table3": smk.output.table3,
            "summary": smk.output.summary,
        },
        prediction_paths=smk.input.predictions,
        seed=smk.params.seed,
    )
