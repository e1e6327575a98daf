# `audit` study rules: the max random baseline applied to public many-model results (targets:
# the artefact registry; docs/audit.md for the method and findings). Paths: the study's plan
# (AUDIT_PLAN, evalsci.audit.plan); each rule runs the function `function` of its `code`
# module with its named inputs, outputs and params (workflow/scripts/call.py).
#
# released bundle -> runs table per source -> one requests file -> maxrandom (shared leaf)
# -> per source: counts table, per-run detail (baselines, tail p-values, verdict), figure
# -> leaderboard: flipped share against t (sweep)


include: "audit_common.smk"


rule audit_data_leaderboard:
    """The Open LLM Leaderboard v2 runs, every multiple-choice task with its items' choices;
    the free-text tasks listed out of scope with the reason."""
    input:
        code=AUDIT_STEPS,
        bundle=AUDIT_PLAN.bundles[AUDIT_LEADERBOARD],
    output:
        runs=audit_of(AUDIT_PLAN.runs, AUDIT_LEADERBOARD),
        scope=AUDIT_PLAN.scope,
    log:
        audit_log(f"data_{AUDIT_LEADERBOARD}"),
    conda:
        ENV["core"]
    params:
        function="make_runs",
        source=AUDIT_LEADERBOARD,
    script:
        "../scripts/call.py"


rule audit_data:
    """A released source other than the leaderboard normalised into runs (task, model,
    t kind, t, n, labels, correct, accuracy). The baselines study's own released results
    (each model's best Mizrahi et al. paraphrase, every prompt of Yauney & Mimno's 288
    experiments) are read by that study's code."""
    input:
        code=AUDIT_BASELINES_STEPS,
        bundle=audit_bundle,
    output:
        runs=AUDIT_PLAN.runs,
    log:
        audit_log("data_{au_source}"),
    wildcard_constraints:
        au_source="|".join(AUDIT_RUNS_ONLY),
    conda:
        ENV["core"]
    params:
        function="make_audit_runs",
        source="{au_source}",
    script:
        "../scripts/call.py"


rule audit_requests:
    """Every baseline and tail the audit needs, as one request file for the maxrandom rule."""
    input:
        code=AUDIT_STEPS,
        runs=[audit_of(AUDIT_PLAN.runs, s) for s in AUDIT_SOURCES],
    output:
        requests=AUDIT_PLAN.requests,
    log:
        audit_log("requests"),
    conda:
        ENV["core"]
    params:
        function="make_requests",
        cfg=AUDIT,
    script:
        "../scripts/call.py"


rule audit_make:
    """Counts per task and t kind (runs above the standard / max baseline, flipped), the
    per-run detail with tail p-values, and each run against its task's baselines."""
    input:
        code=AUDIT_STEPS,
        runs=AUDIT_PLAN.runs,
        baselines=AUDIT_PLAN.baselines,
        scope=audit_scope,
    output:
        table=report(
            AUDIT_PLAN.table,
            caption="../report/audit_table.rst",
            category="audit",
            subcategory="tables",
        ),
        detail=report(
            AUDIT_PLAN.detail,
            caption="../report/audit_runs.rst",
            category="audit",
            subcategory="per-run detail",
        ),
        figure=report(
            AUDIT_PLAN.figure,
            caption="../report/audit_figure.rst",
            category="audit",
            subcategory="figures",
        ),
    log:
        audit_log("build_{au_source}"),
    wildcard_constraints:
        au_source="|".join(AUDIT_SOURCES),
    conda:
        ENV["core"]
    params:
        function="make_tables",
        source="{au_source}",
    script:
        "../scripts/call.py"


rule audit_make_sweep:
    """The leaderboard's flipped share against t = 1 .. t_max (one run per model)."""
    input:
        code=AUDIT_STEPS,
        detail=audit_of(AUDIT_PLAN.detail, AUDIT_LEADERBOARD),
        baselines=AUDIT_PLAN.baselines,
    output:
        table=report(
            AUDIT_PLAN.sweep_table,
            caption="../report/audit_sweep.rst",
            category="audit",
            subcategory="tables",
        ),
        figure=report(
            AUDIT_PLAN.sweep_figure,
            caption="../report/audit_sweep.rst",
            category="audit",
            subcategory="figures",
        ),
    log:
        audit_log("sweep"),
    conda:
        ENV["core"]
    params:
        function="make_sweep",
        cfg=AUDIT,
    script:
        "../scripts/call.py"
