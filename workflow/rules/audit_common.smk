# Helpers of the `audit` rules (kept apart from the rules, as snakemake --lint asks).
AU = config["audit"]
AU_SOURCES = ("open_llm_leaderboard_v2", "mizrahi_paraphrases", "baselines_prompts", "openai_evals")
AU_BUNDLE = {
    "open_llm_leaderboard_v2": "predictaboard",
    "mizrahi_paraphrases": "multi_prompt",
    "baselines_prompts": "srb_aggregated",
    "openai_evals": "cfi_ground_truth",
}
AU_BASELINES = "results/audit/maxrandom/baselines.csv"
AU_SCOPE = "results/audit/data/open_llm_leaderboard_v2_out_of_scope.csv"


def au_runs(source):
    return f"results/audit/data/{source}_runs.csv"


def au_detail(source):
    return f"results/audit/tables/{source}_runs.csv"
