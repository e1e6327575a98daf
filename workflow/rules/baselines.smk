# `baselines` study rules (Yauney & Mimno, papers 000/001): see the Snakefile for its named
# targets. Every analysis reads per-prompt/per-example results either from the authors'
# released bundles or from our recompute (results/baselines/recompute/results/, written by
# baselines_recompute.smk in the authors' schema): config `baselines.source`.
#
# requests -> maxrandom (shared leaf) -> Table 1, Figures 1-4, 6, 7, 9-11, Section 5.3
# held-out predictions (authors' CSVs, or our seeded splits) -> Tables 3-4, Figures 5, 8
# per-example CSVs vs aggregated-results.json -> consistency check and data quirks

from evalsci.studies.baselines.settings import configured_cells as _bl_cells

BL = config["baselines"]
BL_RECOMPUTE_DIR = "results/baselines/recompute/results"
BL_BASELINES = "results/baselines/maxrandom/baselines.csv"
BL_DISTRIBUTIONS = "results/baselines/maxrandom/distributions.csv"
BL_PREDICTIONS = "results/baselines/data/heldout_predictions.csv"
BL_SPLITS = "results/baselines/data/heldout_splits.csv"
BL_FIGURES = [f"figure{i}" for i in range(1, 12)]
BL_RECOMPUTE = recompute("baselines")
# Our own held-out splits (always when recomputing; the authors' CSVs otherwise).
BL_RESPLIT = BL_RECOMPUTE or bool(BL["heldout"]["resplit"])
BL_AGGREGATED = (
    f"{BL_RECOMPUTE_DIR}/aggregated-results.json" if BL_RECOMPUTE else released("srb_aggregated")
)
BL_PER_EXAMPLE = (
    [f"{BL_RECOMPUTE_DIR}/{c.key}.csv.gz" for c in _bl_cells(BL, recompute=True)]
    if BL_RECOMPUTE
    else released("srb_per_example")
)
# Inputs per figure: held-out ROC/PR figures read predictions; analytic ones (2, 6, 7) only
# the maxrandom answers; the rest also per-prompt accuracies (Figure 1 the distributions).
# One job draws them all (baselines_make_figures).
BL_FIGURE_INPUTS = {
    name: (
        {"predictions": BL_PREDICTIONS}
        if name in ("figure5", "figure8")
        else {
            "baselines": BL_BASELINES,
            **({} if name in ("figure2", "figure6", "figure7") else {"aggregated": BL_AGGREGATED}),
            **({"distributions": BL_DISTRIBUTIONS} if name == "figure1" else {}),
        }
    )
    for name in BL_FIGURES
}


rule baselines_maxrandom_requests:
    """Every random baseline the study needs, as one request file for the maxrandom rule."""
    input:
        aggregated=BL_AGGREGATED,
        multi_prompt=released("multi_prompt"),
        splits=BL_SPLITS if BL_RESPLIT else [],
    output:
        requests="results/baselines/maxrandom/requests.csv",
    log:
        "logs/baselines/requests.log",
    conda:
        ENV["core"]
    params:
        cfg=BL,
        recompute=BL_RECOMPUTE,
    script:
        "../scripts/baselines_maxrandom_requests.py"


rule baselines_make_table1:
    """Table 1: standard vs maximum random baseline per experiment."""
    input:
        aggregated=BL_AGGREGATED,
        baselines=BL_BASELINES,
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
        cfg=BL,
        recompute=BL_RECOMPUTE,
    script:
        "../scripts/baselines_table1.py"


rule baselines_heldout_splits:
    """Section 5.2 procedure on per-example results: 100 seeded 75/25 splits per experiment,
    best of t prompts on the validation part."""
    input:
        per_example=BL_PER_EXAMPLE,
    output:
        splits=BL_SPLITS,
    log:
        "logs/baselines/heldout_splits.log",
    benchmark:
        "logs/baselines/heldout_splits.benchmark.tsv"
    conda:
        ENV["core"]
    threads: 2
    params:
        cfg=BL,
        recompute=BL_RECOMPUTE,
        seed=config["seed"],
    script:
        "../scripts/baselines_heldout_splits.py"


rule baselines_heldout_predictions:
    """Held-out predictions in the authors' schema, for every t: their CSVs, or ours."""
    input:
        source=[] if BL_RESPLIT else released("srb_heldout"),
        splits=BL_SPLITS if BL_RESPLIT else [],
        baselines=BL_BASELINES if BL_RESPLIT else [],
    output:
        predictions=BL_PREDICTIONS,
    log:
        "logs/baselines/heldout_predictions.log",
    conda:
        ENV["core"]
    script:
        "../scripts/baselines_heldout_predictions.py"


rule baselines_make_heldout_tables:
    """Tables 3-4: held-out prediction per model and per dataset (Section 5.2, App. D)."""
    input:
        predictions=BL_PREDICTIONS,
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
        baselines=BL_BASELINES,
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
        cfg=BL,
    script:
        "../scripts/baselines_section53.py"


rule baselines_make_per_example_check:
    """Per-example CSVs reproduce aggregated-results.json; the data's quirks, from the data."""
    input:
        per_example=BL_PER_EXAMPLE,
        aggregated=BL_AGGREGATED,
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
        cfg=BL,
        recompute=BL_RECOMPUTE,
    script:
        "../scripts/baselines_per_example_check.py"


rule baselines_make_figures:
    """Figures 1-11 (PDF + PNG). One job: the 11 figures share one Python start, the imports
    and one reading of their inputs."""
    input:
        **{k: v for name in BL_FIGURES for k, v in BL_FIGURE_INPUTS[name].items()},
    output:
        **{
            name: report(
                figure("baselines", name),
                caption=f"../report/baselines_{name}.rst",
                category="baselines",
                subcategory="figures",
            )
            for name in BL_FIGURES
        },
    log:
        "logs/baselines/figures.log",
    priority: 5  # a long job: run it first when ready; short jobs fill the end
    conda:
        ENV["core"]
    params:
        figures=BL_FIGURES,
        cfg=BL,
        recompute=BL_RECOMPUTE,
    script:
        "../scripts/baselines_figures.py"
