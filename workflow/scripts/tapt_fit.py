"""Rule tapt_fit: the Section 6 model for one configuration and variant, both comparisons."""

from evalsci.pipeline.jobs import configure_threads, logged

with logged(snakemake):  # noqa: F821
    smk = snakemake  # noqa: F821
    configure_threads(1)  # each NUTS chain is one thread; `threads` chains run at once
    from evalsci.studies.tapt import steps  # after the thread cap: it imports numpy

    w, out = smk.wildcards, smk.output
    for i, comparison in enumerate(smk.params.comparisons):
        steps.make_fit(
            smk.input[0],
            w.config,
            comparison,
            w.variant,
            bayes_cfg=smk.params.bayes,
            count_rule=smk.params.count_rule,
            cores=smk.threads,
            summary_out=out.summary[i],
            draws_out=out.draws[i],
            diagnostics_out=out.diagnostics[i],
        )
