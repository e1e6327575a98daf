"""assessors: every generic-assessor combination and every baseline on one split, then the
n_ref sweep of Figures 8-9 on the same split (reusing the run's n_ref point)."""

from evalsci.workflow import configure_threads, logged

smk = snakemake  # noqa: F821
with logged(smk):
    configure_threads(smk.threads)
    from evalsci.studies.assessors.steps import run_one_nref, run_one_split

    paths = dict(smk.input.items())
    run_one_split(
        paths,
        smk.wildcards.asplit,
        smk.params.settings,
        smk.params.collection,
        smk.params.seed,
        {
            "results": smk.output.results,
            "references": smk.output.references,
            "predictions": smk.output.predictions,
        },
        threads=smk.threads,
    )
    run_one_nref(
        paths | {"run_results": smk.output.results, "run_references": smk.output.references},
        smk.wildcards.asplit,
        smk.params.settings,
        smk.params.collection,
        smk.params.seed,
        smk.output.nref,
        threads=smk.threads,
    )
