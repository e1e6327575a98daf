# Helpers of the `audit` rules (audit.smk): sources, paths and input functions. No rules here.
AUDIT = config["audit"]
AUDIT_SOURCES = (
    "open_llm_leaderboard_v2",
    "mizrahi_paraphrases",
    "baselines_prompts",
    "openai_evals",
)
AUDIT_BUNDLE = {
    "open_llm_leaderboard_v2": "predictaboard",
    "mizrahi_paraphrases": "multi_prompt",
    "baselines_prompts": "srb_aggregated",
    "openai_evals": "cfi_ground_truth",
}
AUDIT_SCOPE = "results/audit/data/open_llm_leaderboard_v2_out_of_scope.csv"
# the sources of the audit_data rule: all but the leaderboard, whose rule also writes its
# out-of-scope list
AUDIT_RUNS_ONLY = [s for s in AUDIT_SOURCES if s != "open_llm_leaderboard_v2"]


def audit_runs_file(source):
    return f"results/audit/data/{source}_runs.csv"


def audit_detail_file(source):
    return f"results/audit/tables/{source}_runs.csv"


def audit_bundle(wildcards):
    """The released bundle a source is read from."""
    return released(AUDIT_BUNDLE[wildcards.au_source])


def audit_scope(wildcards):
    """The leaderboard's out-of-scope list (its free-text tasks); other sources have none."""
    return AUDIT_SCOPE if wildcards.au_source == "open_llm_leaderboard_v2" else []


# The files of the study's named targets, which depend on its settings: the Snakefile makes one
# rule per target of the artefact registry (src/evalsci/artefacts.yaml) from these.
AUDIT_TARGETS = {
    "audit_open_llm_leaderboard": [
        table("audit", "open_llm_leaderboard_v2"),
        audit_detail_file("open_llm_leaderboard_v2"),
        figure("audit", "open_llm_leaderboard_v2"),
        AUDIT_SCOPE,
        table("audit", "open_llm_leaderboard_v2_sweep"),
        figure("audit", "flipped_share"),
    ],
    "audit_mizrahi_paraphrases": [
        table("audit", "mizrahi_paraphrases"),
        audit_detail_file("mizrahi_paraphrases"),
        figure("audit", "mizrahi_paraphrases"),
    ],
    "audit_baselines_prompts": [
        table("audit", "baselines_prompts"),
        audit_detail_file("baselines_prompts"),
        figure("audit", "baselines_prompts"),
    ],
    "audit_openai_evals": [
        table("audit", "openai_evals"),
        audit_detail_file("openai_evals"),
        figure("audit", "openai_evals"),
    ],
}
