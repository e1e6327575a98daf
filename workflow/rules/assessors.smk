# `assessors` study rules (Pacchiardi et al., paper 003); targets: the artefact registry. Paths:
# the study's plan (ASSESSORS_PLAN, evalsci.studies.assessors.plan); each rule runs the
# function `function` of evalsci.studies.assessors.steps with its named inputs, outputs and
# params (workflow/scripts/call.py).
# Per collection (config assessors.collections): normalised data -> cached embeddings ->
# instance splits -> one job per split (every assessor, selector and classifier, then the n_ref
# sweep for Figures 8-9) -> selection on validation LLMs -> Figure 2 / Table 3. AUC figures
# read the max random baseline from the shared `maxrandom` rule.


include: "assessors_common.smk"


wildcard_constraints:
    collection="|".join(ASSESSORS_COLLECTIONS) or "NONE",
    asplit="[A-Za-z0-9_]+",


rule assessors_data:
    """Load a collection (success recomputed from raw outputs) and check LLM coverage."""
    input:
        unpack(assessors_source),
        code=ASSESSORS_STEPS,
    output:
        instances=ASSESSORS_PLAN.instances,
        success=ASSESSORS_PLAN.success,
        coverage=ASSESSORS_PLAN.coverage,
    log:
        assessors_log("{collection}/data"),
    benchmark:
        assessors_benchmark("{collection}/data")
    priority: 20  # a long job: run it first when ready; short jobs fill the end
    conda:
        ENV["assess"]
    params:
        function="build_data",
        collection=assessors_collection,
        seed=config["seed"],
    script:
        "../scripts/call.py"


rule assessors_embed:
    """Sentence embeddings of every instance, computed once per collection."""
    input:
        code=ASSESSORS_STEPS,
        instances=ASSESSORS_PLAN.instances,
    output:
        embeddings=ASSESSORS_PLAN.embeddings,
    log:
        assessors_log("{collection}/embed"),
    benchmark:
        assessors_benchmark("{collection}/embed")
    priority: 20  # a long job: run it first when ready; short jobs fill the end
    conda:
        ENV["lm"]
    # 1 thread: the same bits as 2 (torch_pinned; checked on the 3,000 predictaboard prompts)
    # and far fewer CPU-s: the second thread mostly spins (2026-11-24, docs/benchmarks/dag_profile.md)
    threads: 1
    resources:
        mem_mb=3000,
    params:
        function="build_embeddings",
        embedding=recorded(ASSESSORS.embedding),
    script:
        "../scripts/call.py"


rule assessors_splits:
    """In-distribution and out-of-distribution instance splits."""
    input:
        code=ASSESSORS_STEPS,
        instances=ASSESSORS_PLAN.instances,
    output:
        splits=ASSESSORS_PLAN.splits,
    log:
        assessors_log("{collection}/splits"),
    priority: 20  # a long job: run it first when ready; short jobs fill the end
    conda:
        ENV["assess"]
    params:
        function="build_splits",
        settings=recorded(ASSESSORS),
        collection=assessors_collection,
        seed=config["seed"],
    script:
        "../scripts/call.py"


rule assessors_irt:
    """The IRT selectors' item features of every split: one torch start per collection."""
    input:
        code=ASSESSORS_STEPS,
        instances=ASSESSORS_PLAN.instances,
        success=ASSESSORS_PLAN.success,
        splits=ASSESSORS_PLAN.splits,
    output:
        irt=ASSESSORS_PLAN.irt,
    log:
        assessors_log("{collection}/irt"),
    priority: 20  # a long job: run it first when ready; short jobs fill the end
    conda:
        ENV["assess"]
    threads: 1
    params:
        function="build_irt",
        settings=recorded(ASSESSORS),
        collection=assessors_collection,
        seed=config["seed"],
    script:
        "../scripts/call.py"


rule assessors_run:
    """Every generic-assessor combination and every baseline on one split, then the n_ref
    sweep of Figures 8-9 on it (its point at the configured n_ref is the run's own). One job:
    the sweep shares the run's Python start, imports and data (about 6 CPU-s per split)."""
    input:
        **ASSESSORS_PLAN.data_files(),
        code=ASSESSORS_STEPS,
    output:
        results=ASSESSORS_PLAN.results,
        references=ASSESSORS_PLAN.references,
        predictions=ASSESSORS_PLAN.predictions,
        nref=ASSESSORS_PLAN.nref,
    log:
        assessors_log("{collection}/run_{asplit}"),
    benchmark:
        assessors_benchmark("{collection}/run_{asplit}")
    priority: 20  # a long job: run it first when ready; short jobs fill the end
    conda:
        ENV["assess"]
    threads: 1
    resources:
        mem_mb=6000,
    params:
        function="run_split_and_nref",
        settings=recorded(ASSESSORS),
        collection=assessors_collection,
        seed=config["seed"],
    script:
        "../scripts/call.py"


rule assessors_maxrandom_requests:
    """Max random AUC requests: every validation/test LLM's label counts, t per search."""
    input:
        code=ASSESSORS_STEPS,
        success=ASSESSORS_PLAN.collections(ASSESSORS_PLAN.success),
        splits=ASSESSORS_PLAN.collections(ASSESSORS_PLAN.splits),
    output:
        requests=ASSESSORS_PLAN.requests,
    log:
        assessors_log("maxrandom_requests"),
    conda:
        ENV["core"]
    params:
        function="build_requests_file",
        collections=ASSESSORS_COLLECTIONS,
        settings=recorded(ASSESSORS),
    script:
        "../scripts/call.py"


rule assessors_make_selection:
    """Choose each method's combination on validation LLMs: Figure 2 data, Table 3 rows, the
    test AUCs against 0.5 (DeLong) and each winner's stability under resampling; for the
    claims ledger, every two methods' paired DeLong difference and each resample's winner."""
    input:
        code=ASSESSORS_STEPS,
        runs=assessors_run_files,
        predictions=assessors_prediction_files,
    output:
        figure2=report(
            ASSESSORS_PLAN.figure2_table,
            caption="../report/assessors_figure2_table.rst",
            category="assessors",
        ),
        table3=ASSESSORS_PLAN.table3,
        summary=ASSESSORS_PLAN.figure2_summary,
        paired=ASSESSORS_PLAN.figure2_paired,
        resamples=ASSESSORS_PLAN.table3_resamples,
    log:
        assessors_log("{collection}/select"),
    conda:
        ENV["core"]
    params:
        function="select_collection",
        seed=config["seed"],
    script:
        "../scripts/call.py"


rule assessors_make_figure2:
    """Figure 2: test AUC per method, split and test LLM, against chance (0.5), with the
    generic assessor's DeLong interval and winner stability per split."""
    input:
        code=ASSESSORS_STEPS,
        figure2=ASSESSORS_PLAN.figure2_table[0],
        summary=ASSESSORS_PLAN.figure2_summary,
    output:
        figure=report(
            ASSESSORS_PLAN.figure2,
            caption="../report/assessors_figure2.rst",
            category="assessors",
        ),
    log:
        assessors_log("{collection}/figure2"),
    conda:
        ENV["core"]
    params:
        function="make_figure2",
    script:
        "../scripts/call.py"


rule assessors_make_table3:
    """Table 3 of every collection, with the paper's choice and the max random val AUC."""
    input:
        code=ASSESSORS_STEPS,
        tables=ASSESSORS_PLAN.collections(ASSESSORS_PLAN.table3),
        baselines=ASSESSORS_PLAN.baselines,
    output:
        table=report(
            ASSESSORS_PLAN.table3_all,
            caption="../report/assessors_table3.rst",
            category="assessors",
        ),
    log:
        assessors_log("table3"),
    conda:
        ENV["core"]
    params:
        function="make_table3",
        collections=list(ASSESSORS_COLLECTIONS),
    script:
        "../scripts/call.py"


rule assessors_make_nref_figure:
    """Figures 8-9: AUC against the number of reference instances."""
    input:
        code=ASSESSORS_STEPS,
        runs=assessors_nref_files,
        baselines=ASSESSORS_PLAN.baselines,
    output:
        table=ASSESSORS_PLAN.nref_table,
        figure=report(
            ASSESSORS_PLAN.nref_figure,
            caption="../report/assessors_figure_nref.rst",
            category="assessors",
        ),
    log:
        assessors_log("{collection}/{fig}"),
    wildcard_constraints:
        fig="figure8|figure9",
    conda:
        ENV["core"]
    params:
        function="make_nref_figure",
        settings=recorded(ASSESSORS),
    script:
        "../scripts/call.py"


rule assessors_make_claims:
    """The claims ledger of paper 003: every claim with ours, its uncertainty and its verdict
    by the one rule, from the selection's paired DeLong tests and resamples and Figures 8-9."""
    input:
        code=code("evalsci.studies.assessors.claims"),
        summaries=ASSESSORS_PLAN.collections(ASSESSORS_PLAN.figure2_summary),
        paired=ASSESSORS_PLAN.collections(ASSESSORS_PLAN.figure2_paired),
        resamples=ASSESSORS_PLAN.collections(ASSESSORS_PLAN.table3_resamples),
        table3=ASSESSORS_PLAN.table3_all[0],
        nref=ASSESSORS_PLAN.nref_tables(),
    output:
        claims=report(
            ASSESSORS_PLAN.claims,
            caption="../report/assessors_claims.rst",
            category="assessors",
            subcategory="claims",
        ),
    log:
        assessors_log("claims"),
    conda:
        ENV["core"]
    params:
        function="make_claims",
        collections=list(ASSESSORS_COLLECTIONS),
        settings=recorded(ASSESSORS),
    script:
        "../scripts/call.py"


rule assessors_lomo_run:
    """Leave one model out on one benchmark: every method, n and held-out model."""
    input:
        unpack(assessors_lomo_source),
        code=ASSESSORS_STEPS,
    output:
        out=ASSESSORS_PLAN.lomo_runs,
    log:
        assessors_log("lomo/{benchmark}"),
    benchmark:
        assessors_benchmark("lomo/{benchmark}")
    wildcard_constraints:
        benchmark="|".join(ASSESSORS_LOMO_BENCHMARKS) or "NONE",
    conda:
        ENV["assess"]
    threads: 1
    params:
        function="run_lomo",
        cfg=recorded(ASSESSORS_LOMO),
        seed=config["seed"],
    script:
        "../scripts/call.py"


rule assessors_make_lomo:
    """The leave-one-model-out table, the default's paired tests and the error-vs-n figure."""
    input:
        code=ASSESSORS_STEPS,
        run_paths=ASSESSORS_PLAN.lomo_runs_all(),
    output:
        table=report(
            ASSESSORS_PLAN.lomo_table,
            caption="../report/assessors_lomo_table.rst",
            category="assessors",
        ),
        tests=ASSESSORS_PLAN.lomo_tests,
        figure=report(
            ASSESSORS_PLAN.lomo_figure,
            caption="../report/assessors_lomo_figure.rst",
            category="assessors",
        ),
    log:
        assessors_log("lomo/make"),
    conda:
        ENV["core"]
    params:
        function="make_lomo",
        cfg=recorded(ASSESSORS_LOMO),
    script:
        "../scripts/call.py"
