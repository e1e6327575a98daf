"""assessors: generic assessor AUC against the number of reference instances, one split."""

from evalsci.workflow import configure_threads, logged

smk = snakemake  # noqa: F821
with logged(smk):
    configure_threads(smk.threads)
    from evalsci.studies.assessors.steps import run_one_nref

    run_one_nref(dict(smk.input.items()), smk.wildcards.asplit, smk.params.ccfg, smk.params.cfg,
                 smk.params.seed, smk.output.results, threads=smk.threads)
