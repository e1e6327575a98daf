"""assessors: every generic-assessor combination and every baseline on one split."""

from evalsci.workflow import configure_threads, logged

smk = snakemake  # noqa: F821
with logged(smk):
    configure_threads(smk.threads)
    from evalsci.studies.assessors.steps import run_one_split

    run_one_split(dict(smk.input.items()), smk.wildcards.asplit, smk.params.ccfg, smk.params.cfg,
                  smk.params.seed, {"results": smk.output.results,
                                    "references": smk.output.references},
                  threads=smk.threads)
