"""assessors: the IRT selectors' item features of every split of a collection."""

from evalsci.workflow import configure_threads, logged

smk = snakemake  # noqa: F821
with logged(smk):
    configure_threads(smk.threads)
    from evalsci.studies.assessors.steps import build_irt

    build_irt(
        dict(smk.input.items()),
        smk.params.settings,
        smk.params.collection,
        smk.params.seed,
        smk.output.irt,
    )
