# `tapt` study rules (Dubey, paper 002); targets: the artefact registry. Paths: the study's plan
# (TAPT_PLAN, evalsci.studies.tapt.plan); each rule runs the function `function` of
# evalsci.studies.tapt.steps with its named inputs, outputs and params
# (workflow/scripts/call.py); settings: TAPT (evalsci.studies.tapt.settings.TaptSettings).
#
# data          tapt_accuracies: every accuracies.csv of the source (released bundle, or the
#               recompute rules' files) as one long table
# Section 5     tapt_make_table1, tapt_make_task_level, tapt_make_differences (all configs)
# App. D.1, 8   tapt_make_permutation_tests (per task, BH across tasks)
# Section 6     tapt_fit (per config x model variant, both comparisons; NUTS, diagnostics checked)
#               -> tapt_make_beta_table, tapt_make_posterior_figures (per experiment family)
# Section 10    tapt_meta_slices (per config) -> tapt_make_meta_analysis
# App. E.1, G   tapt_make_prior_predictive, tapt_make_recovery, tapt_make_pca
# Nothing here compares against chance, so no maxrandom requests (see README).
# Helpers: tapt_common.smk (included by tapt_recompute.smk, which comes first).


wildcard_constraints:
    comparison="|".join(TAPT_COMPARISONS),
    variant="authors|eq2",


rule tapt_accuracies:
    """The authors' (or our) accuracies as one long table, checked column by column."""
    input:
        **TAPT_SOURCE,
        code=TAPT_STEPS,
    output:
        accuracies=TAPT_PLAN.accuracies,
    log:
        tapt_log("accuracies"),
    conda:
        ENV["core"]
    params:
        function="make_accuracies",
    script:
        "../scripts/call.py"


rule tapt_make_table1:
    """Table 1: exact means of acc_extra - acc_base and acc_test - acc_extra per (m, n, LM)."""
    input:
        code=TAPT_STEPS,
        accuracies=TAPT_PLAN.accuracies,
    output:
        table=report(TAPT_PLAN.table1, caption="../report/tapt_table1.rst", category="tapt"),
    log:
        tapt_log("table1"),
    conda:
        ENV["core"]
    params:
        function="make_table1",
    script:
        "../scripts/call.py"


rule tapt_make_task_level:
    """Section 7: per task, boost and bias averaged over every (m, n, LM)."""
    input:
        code=TAPT_STEPS,
        accuracies=TAPT_PLAN.accuracies,
    output:
        table=report(TAPT_PLAN.task_level, caption="../report/tapt_task_level.rst", category="tapt"),
    log:
        tapt_log("task_level"),
    conda:
        ENV["core"]
    params:
        function="make_task_level",
    script:
        "../scripts/call.py"


rule tapt_make_differences:
    """Figure 1 (m50_n200) and Figures 9-15: per-task distributions of the differences, every
    configuration in one job (16 small figures: one Python start instead of 16)."""
    input:
        code=TAPT_STEPS,
        accuracies=TAPT_PLAN.accuracies,
    output:
        figures=[
            report(
                f,
                caption="../report/tapt_differences.rst",
                category="tapt",
                subcategory="difference distributions",
            )
            for f in TAPT_PLAN.differences_all()
        ],
    log:
        tapt_log("differences"),
    conda:
        ENV["core"]
    params:
        function="make_differences_figures",
        configs=TAPT_PLAN.configs(),
    script:
        "../scripts/call.py"


rule tapt_make_permutation_tests:
    """Per-task paired permutation tests (eqs. 9-10), BH across the tasks of a configuration."""
    input:
        code=TAPT_STEPS,
        accuracies=TAPT_PLAN.accuracies,
    output:
        tests=report(
            TAPT_PLAN.permutation_tests,
            caption="../report/tapt_permutation.rst",
            category="tapt",
        ),
        summary=report(
            TAPT_PLAN.permutation_summary,
            caption="../report/tapt_permutation.rst",
            category="tapt",
        ),
    log:
        tapt_log("permutation"),
    benchmark:
        tapt_benchmark("permutation")
    conda:
        ENV["core"]
    params:
        function="make_permutation",
        settings=recorded(TAPT.permutation),
        seed=config["seed"],
    script:
        "../scripts/call.py"


rule tapt_fit:
    """The Section 6 model for one configuration and model variant, both comparisons. One job
    for the two fits: they share the Python start, the imports and numba's warm-up (~9 CPU-s)."""
    input:
        code=TAPT_STEPS,
        accuracies=TAPT_PLAN.accuracies,
    output:
        **TAPT_PLAN.fit_outputs(),
    log:
        tapt_log("fits/{config}_{variant}"),
    benchmark:
        tapt_benchmark("fits/{config}_{variant}")
    priority: 10  # a long job: run it first when ready; short jobs fill the end
    conda:
        ENV["bayes"]
    threads: TAPT.bayes.threads
    resources:
        mem_mb=4000,
    params:
        function="fit",
        comparisons=TAPT_COMPARISONS,
        bayes=recorded(TAPT.bayes),
        count_rule=TAPT.count_rule,
    script:
        "../scripts/call.py"


rule tapt_make_beta_table:
    """beta posteriors of every fit (mean, sd, 89% HDI, r-hat, ESS, divergences)."""
    input:
        code=TAPT_STEPS,
        summaries=TAPT_PLAN.fit_summaries(),
    output:
        table=report(
            TAPT_PLAN.beta_posteriors,
            caption="../report/tapt_beta_posteriors.rst",
            category="tapt",
        ),
    log:
        tapt_log("beta_posteriors"),
    conda:
        ENV["core"]
    params:
        function="make_beta_table",
    script:
        "../scripts/call.py"


rule tapt_make_posterior_figures:
    """Figures 2-4: posterior predictive average differences; posteriors of beta."""
    input:
        code=TAPT_STEPS,
        draws=tapt_family_draws,
    output:
        ppd=report(
            TAPT_PLAN.posterior_predictive,
            caption="../report/tapt_posterior_predictive.rst",
            category="tapt",
            subcategory="posteriors",
        ),
        beta=report(
            TAPT_PLAN.beta_figure,
            caption="../report/tapt_beta_figure.rst",
            category="tapt",
            subcategory="posteriors",
        ),
    log:
        tapt_log("posterior_figure_{family}"),
    conda:
        ENV["core"]
    params:
        function="make_posterior_figure",
    script:
        "../scripts/call.py"


rule tapt_meta_slices:
    """Section 10: hierarchical fits to unreplicated slices of one configuration."""
    input:
        code=TAPT_STEPS,
        accuracies=TAPT_PLAN.accuracies,
    output:
        slices=TAPT_PLAN.meta_slices,
    log:
        tapt_log("meta_{config}"),
    benchmark:
        tapt_benchmark("meta_{config}")
    priority: 10  # a long job: run it first when ready; short jobs fill the end
    conda:
        ENV["bayes"]
    threads: TAPT.bayes.threads
    params:
        function="make_meta_slices",
        settings=recorded(TAPT.meta),
        bayes=recorded(TAPT.bayes),
        count_rule=TAPT.count_rule,
        seed=config["seed"],
    script:
        "../scripts/call.py"


rule tapt_make_meta_analysis:
    """Figure 5 and P(|posterior mean of beta| > threshold) per configuration."""
    input:
        code=TAPT_STEPS,
        slices=tapt_meta_slices,
    output:
        table=report(
            TAPT_PLAN.meta_table,
            caption="../report/tapt_meta_analysis.rst",
            category="tapt",
        ),
        figure=report(
            TAPT_PLAN.meta_figure,
            caption="../report/tapt_meta_analysis.rst",
            category="tapt",
        ),
    log:
        tapt_log("meta_analysis"),
    conda:
        ENV["core"]
    params:
        function="make_meta_table",
        settings=recorded(TAPT.meta),
    script:
        "../scripts/call.py"


rule tapt_make_prior_predictive:
    """Figure 7: prior predictive accuracies (m = 100, n = 200 design), paper vs bambi priors."""
    input:
        code=TAPT_STEPS,
        accuracies=TAPT_PLAN.accuracies,
    output:
        table=report(
            TAPT_PLAN.prior_predictive_table,
            caption="../report/tapt_prior_predictive.rst",
            category="tapt",
        ),
        figure=report(
            TAPT_PLAN.prior_predictive_figure,
            caption="../report/tapt_prior_predictive.rst",
            category="tapt",
        ),
    log:
        tapt_log("prior_predictive"),
    conda:
        ENV["bayes"]
    params:
        function="make_prior_predictive",
        settings=recorded(TAPT.simulate),
        config=TAPT_PLAN.prior_predictive_config(),
        seed=config["seed"],
        count_rule=TAPT.count_rule,
    script:
        "../scripts/call.py"


rule tapt_make_recovery:
    """Figure 8: recovery of a null and a non-null beta from simulated data."""
    input:
        code=TAPT_STEPS,
    output:
        table=report(
            TAPT_PLAN.recovery_table, caption="../report/tapt_recovery.rst", category="tapt"
        ),
        figure=report(
            TAPT_PLAN.recovery_figure, caption="../report/tapt_recovery.rst", category="tapt"
        ),
    log:
        tapt_log("recovery"),
    benchmark:
        tapt_benchmark("recovery")
    priority: 10  # a long job: run it first when ready; short jobs fill the end
    conda:
        ENV["bayes"]
    threads: TAPT.bayes.threads
    params:
        function="make_recovery",
        settings=recorded(TAPT.simulate),
        bayes=recorded(TAPT.bayes),
        seed=config["seed"],
    script:
        "../scripts/call.py"


rule tapt_make_pca:
    """Figure 6 (Appendix G): evaluation bias of PCA fitted on test features."""
    input:
        code=TAPT_STEPS,
    output:
        table=report(TAPT_PLAN.pca_table, caption="../report/tapt_pca.rst", category="tapt"),
        figure=report(TAPT_PLAN.pca_figure, caption="../report/tapt_pca.rst", category="tapt"),
    log:
        tapt_log("pca"),
    benchmark:
        tapt_benchmark("pca")
    priority: 10  # a long job: run it first when ready; short jobs fill the end
    conda:
        ENV["assess"]
    params:
        function="make_pca",
        settings=recorded(TAPT.pca),
    script:
        "../scripts/call.py"


rule tapt_make_claims:
    """The claims ledger of paper 002: every claim, ours, its uncertainty and the verdict by
    the one rule (evalsci.stats.agreement); `evalsci claims --study tapt` prints it."""
    input:
        code=code("evalsci.studies.tapt.claims"),
        table1=TAPT_PLAN.csv("table1"),
        task_level=TAPT_PLAN.csv("task_level"),
        permutation_tests=TAPT_PLAN.csv("permutation_tests"),
        accuracies=TAPT_PLAN.accuracies,
        beta_posteriors=TAPT_PLAN.csv("beta_posteriors"),
        meta_analysis=TAPT_PLAN.csv("meta_table"),
        meta_slices=TAPT_PLAN.meta_slices_all(),
        recovery=TAPT_PLAN.csv("recovery_table"),
        pca=TAPT_PLAN.csv("pca_table"),
    output:
        claims=report(
            TAPT_PLAN.claims,
            caption="../report/tapt_claims.rst",
            category="tapt",
        ),
    log:
        tapt_log("claims"),
    conda:
        ENV["core"]
    params:
        function="make_claims",
        released=not TAPT.recompute,
    script:
        "../scripts/call.py"
