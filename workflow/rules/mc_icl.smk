# `mc_icl` study rules (Schoch & Ji, paper 004): see the Snakefile for its named targets.
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
    output:
        scores="results/mc_icl/scores/{model}/{dataset}/{mc_icl_run}.parquet",
    log:
        "logs/mc_icl/shard/{model}/{dataset}/{mc_icl_run}.log",
    benchmark:
        "logs/mc_icl/shard/{model}/{dataset}/{mc_icl_run}.benchmark.tsv"
    conda:
        ENV["gpu"]
    threads: config["lm"]["threads"]
    resources:
        gpu=1,
        mem_mb=32000,
        runtime=240,
    params:
        params=MC_ICL,
        seed=config["seed"],
        spec=mc_icl_shard_model_spec,
        lm=config["lm"],
    script:
        "../scripts/mc_icl_shard.py"


rule mc_icl_make_accuracy_tables:
    """Accuracy of every (model, dataset, trial, permutation, k) and the per-dataset summary."""
    input:
        scores=mc_icl_all_trial_scores,
        baselines=maxrandom_file("mc_icl"),
    output:
        accuracy="results/mc_icl/tables/accuracy_by_k.csv",
        summary=report(
            table("mc_icl", "summary"),
            caption="../report/mc_icl_summary.rst",
            category="mc_icl",
        ),
    log:
        "logs/mc_icl/accuracy.log",
    benchmark:
        "logs/mc_icl/accuracy.benchmark.tsv"
    conda:
        ENV["core"]
    params:
        params=MC_ICL,
    script:
        "../scripts/mc_icl_accuracy_tables.py"


rule mc_icl_maxrandom_requests:
    """The (n, labels, t) of every selection Figures 1-4 invite (answered by rule maxrandom)."""
    output:
        requests=maxrandom_file("mc_icl", "requests"),
    log:
        "logs/mc_icl/maxrandom_requests.log",
    benchmark:
        "logs/mc_icl/maxrandom_requests.benchmark.tsv"
    conda:
        ENV["core"]
    params:
        params=MC_ICL,
        seed=config["seed"],
    script:
        "../scripts/mc_icl_maxrandom_requests.py"


rule mc_icl_selection:
    """Section 5.2: per-example Monte Carlo values, Z-scores and the high/low/random sets."""
    input:
        unpack(mc_icl_selection_inputs),
    output:
        values="results/mc_icl/selection/{model}/{dataset}/values.csv",
        sets="results/mc_icl/selection/{model}/{dataset}/sets.json",
    log:
        "logs/mc_icl/select/{model}/{dataset}.log",
    benchmark:
        "logs/mc_icl/select/{model}/{dataset}.benchmark.tsv"
    conda:
        ENV["core"]
    params:
        params=MC_ICL,
        seed=config["seed"],
    script:
        "../scripts/mc_icl_selection.py"


rule mc_icl_make_figure:
    """Figures 1-3 and the appendix figures 5-20 from the accuracy table."""
    input:
        accuracy="results/mc_icl/tables/accuracy_by_k.csv",
        baselines=maxrandom_file("mc_icl"),
    output:
        report(
            multiext("results/mc_icl/figures/figure{n}", ".pdf", ".png"),
            caption="../report/mc_icl_figure.rst",
            category="mc_icl",
            subcategory="figure {n}",
        ),
    log:
        "logs/mc_icl/figure{n}.log",
    benchmark:
        "logs/mc_icl/figure{n}.benchmark.tsv"
    wildcard_constraints:
        n=r"[1-35-9]|1[0-9]|20",
    conda:
        ENV["core"]
    params:
        params=MC_ICL,
    script:
        "../scripts/mc_icl_figure.py"


rule mc_icl_figure4_data:
    """Accuracy of the Section 5.2 set runs, every (model, dataset, set, permutation, k)."""
    input:
        scores=mc_icl_all_set_scores,
        sets=mc_icl_selected_sets,
    output:
        accuracy="results/mc_icl/tables/accuracy_by_set.csv",
    log:
        "logs/mc_icl/figure4_data.log",
    benchmark:
        "logs/mc_icl/figure4_data.benchmark.tsv"
    conda:
        ENV["core"]
    script:
        "../scripts/mc_icl_figure4_data.py"


rule mc_icl_make_figure4:
    """Figure 4: high, low and random sets under the same Monte Carlo sampling."""
    input:
        accuracy="results/mc_icl/tables/accuracy_by_set.csv",
        baselines=maxrandom_file("mc_icl"),
    output:
        report(
            figure("mc_icl", "figure4"),
            caption="../report/mc_icl_figure4.rst",
            category="mc_icl",
        ),
    log:
        "logs/mc_icl/figure4.log",
    benchmark:
        "logs/mc_icl/figure4.benchmark.tsv"
    conda:
        ENV["core"]
    script:
        "../scripts/mc_icl_figure4.py"
