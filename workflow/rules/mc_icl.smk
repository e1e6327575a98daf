# `mc_icl` study rules (Schoch & Ji, paper 004); targets: the artefact registry. Paths: the
# study's plan (MC_ICL_PLAN, evalsci.studies.mc_icl.plan); each rule runs the function
# `function` of evalsci.studies.mc_icl.steps with its named inputs, outputs and params
# (workflow/scripts/call.py).
#
# inference (GPU on a cluster)   mc_icl_shard: Algorithm 1 for one (model, dataset, trial),
#                                or Algorithm 1 over one Section 5.2 set (high/low/random)
# post-processing (CPU)          accuracy tables, Z-score selection, max random requests, figures
include: "mc_icl_common.smk"


wildcard_constraints:
    mc_icl_run=MC_ICL_RUN,


rule mc_icl_shard:
    """Per-example, per-choice log-likelihoods of one trial (or one selected set)."""
    input:
        unpack(mc_icl_shard_inputs),
        code=MC_ICL_STEPS,
    output:
        scores=MC_ICL_PLAN.scores,
    log:
        mc_icl_log("shard/{model}/{dataset}/{mc_icl_run}"),
    benchmark:
        mc_icl_benchmark("shard/{model}/{dataset}/{mc_icl_run}")
    conda:
        ENV["gpu"]
    threads: config["lm"]["threads"]
    resources:
        gpu=1,
        mem_mb=32000,
        runtime=240,
    params:
        function="shard",
        params=recorded(MC_ICL),
        seed=config["seed"],
        spec=mc_icl_shard_model_spec,
        lm=config["lm"],
    script:
        "../scripts/call.py"


rule mc_icl_make_accuracy_tables:
    """Accuracy of every (model, dataset, trial, permutation, k), the per-dataset summary and
    the Section 5.1 findings' tests."""
    input:
        code=MC_ICL_STEPS,
        scores=mc_icl_all_trial_scores,
        baselines=MC_ICL_PLAN.baselines,
    output:
        accuracy=MC_ICL_PLAN.accuracy_by_k,
        summary=report(
            MC_ICL_PLAN.summary,
            caption="../report/mc_icl_summary.rst",
            category="mc_icl",
        ),
        findings=report(
            MC_ICL_PLAN.findings,
            caption="../report/mc_icl_findings.rst",
            category="mc_icl",
        ),
    log:
        mc_icl_log("accuracy"),
    benchmark:
        mc_icl_benchmark("accuracy")
    conda:
        ENV["core"]
    params:
        function="make_accuracy_tables",
        params=recorded(MC_ICL),
    script:
        "../scripts/call.py"


rule mc_icl_maxrandom_requests:
    """The (n, labels, t) of every selection Figures 1-4 invite (answered by rule maxrandom)."""
    input:
        code=MC_ICL_STEPS,
    output:
        requests=MC_ICL_PLAN.requests,
    log:
        mc_icl_log("maxrandom_requests"),
    benchmark:
        mc_icl_benchmark("maxrandom_requests")
    conda:
        ENV["core"]
    params:
        function="maxrandom_requests",
        params=recorded(MC_ICL),
        seed=config["seed"],
    script:
        "../scripts/call.py"


rule mc_icl_selection:
    """Section 5.2: per-example Monte Carlo values, Z-scores and the high/low/random sets."""
    input:
        unpack(mc_icl_selection_inputs),
        code=MC_ICL_STEPS,
    output:
        values=MC_ICL_PLAN.values,
        sets=MC_ICL_PLAN.sets,
    log:
        mc_icl_log("select/{model}/{dataset}"),
    benchmark:
        mc_icl_benchmark("select/{model}/{dataset}")
    conda:
        ENV["core"]
    params:
        function="selection",
        params=recorded(MC_ICL),
        seed=config["seed"],
    script:
        "../scripts/call.py"


rule mc_icl_make_figure:
    """Figures 1-3 and the appendix figures 5-20 from the accuracy table."""
    input:
        code=MC_ICL_STEPS,
        accuracy=MC_ICL_PLAN.accuracy_by_k,
        baselines=MC_ICL_PLAN.baselines,
    output:
        figure=report(
            MC_ICL_PLAN.figure,
            caption="../report/mc_icl_figure.rst",
            category="mc_icl",
            subcategory="figure {n}",
        ),
    log:
        mc_icl_log("figure{n}"),
    benchmark:
        mc_icl_benchmark("figure{n}")
    wildcard_constraints:
        n=r"[1-35-9]|1[0-9]|20",
    conda:
        ENV["core"]
    params:
        function="make_figure",
        params=recorded(MC_ICL),
    script:
        "../scripts/call.py"


rule mc_icl_figure4_data:
    """Accuracy of the Section 5.2 set runs, every (model, dataset, set, permutation, k)."""
    input:
        code=MC_ICL_STEPS,
        scores=mc_icl_all_set_scores,
        sets=mc_icl_selected_sets,
    output:
        accuracy=MC_ICL_PLAN.accuracy_by_set,
    log:
        mc_icl_log("figure4_data"),
    benchmark:
        mc_icl_benchmark("figure4_data")
    conda:
        ENV["core"]
    params:
        function="figure4_data",
    script:
        "../scripts/call.py"


rule mc_icl_make_figure4:
    """Figure 4: high, low and random sets under the same Monte Carlo sampling."""
    input:
        code=MC_ICL_STEPS,
        accuracy=MC_ICL_PLAN.accuracy_by_set,
        baselines=MC_ICL_PLAN.baselines,
    output:
        figure=report(
            MC_ICL_PLAN.figure_of(4),
            caption="../report/mc_icl_figure4.rst",
            category="mc_icl",
        ),
    log:
        mc_icl_log("figure4"),
    benchmark:
        mc_icl_benchmark("figure4")
    conda:
        ENV["core"]
    params:
        function="make_figure4",
    script:
        "../scripts/call.py"


rule mc_icl_make_claims:
    """The claims ledger of paper 004: every claim, ours, its uncertainty and the verdict by
    the one rule (evalsci.stats.agreement), the findings from the recorded CPU-scale run's
    committed copy; `evalsci claims --study mc_icl` prints it."""
    input:
        **MC_ICL_CLAIMS_INPUTS,
        code=code("evalsci.studies.mc_icl.claims"),
    output:
        claims=report(
            MC_ICL_PLAN.claims,
            caption="../report/mc_icl_claims.rst",
            category="mc_icl",
            subcategory="claims",
        ),
    log:
        mc_icl_log("claims"),
    benchmark:
        mc_icl_benchmark("claims")
    conda:
        ENV["core"]
    params:
        function="make_claims",
    script:
        "../scripts/call.py"
