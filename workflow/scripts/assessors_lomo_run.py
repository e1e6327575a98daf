"""assessors: leave one model out on one benchmark (`evalsci reference` vs tinyBenchmarks)."""

from evalsci.studies.assessors.steps import run_lomo
from evalsci.workflow import logged

smk = snakemake  # noqa: F821
with logged(smk):
    run_lomo(
        smk.wildcards.bench,
        smk.params.cfg,
        smk.params.seed,
        smk.output.runs,
        bundle=smk.input.get("bundle"),
        success=smk.input.get("success"),
    )
