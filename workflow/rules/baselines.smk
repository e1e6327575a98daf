# `baselines` study rules (Yauney & Mimno, papers 000/001): see the Snakefile for its named
# targets. Every analysis reads per-prompt/per-example results either from the authors'
# released bundles or from our recompute (written by baselines_recompute.smk in the authors'
# schema): config `baselines.source`. Paths: the study's plan (BASELINES_PLAN,
# evalsci.studies.baselines.plan); each rule runs the function `function` of
# evalsci.studies.baselines.steps with its named inputs, outputs and params.
#
# requests -> maxrandom (shared leaf) -> Table 1, Figures 1-4, 6, 7, 9-11, Section 5.3
# held-out predictions (authors' CSVs, or our seeded splits) -> Tables 3-4, Figures 5, 8
# per-example CSVs vs aggregated-results.json -> consistency check and data quirks


include: "baselines_common.smk"


rule baselines_maxrandom_requests:
    """Every random baseline the study needs, as one request file for the maxrandom rule."""
    input:
        code=BASELINES_STEPS,
        aggregated=BASELINES_PLAN.aggregated,
        multi_prompt=released("multi_prompt"),
        splits=BASELINES_PLAN.splits if BASELINES_PLAN.resplit else [],
    output:
        requests=BASELINES_PLAN.requests,
    log:
        baselines_log("requests"),
    conda:
        ENV["core"]
    params:
        function="requests",
        cfg=BASELINES,
        recompute=BASELINES_PLAN.recompute,
    script:
        "../scripts/call.py"


rule baselines_make_table1:
    """Table 1: standard vs maximum random baseline per experiment."""
    input:
        code=BASELINES_STEPS,
        aggregated=BASELINES_PLAN.aggregated,
        baselines=BASELINES_PLAN.baselines,
    output:
        table=report(
            BASELINES_PLAN.outputs["table1"],
            caption="../report/baselines_table1.rst",
            category="baselines",
            subcategory="tables",
        ),
    log:
        baselines_log("table1"),
    conda:
        ENV["core"]
    params:
        function="make_table1",
        cfg=BASELINES,
        recompute=BASELINES_PLAN.recompute,
    script:
        "../scripts/call.py"


rule baselines_heldout_splits:
    """Section 5.2 procedure on per-example results: 100 seeded 75/25 splits per experiment,
    best of t prompts on the validation part."""
    input:
        code=BASELINES_STEPS,
        per_example=BASELINES_PLAN.per_example,
    output:
        splits=BASELINES_PLAN.splits,
    log:
        baselines_log("heldout_splits"),
    benchmark:
        baselines_benchmark("heldout_splits")
    conda:
        ENV["core"]
    threads: 2
    params:
        function="heldout_splits",
        cfg=BASELINES,
        recompute=BASELINES_PLAN.recompute,
        seed=config["seed"],
    script:
        "../scripts/call.py"


rule baselines_heldout_predictions:
    """Held-out predictions in the authors' schema, for every t: their CSVs, or ours."""
    input:
        code=BASELINES_STEPS,
        source=[] if BASELINES_PLAN.resplit else released("srb_heldout"),
        splits=BASELINES_PLAN.splits if BASELINES_PLAN.resplit else [],
        baselines=BASELINES_PLAN.baselines if BASELINES_PLAN.resplit else [],
    output:
        predictions=BASELINES_PLAN.predictions,
    log:
        baselines_log("heldout_predictions"),
    conda:
        ENV["core"]
    params:
        function="heldout_predictions",
    script:
        "../scripts/call.py"


rule baselines_make_heldout_tables:
    """Tables 3-4: held-out prediction per model and per dataset (Section 5.2, App. D)."""
    input:
        code=BASELINES_STEPS,
        predictions=BASELINES_PLAN.predictions,
    output:
        table3=report(
            BASELINES_PLAN.outputs["table3"],
            caption="../report/baselines_table3.rst",
            category="baselines",
            subcategory="tables",
        ),
        table4=report(
            BASELINES_PLAN.outputs["table4"],
            caption="../report/baselines_table4.rst",
            category="baselines",
            subcategory="tables",
        ),
    log:
        baselines_log("heldout_tables"),
    conda:
        ENV["core"]
    params:
        function="heldout_tables",
    script:
        "../scripts/call.py"


rule baselines_make_section53:
    """Section 5.3: Mizrahi et al.'s multi-prompt results against both baselines."""
    input:
        code=BASELINES_STEPS,
        multi_prompt=released("multi_prompt"),
        baselines=BASELINES_PLAN.baselines,
    output:
        table=report(
            BASELINES_PLAN.outputs["section53"],
            caption="../report/baselines_section53.rst",
            category="baselines",
            subcategory="tables",
        ),
        experiments=BASELINES_PLAN.section53_experiments,
    log:
        baselines_log("section53"),
    conda:
        ENV["core"]
    params:
        function="make_section53",
        cfg=BASELINES,
    script:
        "../scripts/call.py"


rule baselines_make_per_example_check:
    """Per-example CSVs reproduce aggregated-results.json; the data's quirks, from the data."""
    input:
        code=BASELINES_STEPS,
        per_example=BASELINES_PLAN.per_example,
        aggregated=BASELINES_PLAN.aggregated,
        subsampled=released("srb_aggregated"),
        bigbench=released("bigbench"),
    output:
        checks=report(
            BASELINES_PLAN.checks["checks"],
            caption="../report/baselines_per_example_check.rst",
            category="baselines",
            subcategory="checks",
        ),
        pairs=BASELINES_PLAN.checks["pairs"],
        quirks=BASELINES_PLAN.checks["quirks"],
    log:
        baselines_log("per_example_check"),
    benchmark:
        baselines_benchmark("per_example_check")
    conda:
        ENV["core"]
    threads: 2
    params:
        function="per_example_check",
        cfg=BASELINES,
        recompute=BASELINES_PLAN.recompute,
    script:
        "../scripts/call.py"


rule baselines_make_claims:
    """The claims ledger of papers 000/001: every claim, ours, its uncertainty and the verdict
    by the one rule (evalsci.stats.agreement); `evalsci claims` prints it."""
    input:
        code=code("evalsci.studies.baselines.claims"),
        table1=BASELINES_PLAN.csv("table1"),
        table3=BASELINES_PLAN.csv("table3"),
        table4=BASELINES_PLAN.csv("table4"),
        predictions=BASELINES_PLAN.predictions,
        section53=BASELINES_PLAN.csv("section53"),
        section53_experiments=BASELINES_PLAN.section53_experiments,
        figure8_001=BASELINES_PLAN.csv("figure8_001"),
        # the curves of Figures 3 and 4 (the released results only)
        aggregated=[] if BASELINES_PLAN.recompute else BASELINES_PLAN.aggregated,
        baselines=BASELINES_PLAN.baselines,
    output:
        claims=report(
            BASELINES_PLAN.csv("claims"),
            caption="../report/baselines_claims.rst",
            category="baselines",
            subcategory="claims",
        ),
    log:
        baselines_log("claims"),
    conda:
        ENV["core"]
    params:
        function="make_claims",
        recompute=BASELINES_PLAN.recompute,
    script:
        "../scripts/call.py"


rule baselines_make_figures:
    """Figures 1-11 and 001's Figure 9 (PDF + PNG). One job: the figures share one Python
    start, the imports and one reading of their inputs."""
    input:
        code=BASELINES_STEPS,
        aggregated=BASELINES_PLAN.aggregated,
        baselines=BASELINES_PLAN.baselines,
        distributions=BASELINES_PLAN.distributions,
        predictions=BASELINES_PLAN.predictions,
    output:
        **{
            name: report(
                BASELINES_PLAN.outputs[name],
                caption=f"../report/baselines_{name}.rst",
                category="baselines",
                subcategory="figures",
            )
            for name in BASELINES_FIGURES
        },
    log:
        baselines_log("figures"),
    priority: 5  # a long job: run it first when ready; short jobs fill the end
    conda:
        ENV["core"]
    params:
        function="make_figures",
        cfg=BASELINES,
        recompute=BASELINES_PLAN.recompute,
    script:
        "../scripts/call.py"


rule baselines_make_figure8_001:
    """001's Figure 8: how far the max random baseline lies above the standard one against t,
    per BBL and BBH task (a function of each task's n and choices; no model results)."""
    input:
        code=code("evalsci.studies.baselines.figures"),
    output:
        figure=report(
            BASELINES_PLAN.outputs["figure8_001"],
            caption="../report/baselines_figure8_001.rst",
            category="baselines",
            subcategory="figures",
        ),
    log:
        baselines_log("figure8_001"),
    conda:
        ENV["core"]
    params:
        function="make_figure8_001",
    script:
        "../scripts/call.py"
