# `audit` study rules: the max random baseline applied to public many-model results (see the
# Snakefile for its named targets, docs/audit.md for the method and findings).
#
# released bundle -> runs table per source -> one requests file -> maxrandom (shared leaf)
# -> per source: counts table, per-run detail (baselines, tail p-values, verdict), figure
# -> leaderboard: flipped share against t (sweep)


include: "audit_common.smk"


rule audit_data_leaderboard:
    """The Open LLM Leaderboard v2 runs, every multiple-choice task with its items' choices;
    the free-text tasks listed out of scope with the reason."""
    input:
        bundle=released("predictaboard"),
    output:
        runs=audit_runs_file("open_llm_leaderboard_v2"),
        scope=AUDIT_SCOPE,
    log:
        "logs/audit/data_open_llm_leaderboard_v2.log",
    conda:
        ENV["core"]
    params:
        source="open_llm_leaderboard_v2",
    script:
        "../scripts/audit_data.py"


rule audit_data:
    """A released source other than the leaderboard normalised into runs (task, model,
    t kind, t, n, labels, correct, accuracy). The baselines study's own released results
    (each model's best Mizrahi et al. paraphrase, every prompt of Yauney & Mimno's 288
    experiments) are read by that study's code."""
    input:
        bundle=audit_bundle,
    output:
        runs=audit_runs_file("{au_source}"),
    log:
        "logs/audit/data_{au_source}.log",
    wildcard_constraints:
        au_source="|".join(AUDIT_RUNS_ONLY),
    conda:
        ENV["core"]
    params:
        source="{au_source}",
    script:
        "../scripts/audit_data.py"


rule audit_requests:
    """Every baseline and tail the audit needs, as one request file for the maxrandom rule."""
    input:
        runs=[audit_runs_file(s) for s in AUDIT_SOURCES],
    output:
        requests=maxrandom_file("audit", "requests"),
    log:
        "logs/audit/requests.log",
    conda:
        ENV["core"]
    params:
        cfg=AUDIT,
    script:
        "../scripts/audit_requests.py"


rule audit_make:
    """Counts per task and t kind (runs above the standard / max baseline, flipped), the
    per-run detail with tail p-values, and each run against its task's baselines."""
    input:
        runs=audit_runs_file("{au_source}"),
        baselines=maxrandom_file("audit"),
        scope=audit_scope,
    output:
        table=report(
            multiext("results/audit/tables/{au_source}", ".csv", ".md", ".tex"),
            caption="../report/audit_table.rst",
            category="audit",
            subcategory="tables",
        ),
        detail=report(
            "results/audit/tables/{au_source}_runs.csv",
            caption="../report/audit_runs.rst",
            category="audit",
            subcategory="per-run detail",
        ),
        figure=report(
            multiext("results/audit/figures/{au_source}", ".pdf", ".png"),
            caption="../report/audit_figure.rst",
            category="audit",
            subcategory="figures",
        ),
    log:
        "logs/audit/build_{au_source}.log",
    wildcard_constraints:
        au_source="|".join(AUDIT_SOURCES),
    conda:
        ENV["core"]
    params:
        source="{au_source}",
    script:
        "../scripts/audit_tables.py"


rule audit_make_sweep:
    """The leaderboard's flipped share against t = 1 .. t_max (one run per model)."""
    input:
        detail=audit_detail_file("open_llm_leaderboard_v2"),
        baselines=maxrandom_file("audit"),
    output:
        table=report(
            table("audit", "open_llm_leaderboard_v2_sweep"),
            caption="../report/audit_sweep.rst",
            category="audit",
            subcategory="tables",
        ),
        figure=report(
            figure("audit", "flipped_share"),
            caption="../report/audit_sweep.rst",
            category="audit",
            subcategory="figures",
        ),
    log:
        "logs/audit/sweep.log",
    conda:
        ENV["core"]
    params:
        cfg=AUDIT,
    script:
        "../scripts/audit_sweep.py"
