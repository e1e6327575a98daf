# `baselines` study rules (Yauney & Mimno, papers 000/001): see the Snakefile for its named
# targets. Every analysis reads per-prompt/per-example results either from the authors'
# released bundles or from our recompute (results/baselines/recompute/results/, written by
# baselines_recompute.smk in the authors' schema): config `baselines.source`.
#
# requests -> maxrandom (shared leaf) -> Table 1, Figures 1-4, 6, 7, 9-11, Section 5.3
# held-out predictions (authors' CSVs, or our seeded splits) -> Tables 3-4, Figures 5, 8
# per-example CSVs vs aggregated-results.json -> consistency check and data quirks


include: "baselines_common.smk"


rule baselines_maxrandom_requests:
    """Every random baseline the study needs, as one request file for the maxrandom rule."""
    input:
        aggregated=BASELINES_AGGREGATED,
        multi_prompt=released("multi_prompt"),
        splits=BASELINES_SPLITS if BASELINES_RESPLIT else [],
    output:
        requests=maxrandom_file("baselines", "requests"),
    log:
        "logs/baselines/requests.log",
    conda:
        ENV["core"]
    params:
        cfg=BASELINES,
        recompute=BASELINES_RECOMPUTE,
    script:
        "../scripts/baselines_maxrandom_requests.py"


rule baselines_make_table1:
    """Table 1: standard vs maximum random baseline per experiment."""
    input:
        aggregated=BASELINES_AGGREGATED,
        baselines=maxrandom_file("baselines"),
    output:
        report(
            table("baselines", "table1"),
            caption="../report/baselines_table1.rst",
            category="baselines",
            subcategory="tables",
        ),
    log:
        "logs/baselines/table1.log",
    conda:
        ENV["core"]
    params:
        cfg=BASELINES,
        recompute=BASELINES_RECOMPUTE,
    script:
        "../scripts/baselines_table1.py"


rule baselines_heldout_splits:
    """Section 5.2 procedure on per-example results: 100 seeded 75/25 splits per experiment,
    best of t prompts on the validation part."""
    input:
        per_example=BASELINES_PER_EXAMPLE,
    output:
        splits=BASELINES_SPLITS,
    log:
        "logs/baselines/heldout_splits.log",
    benchmark:
        "logs/baselines/heldout_splits.benchmark.tsv"
    conda:
        ENV["core"]
    threads: 2
    params:
        cfg=BASELINES,
        recompute=BASELINES_RECOMPUTE,
        seed=config["seed"],
    script:
        "../scripts/baselines_heldout_splits.py"


rule baselines_heldout_predictions:
    """Held-out predictions in the authors' schema, for every t: their CSVs, or ours."""
    input:
        source=[] if BASELINES_RESPLIT else released("srb_heldout"),
        splits=BASELINES_SPLITS if BASELINES_RESPLIT else [],
        baselines=maxrandom_file("baselines") if BASELINES_RESPLIT else [],
    output:
        predictions=BASELINES_PREDICTIONS,
    log:
        "logs/baselines/heldout_predictions.log",
    conda:
        ENV["core"]
    script:
        "../scripts/baselines_heldout_predictions.py"


rule baselines_make_heldout_tables:
    """Tables 3-4: held-out prediction per model and per dataset (Section 5.2, App. D)."""
    input:
        predictions=BASELINES_PREDICTIONS,
    output:
        table3=report(
            table("baselines", "table3"),
            caption="../report/baselines_table3.rst",
            category="baselines",
            subcategory="tables",
        ),
        table4=report(
            table("baselines", "table4"),
            caption="../report/baselines_table4.rst",
            category="baselines",
            subcategory="tables",
        ),
    log:
        "logs/baselines/heldout_tables.log",
    conda:
        ENV["core"]
    script:
        "../scripts/baselines_heldout_tables.py"


rule baselines_make_section53:
    """Section 5.3: Mizrahi et al.'s multi-prompt results against both baselines."""
    input:
        multi_prompt=released("multi_prompt"),
        baselines=maxrandom_file("baselines"),
    output:
        table=report(
            table("baselines", "section53"),
            caption="../report/baselines_section53.rst",
            category="baselines",
            subcategory="tables",
        ),
        experiments="results/baselines/data/section53_experiments.csv",
    log:
        "logs/baselines/section53.log",
    conda:
        ENV["core"]
    params:
        cfg=BASELINES,
    script:
        "../scripts/baselines_section53.py"


rule baselines_make_per_example_check:
    """Per-example CSVs reproduce aggregated-results.json; the data's quirks, from the data."""
    input:
        per_example=BASELINES_PER_EXAMPLE,
        aggregated=BASELINES_AGGREGATED,
        subsampled=released("srb_aggregated"),
        bigbench=released("bigbench"),
    output:
        checks=report(
            "results/baselines/checks/per_example_vs_aggregated.csv",
            caption="../report/baselines_per_example_check.rst",
            category="baselines",
            subcategory="checks",
        ),
        pairs="results/baselines/checks/instruct_vs_base.csv",
        quirks="results/baselines/checks/quirks.md",
    log:
        "logs/baselines/per_example_check.log",
    benchmark:
        "logs/baselines/per_example_check.benchmark.tsv"
    conda:
        ENV["core"]
    threads: 2
    params:
        cfg=BASELINES,
        recompute=BASELINES_RECOMPUTE,
    script:
        "../scripts/baselines_per_example_check.py"


rule baselines_make_figures:
    """Figures 1-11 (PDF + PNG). One job: the 11 figures share one Python start, the imports
    and one reading of their inputs."""
    input:
        **{k: v for name in BASELINES_FIGURES for k, v in BASELINES_FIGURE_INPUTS[name].items()},
    output:
        **{
            name: report(
                figure("baselines", name),
                caption=f"../report/baselines_{name}.rst",
                category="baselines",
                subcategory="figures",
            )
            for name in BASELINES_FIGURES
        },
    log:
        "logs/baselines/figures.log",
    priority: 5  # a long job: run it first when ready; short jobs fill the end
    conda:
        ENV["core"]
    params:
        figures=BASELINES_FIGURES,
        cfg=BASELINES,
        recompute=BASELINES_RECOMPUTE,
    script:
        "../scripts/baselines_figures.py"
