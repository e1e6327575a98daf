# evalsci: one DAG that regenerates the tables and figures of four papers on
# LM evaluation methodology. This file is the table of contents: each named rule below is
# one paper artefact (`snakemake --cores 2 baselines_table1`). Rules that make them live in
# workflow/rules/, the work itself in the `evalsci` package (src/evalsci).
from snakemake.utils import min_version

min_version("9.0")


# First, and the only file that changes anything while the workflow is read: sys.path, the
# configuration (config.yaml, read strictly, resolved over the study presets), the
# environment of every job.
include: "workflow/rules/setup.smk"


report: "workflow/report/workflow.rst"


include: "workflow/rules/runs.smk"
include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/maxrandom.smk"
include: "workflow/rules/lm.smk"
include: "workflow/rules/baselines.smk"
include: "workflow/rules/baselines_recompute.smk"
# tapt_recompute first: tapt.smk lists the recompute accuracies at parse time.
include: "workflow/rules/tapt_recompute.smk"
include: "workflow/rules/tapt.smk"
include: "workflow/rules/assessors.smk"
include: "workflow/rules/mc_icl.smk"
include: "workflow/rules/audit.smk"
include: "workflow/rules/docs.smk"


# Every artefact of the enabled studies (config `studies`) that their source allows.
rule all:
    default_target: True
    input:
        all_targets,


# ---------------------------------------------------------------------------------------
# baselines: Yauney & Mimno, Stronger Random Baselines for In-Context Learning (000/001)
# ---------------------------------------------------------------------------------------
# Table 1: standard vs maximum random baseline over 288 experiments (255 / 199 / 56).
rule baselines_table1:
    input:
        table("baselines", "table1"),
    localrule: True


# Table 2: the same judgement for non-quantized models (Appendix C), from our own NF4 and
# full-precision inference (recompute only: the authors released no non-quantized results).
rule baselines_table2:
    input:
        table("baselines", "table2"),
    localrule: True


# Tables 3, 4: held-out prediction per model / per dataset (Section 5.2, Appendix D).
rule baselines_table3:
    input:
        table("baselines", "table3"),
    localrule: True


rule baselines_table4:
    input:
        table("baselines", "table4"),
    localrule: True


# Section 5.3: Mizrahi et al.'s multi-prompt results (BBH 165, BBL 117 experiments).
rule baselines_section53:
    input:
        table("baselines", "section53"),
    localrule: True


# Figures 1-11 of the conference version (001 numbers 8-11 as 10-13).
rule baselines_figure1:
    input:
        figure("baselines", "figure1"),
    localrule: True


rule baselines_figure2:
    input:
        figure("baselines", "figure2"),
    localrule: True


rule baselines_figure3:
    input:
        figure("baselines", "figure3"),
    localrule: True


rule baselines_figure4:
    input:
        figure("baselines", "figure4"),
    localrule: True


rule baselines_figure5:
    input:
        figure("baselines", "figure5"),
    localrule: True


rule baselines_figure6:
    input:
        figure("baselines", "figure6"),
    localrule: True


rule baselines_figure7:
    input:
        figure("baselines", "figure7"),
    localrule: True


# 001's Figure 9: p-value under the max random baseline against BIG-bench's normalized score,
# per BBL and BBH task (a function of each task's n and choices; no model results needed).
rule baselines_figure9_001:
    input:
        figure("baselines", "figure9_001"),
    localrule: True


rule baselines_figure8:
    input:
        figure("baselines", "figure8"),
    localrule: True


rule baselines_figure9:
    input:
        figure("baselines", "figure9"),
    localrule: True


rule baselines_figure10:
    input:
        figure("baselines", "figure10"),
    localrule: True


rule baselines_figure11:
    input:
        figure("baselines", "figure11"),
    localrule: True


# Per-example released CSVs reproduce aggregated-results.json; the data's quirks.
rule baselines_per_example_check:
    input:
        "results/baselines/checks/per_example_vs_aggregated.csv",
        "results/baselines/checks/quirks.md",
    localrule: True


# ---------------------------------------------------------------------------------------
# tapt: Dubey, task-adaptive pretraining on unlabeled test text (002)
# ---------------------------------------------------------------------------------------


rule tapt_table1:
    input:
        table("tapt", "table1"),
    localrule: True


rule tapt_task_level:
    input:
        table("tapt", "task_level"),
    localrule: True


rule tapt_differences:
    input:
        tapt_targets("differences"),
    localrule: True


rule tapt_permutation:
    input:
        table("tapt", "permutation_tests"),
        table("tapt", "permutation_summary"),
    localrule: True


rule tapt_beta_posteriors:
    input:
        table("tapt", "beta_posteriors"),
    localrule: True


rule tapt_posterior_predictive:
    input:
        tapt_targets("posterior_predictive"),
    localrule: True


rule tapt_meta_analysis:
    input:
        tapt_targets("meta_analysis"),
    localrule: True


rule tapt_simulations:
    input:
        table("tapt", "prior_predictive"),
        figure("tapt", "prior_predictive"),
        table("tapt", "recovery"),
        figure("tapt", "recovery"),
    localrule: True


rule tapt_pca:
    input:
        table("tapt", "pca"),
        figure("tapt", "pca"),
    localrule: True


# ---------------------------------------------------------------------------------------
# assessors: Pacchiardi et al., 100 instances is all you need (003)
# ---------------------------------------------------------------------------------------
# Per collection (config assessors.collections; results/assessors/<collection>/).
# Figure 2: test AUC of generic assessor vs baselines per split and test LLM (+ its data).
rule assessors_figure2:
    input:
        [assessors_figure(c, "figure2") for c in ASSESSORS_COLLECTIONS],
        [assessors_table(c, "figure2") for c in ASSESSORS_COLLECTIONS],
    localrule: True


# Table 3: the winning combination (features, selector, classifier) per split.
rule assessors_table3:
    input:
        table("assessors", "table3"),
    localrule: True


# Figures 8-9: AUC against the number of reference instances (8: KindsOfReasoning stand-in,
# 9: HELM-Lite stand-in; config `nref_figure`).
rule assessors_figure8:
    input:
        [assessors_figure(c, "figure8") for c in assessors_nref_collections("figure8")],
    localrule: True


rule assessors_figure9:
    input:
        [assessors_figure(c, "figure9") for c in assessors_nref_collections("figure9")],
    localrule: True


# Beyond the paper (issue 36): leave one model out on the Open LLM Leaderboard v2 and
# cfi_ground_truth, `evalsci reference`'s default against tinyBenchmarks, the paper's generic
# assessor and random items (config assessors.lomo): table, paired tests, error-vs-n figure.
rule assessors_lomo:
    input:
        assessors_lomo_outputs("table") if ASSESSORS_LOMO_BENCHMARKS else [],
        assessors_lomo_outputs("tests") if ASSESSORS_LOMO_BENCHMARKS else [],
        assessors_lomo_outputs("figure") if ASSESSORS_LOMO_BENCHMARKS else [],
    localrule: True


# ---------------------------------------------------------------------------------------
# mc_icl: Schoch & Ji, Monte Carlo sampling for analyzing in-context examples (004)
# ---------------------------------------------------------------------------------------
# Inference runs only for these targets or with recompute=true (the authors released no
# results). Parameters: the mc_icl preset (workflow/presets/mc_icl/; default: SmolLM2 on 4
# offline tasks, CPU).
# Figure 1: accuracy against k per model and dataset (mean of P permutations, spread over
# trials); its data results/mc_icl/tables/accuracy_by_k.csv; plus the summary table.
rule mc_icl_figure1:
    input:
        figure("mc_icl", "figure1"),
        "results/mc_icl/tables/accuracy_by_k.csv",
        table("mc_icl", "summary"),
    localrule: True


# Figure 2: individual permutations and their mean, one trial (paper: SST-2).
rule mc_icl_figure2:
    input:
        figure("mc_icl", "figure2"),
    localrule: True


# Figure 3: one-shot accuracy per permutation against zero-shot (paper: MNLI).
rule mc_icl_figure3:
    input:
        figure("mc_icl", "figure3"),
    localrule: True


# Figure 4: the Z-score selected high/low sets against a random set (Section 5.2).
rule mc_icl_figure4:
    input:
        figure("mc_icl", "figure4"),
    localrule: True


# Figures 5-12: one-shot against zero-shot per dataset (those the configuration runs).
rule mc_icl_figures_one_shot:
    input:
        [figure("mc_icl", f"figure{n}") for n in MC_ICL_ONE_SHOT_FIGURES],
    localrule: True


# Figures 13-20: per-trial permutation curves per dataset (those the configuration runs).
rule mc_icl_figures_trials:
    input:
        [figure("mc_icl", f"figure{n}") for n in MC_ICL_TRIAL_FIGURES],
    localrule: True


# ---------------------------------------------------------------------------------------
# audit: the max random baseline applied to public many-model results (docs/audit.md)
# ---------------------------------------------------------------------------------------
# Open LLM Leaderboard v2: per multiple-choice task, runs above the standard / max random
# baseline (t = rows, t = models), per-run p-values, the runs figure, flipped share vs t.
rule audit_open_llm_leaderboard:
    input:
        table("audit", "open_llm_leaderboard_v2"),
        audit_detail_file("open_llm_leaderboard_v2"),
        figure("audit", "open_llm_leaderboard_v2"),
        AUDIT_SCOPE,
        table("audit", "open_llm_leaderboard_v2_sweep"),
        figure("audit", "flipped_share"),
    localrule: True


# Mizrahi et al.'s BBH/BBL paraphrases: each model's best paraphrase, t = paraphrases.
rule audit_mizrahi_paraphrases:
    input:
        table("audit", "mizrahi_paraphrases"),
        audit_detail_file("mizrahi_paraphrases"),
        figure("audit", "mizrahi_paraphrases"),
    localrule: True


# Yauney & Mimno's 288 experiments: every prompt against the max of t = prompts.
rule audit_baselines_prompts:
    input:
        table("audit", "baselines_prompts"),
        audit_detail_file("baselines_prompts"),
        figure("audit", "baselines_prompts"),
    localrule: True


# The 14 OpenAI LLMs of the evals logs (cfi bundle): t = 14 per dataset.
rule audit_openai_evals:
    input:
        table("audit", "openai_evals"),
        audit_detail_file("openai_evals"),
        figure("audit", "openai_evals"),
    localrule: True
