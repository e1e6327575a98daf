# `tapt` study rules: see the Snakefile for its named targets.
#
# data          tapt_accuracies -> results/tapt/data/accuracies.csv: every accuracies.csv of
#               the source (released bundle, or the recompute rules' files) as one long table
# Section 5     tapt_make_table1, tapt_make_task_level, tapt_make_differences (all configs)
# App. D.1, 8   tapt_make_permutation_tests (per task, BH across tasks)
# Section 6     tapt_fit (per config x model variant, both comparisons; NUTS, diagnostics checked)
#               -> tapt_make_beta_table, tapt_make_posterior_figures (per experiment family)
# Section 10    tapt_meta_slices (per config) -> tapt_make_meta_analysis
# App. E.1, G   tapt_make_prior_predictive, tapt_make_recovery, tapt_make_pca
# Nothing here compares against chance, so no maxrandom requests (see README).
# Helpers: tapt_common.smk (included by tapt_recompute.smk, which comes first).


wildcard_constraints:
    comparison="boost|bias",
    variant="authors|eq2",


rule tapt_accuracies:
    """The authors' (or our) accuracies as one long table, checked column by column."""
    input:
        unpack(tapt_accuracies_source),
    output:
        TAPT_ACCURACIES,
    log:
        "logs/tapt/accuracies.log",
    conda:
        ENV["core"]
    script:
        "../scripts/tapt_accuracies.py"


rule tapt_make_table1:
    """Table 1: exact means of acc_extra - acc_base and acc_test - acc_extra per (m, n, LM)."""
    input:
        TAPT_ACCURACIES,
    output:
        report(table("tapt", "table1"), caption="../report/tapt_table1.rst", category="tapt"),
    log:
        "logs/tapt/table1.log",
    conda:
        ENV["core"]
    script:
        "../scripts/tapt_table1.py"


rule tapt_make_task_level:
    """Section 7: per task, boost and bias averaged over every (m, n, LM)."""
    input:
        TAPT_ACCURACIES,
    output:
        report(
            table("tapt", "task_level"), caption="../report/tapt_task_level.rst", category="tapt"
        ),
    log:
        "logs/tapt/task_level.log",
    conda:
        ENV["core"]
    script:
        "../scripts/tapt_task_level.py"


rule tapt_make_differences:
    """Figure 1 (m50_n200) and Figures 9-15: per-task distributions of the differences, every
    configuration in one job (16 small figures: one Python start instead of 16)."""
    input:
        TAPT_ACCURACIES,
    output:
        [
            report(
                f,
                caption="../report/tapt_differences.rst",
                category="tapt",
                subcategory="difference distributions",
            )
            for f in tapt_targets("differences")
        ],
    log:
        "logs/tapt/differences.log",
    conda:
        ENV["core"]
    params:
        configs=tapt_configs(),
    script:
        "../scripts/tapt_differences.py"


rule tapt_make_permutation_tests:
    """Per-task paired permutation tests (eqs. 9-10), BH across the tasks of a configuration."""
    input:
        TAPT_ACCURACIES,
    output:
        tests=report(
            table("tapt", "permutation_tests"),
            caption="../report/tapt_permutation.rst",
            category="tapt",
        ),
        summary=report(
            table("tapt", "permutation_summary"),
            caption="../report/tapt_permutation.rst",
            category="tapt",
        ),
    log:
        "logs/tapt/permutation.log",
    benchmark:
        "logs/tapt/permutation.benchmark.tsv"
    conda:
        ENV["core"]
    params:
        seed=config["seed"],
        n_resamples=TAPT["permutation"]["n_resamples"],
        alpha=TAPT["permutation"]["alpha"],
    script:
        "../scripts/tapt_permutation.py"


rule tapt_fit:
    """The Section 6 model for one configuration and model variant, both comparisons. One job
    for the two fits: they share the Python start, the imports and numba's warm-up (~9 CPU-s)."""
    input:
        TAPT_ACCURACIES,
    output:
        summary=expand(f"{TAPT_FIT}.json", comparison=_tapt_targets.COMPARISONS, allow_missing=True),
        draws=expand(
            f"{TAPT_FIT}.draws.csv.gz", comparison=_tapt_targets.COMPARISONS, allow_missing=True
        ),
        diagnostics=expand(
            f"{TAPT_FIT}.diagnostics.csv", comparison=_tapt_targets.COMPARISONS, allow_missing=True
        ),
    log:
        "logs/tapt/fits/{config}_{variant}.log",
    benchmark:
        "logs/tapt/fits/{config}_{variant}.benchmark.tsv"
    priority: 10  # a long job: run it first when ready; short jobs fill the end
    conda:
        ENV["bayes"]
    threads: TAPT["bayes"]["threads"]
    resources:
        mem_mb=4000,
    params:
        comparisons=_tapt_targets.COMPARISONS,
        bayes=TAPT_BAYES,
        count_rule=TAPT["count_rule"],
    script:
        "../scripts/tapt_fit.py"


rule tapt_make_beta_table:
    """beta posteriors of every fit (mean, sd, 89% HDI, r-hat, ESS, divergences)."""
    input:
        [f"{s}.json" for s in tapt_fit_stems()],
    output:
        report(
            table("tapt", "beta_posteriors"),
            caption="../report/tapt_beta_posteriors.rst",
            category="tapt",
        ),
    log:
        "logs/tapt/beta_posteriors.log",
    conda:
        ENV["core"]
    script:
        "../scripts/tapt_beta_table.py"


rule tapt_make_posterior_figures:
    """Figures 2-4: posterior predictive average differences; posteriors of beta."""
    input:
        tapt_family_draws,
    output:
        ppd=report(
            figure("tapt", "posterior_predictive_{family}"),
            caption="../report/tapt_posterior_predictive.rst",
            category="tapt",
            subcategory="posteriors",
        ),
        beta=report(
            figure("tapt", "beta_{family}"),
            caption="../report/tapt_beta_figure.rst",
            category="tapt",
            subcategory="posteriors",
        ),
    log:
        "logs/tapt/posterior_figure_{family}.log",
    conda:
        ENV["core"]
    script:
        "../scripts/tapt_posterior_figure.py"


rule tapt_meta_slices:
    """Section 10: hierarchical fits to unreplicated slices of one configuration."""
    input:
        TAPT_ACCURACIES,
    output:
        "results/tapt/meta/{config}_slices.csv",
    log:
        "logs/tapt/meta_{config}.log",
    benchmark:
        "logs/tapt/meta_{config}.benchmark.tsv"
    priority: 10  # a long job: run it first when ready; short jobs fill the end
    conda:
        ENV["bayes"]
    threads: TAPT["bayes"]["threads"]
    params:
        n_slices=TAPT["meta"]["n_slices"],
        target_accept=TAPT["meta"]["target_accept"],
        tune=TAPT["meta"]["tune"],
        seed=config["seed"],
        bayes=TAPT_BAYES,
        count_rule=TAPT["count_rule"],
    script:
        "../scripts/tapt_meta_slices.py"


rule tapt_make_meta_analysis:
    """Figure 5 and P(|posterior mean of beta| > threshold) per configuration."""
    input:
        tapt_meta_slices,
    output:
        table=report(
            table("tapt", "meta_analysis"),
            caption="../report/tapt_meta_analysis.rst",
            category="tapt",
        ),
        figure=report(
            figure("tapt", "meta_analysis"),
            caption="../report/tapt_meta_analysis.rst",
            category="tapt",
        ),
    log:
        "logs/tapt/meta_analysis.log",
    conda:
        ENV["core"]
    params:
        thresholds=TAPT["meta"]["configs"],
    script:
        "../scripts/tapt_meta_table.py"


rule tapt_make_prior_predictive:
    """Figure 7: prior predictive accuracies (m = 100, n = 200 design), paper vs bambi priors."""
    input:
        TAPT_ACCURACIES,
    output:
        table=report(
            table("tapt", "prior_predictive"),
            caption="../report/tapt_prior_predictive.rst",
            category="tapt",
        ),
        figure=report(
            figure("tapt", "prior_predictive"),
            caption="../report/tapt_prior_predictive.rst",
            category="tapt",
        ),
    log:
        "logs/tapt/prior_predictive.log",
    conda:
        ENV["bayes"]
    params:
        draws=TAPT["simulate"]["prior_draws"],
        seed=config["seed"],
        count_rule=TAPT["count_rule"],
    script:
        "../scripts/tapt_prior_predictive.py"


rule tapt_make_recovery:
    """Figure 8: recovery of a null and a non-null beta from simulated data."""
    output:
        table=report(
            table("tapt", "recovery"), caption="../report/tapt_recovery.rst", category="tapt"
        ),
        figure=report(
            figure("tapt", "recovery"), caption="../report/tapt_recovery.rst", category="tapt"
        ),
    log:
        "logs/tapt/recovery.log",
    benchmark:
        "logs/tapt/recovery.benchmark.tsv"
    priority: 10  # a long job: run it first when ready; short jobs fill the end
    conda:
        ENV["bayes"]
    threads: TAPT["bayes"]["threads"]
    params:
        n_subsamples=TAPT["simulate"]["n_subsamples"],
        beta_nonnull=TAPT["simulate"]["beta_nonnull"],
        target_accept=TAPT["simulate"]["target_accept"],
        seed=config["seed"],
        bayes=TAPT_BAYES,
    script:
        "../scripts/tapt_recovery.py"


rule tapt_make_pca:
    """Figure 6 (Appendix G): evaluation bias of PCA fitted on test features."""
    output:
        table=report(table("tapt", "pca"), caption="../report/tapt_pca.rst", category="tapt"),
        figure=report(figure("tapt", "pca"), caption="../report/tapt_pca.rst", category="tapt"),
    log:
        "logs/tapt/pca.log",
    benchmark:
        "logs/tapt/pca.benchmark.tsv"
    priority: 10  # a long job: run it first when ready; short jobs fill the end
    conda:
        ENV["assess"]
    params:
        n_trials=TAPT["pca"]["n_trials"],
    script:
        "../scripts/tapt_pca.py"
