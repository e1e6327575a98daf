# Helpers of the `audit` rules (audit.smk): the study's file plan, its code and the rules'
# input functions. No rules here.
from evalsci.audit.plan import LEADERBOARD as AUDIT_LEADERBOARD
from evalsci.audit.plan import log as audit_log
from evalsci.audit.plan import of as audit_of
from evalsci.audit.plan import plan as _audit_plan

AUDIT = config["audit"]
# Every path the study's rules read and write (evalsci.audit.plan), from the settings.
AUDIT_PLAN = _audit_plan(config)
AUDIT_SOURCES = AUDIT_PLAN.sources
# The module of the functions the study's rules run (workflow/scripts/call.py); the baselines
# study reads its own released results for the audit (audit_data).
AUDIT_STEPS = code("evalsci.audit.steps")
AUDIT_BASELINES_STEPS = code("evalsci.studies.baselines.steps")
# the sources of the audit_data rule: all but the leaderboard, whose rule also writes its
# out-of-scope list
AUDIT_RUNS_ONLY = [s for s in AUDIT_SOURCES if s != AUDIT_LEADERBOARD]


def audit_bundle(wildcards):
    """The released bundle a source is read from."""
    return AUDIT_PLAN.bundles[wildcards.au_source]


def audit_scope(wildcards):
    """The leaderboard's out-of-scope list (its free-text tasks); other sources have none."""
    return AUDIT_PLAN.scope if wildcards.au_source == AUDIT_LEADERBOARD else []


# The files of the study's named targets, per source: the Snakefile makes one rule per target
# of the artefact registry (src/evalsci/pipeline/artefacts.yaml) from these.
AUDIT_TARGETS = {
    "audit_open_llm_leaderboard": [
        audit_of(AUDIT_PLAN.table, AUDIT_LEADERBOARD),
        audit_of(AUDIT_PLAN.detail, AUDIT_LEADERBOARD),
        audit_of(AUDIT_PLAN.figure, AUDIT_LEADERBOARD),
        AUDIT_PLAN.scope,
        AUDIT_PLAN.sweep_table,
        AUDIT_PLAN.sweep_figure,
    ],
    **{
        f"audit_{target}": [
            audit_of(AUDIT_PLAN.table, source),
            audit_of(AUDIT_PLAN.detail, source),
            audit_of(AUDIT_PLAN.figure, source),
        ]
        for target, source in (
            ("mizrahi_paraphrases", "mizrahi_paraphrases"),
            ("baselines_prompts", "baselines_prompts"),
            ("openai_evals", "openai_evals"),
        )
    },
}
