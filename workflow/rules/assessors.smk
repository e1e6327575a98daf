# `assessors` study rules (Pacchiardi et al., paper 003); named targets are in the Snakefile.
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
    output:
        instances="results/assessors/{collection}/data/instances.csv.gz",
        success="results/assessors/{collection}/data/success.csv.gz",
        coverage="results/assessors/{collection}/data/coverage.csv",
    log:
        "logs/assessors/{collection}/data.log",
    benchmark:
        "logs/assessors/{collection}/data.benchmark.tsv"
    priority: 20  # a long job: run it first when ready; short jobs fill the end
    conda:
        ENV["assess"]
    params:
        collection=assessors_collection,
        seed=config["seed"],
    script:
        "../scripts/assessors_data.py"


rule assessors_embed:
    """Sentence embeddings of every instance, computed once per collection."""
    input:
        instances="results/assessors/{collection}/data/instances.csv.gz",
    output:
        embeddings="results/assessors/{collection}/data/embeddings.npy",
    log:
        "logs/assessors/{collection}/embed.log",
    benchmark:
        "logs/assessors/{collection}/embed.benchmark.tsv"
    priority: 20  # a long job: run it first when ready; short jobs fill the end
    conda:
        ENV["lm"]
    # 1 thread: the same bits as 2 (torch_pinned; checked on the 3,000 predictaboard prompts)
    # and far fewer CPU-s: the second thread mostly spins (2026-11-24, docs/benchmarks.md)
    threads: 1
    resources:
        mem_mb=3000,
    params:
        embedding=ASSESSORS.embedding,
    script:
        "../scripts/assessors_embed.py"


rule assessors_splits:
    """In-distribution and out-of-distribution instance splits."""
    input:
        instances="results/assessors/{collection}/data/instances.csv.gz",
    output:
        splits="results/assessors/{collection}/data/splits.csv",
    log:
        "logs/assessors/{collection}/splits.log",
    priority: 20  # a long job: run it first when ready; short jobs fill the end
    conda:
        ENV["assess"]
    params:
        settings=ASSESSORS,
        collection=assessors_collection,
        seed=config["seed"],
    script:
        "../scripts/assessors_splits.py"


rule assessors_irt:
    """The IRT selectors' item features of every split: one torch start per collection."""
    input:
        instances="results/assessors/{collection}/data/instances.csv.gz",
        success="results/assessors/{collection}/data/success.csv.gz",
        splits="results/assessors/{collection}/data/splits.csv",
    output:
        irt="results/assessors/{collection}/data/irt.npz",
    log:
        "logs/assessors/{collection}/irt.log",
    priority: 20  # a long job: run it first when ready; short jobs fill the end
    conda:
        ENV["assess"]
    threads: 1
    params:
        settings=ASSESSORS,
        collection=assessors_collection,
        seed=config["seed"],
    script:
        "../scripts/assessors_irt.py"


rule assessors_run:
    """Every generic-assessor combination and every baseline on one split, then the n_ref
    sweep of Figures 8-9 on it (its point at the configured n_ref is the run's own). One job:
    the sweep shares the run's Python start, imports and data (about 6 CPU-s per split)."""
    input:
        **assessors_data_files("{collection}"),
    output:
        results="results/assessors/{collection}/runs/{asplit}.csv.gz",
        references="results/assessors/{collection}/runs/{asplit}_references.json",
        predictions="results/assessors/{collection}/runs/{asplit}_predictions.npz",
        nref="results/assessors/{collection}/nref/{asplit}.csv.gz",
    log:
        "logs/assessors/{collection}/run_{asplit}.log",
    benchmark:
        "logs/assessors/{collection}/run_{asplit}.benchmark.tsv"
    priority: 20  # a long job: run it first when ready; short jobs fill the end
    conda:
        ENV["assess"]
    threads: 1
    resources:
        mem_mb=6000,
    params:
        settings=ASSESSORS,
        collection=assessors_collection,
        seed=config["seed"],
    script:
        "../scripts/assessors_run.py"


rule assessors_maxrandom_requests:
    """Max random AUC requests: every validation/test LLM's label counts, t per search."""
    input:
        success=[assessors_data_files(c)["success"] for c in ASSESSORS_COLLECTIONS],
        splits=[assessors_data_files(c)["splits"] for c in ASSESSORS_COLLECTIONS],
    output:
        requests=maxrandom_file("assessors", "requests"),
    log:
        "logs/assessors/maxrandom_requests.log",
    conda:
        ENV["core"]
    params:
        collections=ASSESSORS_COLLECTIONS,
        settings=ASSESSORS,
    script:
        "../scripts/assessors_maxrandom_requests.py"


rule assessors_make_selection:
    """Choose each method's combination on validation LLMs: Figure 2 data, Table 3 rows, the
    test AUCs against 0.5 (DeLong) and each winner's stability under resampling."""
    input:
        runs=assessors_run_files,
        predictions=assessors_prediction_files,
    output:
        figure2=report(
            multiext("results/assessors/{collection}/tables/figure2", ".csv", ".md", ".tex"),
            caption="../report/assessors_figure2_table.rst",
            category="assessors",
        ),
        table3="results/assessors/{collection}/tables/table3.csv",
        summary="results/assessors/{collection}/tables/figure2_summary.csv",
    log:
        "logs/assessors/{collection}/select.log",
    conda:
        ENV["core"]
    params:
        seed=config["seed"],
    script:
        "../scripts/assessors_select.py"


rule assessors_make_figure2:
    """Figure 2: test AUC per method, split and test LLM, against chance (0.5), with the
    generic assessor's DeLong interval and winner stability per split."""
    input:
        figure2="results/assessors/{collection}/tables/figure2.csv",
        summary="results/assessors/{collection}/tables/figure2_summary.csv",
    output:
        figure=report(
            multiext("results/assessors/{collection}/figures/figure2", ".pdf", ".png"),
            caption="../report/assessors_figure2.rst",
            category="assessors",
        ),
    log:
        "logs/assessors/{collection}/figure2.log",
    conda:
        ENV["core"]
    script:
        "../scripts/assessors_figure2.py"


rule assessors_make_table3:
    """Table 3 of every collection, with the paper's choice and the max random val AUC."""
    input:
        tables=[f"{assessors_dir(c)}/tables/table3.csv" for c in ASSESSORS_COLLECTIONS],
        baselines=maxrandom_file("assessors"),
    output:
        table=report(
            table("assessors", "table3"),
            caption="../report/assessors_table3.rst",
            category="assessors",
        ),
    log:
        "logs/assessors/table3.log",
    conda:
        ENV["core"]
    params:
        collections=list(ASSESSORS_COLLECTIONS),
    script:
        "../scripts/assessors_table3.py"


rule assessors_make_nref_figure:
    """Figures 8-9: AUC against the number of reference instances."""
    input:
        runs=assessors_nref_files,
        baselines=maxrandom_file("assessors"),
    output:
        table="results/assessors/{collection}/tables/{fig}.csv",
        figure=report(
            multiext("results/assessors/{collection}/figures/{fig}", ".pdf", ".png"),
            caption="../report/assessors_figure_nref.rst",
            category="assessors",
        ),
    log:
        "logs/assessors/{collection}/{fig}.log",
    wildcard_constraints:
        fig="figure8|figure9",
    conda:
        ENV["core"]
    params:
        settings=ASSESSORS,
    script:
        "../scripts/assessors_figure_nref.py"


rule assessors_lomo_run:
    """Leave one model out on one benchmark: every method, n and held-out model."""
    input:
        unpack(assessors_lomo_source),
    output:
        runs="results/assessors/lomo/{bench}.csv.gz",
    log:
        "logs/assessors/lomo/{bench}.log",
    benchmark:
        "logs/assessors/lomo/{bench}.benchmark.tsv"
    wildcard_constraints:
        bench="|".join(ASSESSORS_LOMO_BENCHMARKS) or "NONE",
    conda:
        ENV["assess"]
    threads: 1
    params:
        cfg=ASSESSORS_LOMO,
        seed=config["seed"],
    script:
        "../scripts/assessors_lomo_run.py"


rule assessors_make_lomo:
    """The leave-one-model-out table, the default's paired tests and the error-vs-n figure."""
    input:
        runs=expand("results/assessors/lomo/{bench}.csv.gz", bench=ASSESSORS_LOMO_BENCHMARKS),
    output:
        table=report(
            assessors_lomo_outputs("table"),
            caption="../report/assessors_lomo_table.rst",
            category="assessors",
        ),
        tests=assessors_lomo_outputs("tests"),
        figure=report(
            assessors_lomo_outputs("figure"),
            caption="../report/assessors_lomo_figure.rst",
            category="assessors",
        ),
    log:
        "logs/assessors/lomo/make.log",
    conda:
        ENV["core"]
    params:
        cfg=ASSESSORS_LOMO,
    script:
        "../scripts/assessors_lomo.py"
