"""Open LLM Leaderboard v2 results: lm-eval 0.4 files whose tasks are `leaderboard_*`.

The leaderboard runs lm-eval's `leaderboard` group and scores each task with the one metric
its task YAML lists (lm-eval 0.4.13 tasks/leaderboard/): `acc_norm` for BBH
(bbh_mc/_fewshot_template_yaml), GPQA (gpqa/_template_yaml) and MuSR (musr/_template_yaml),
`acc` for MMLU-Pro (mmlu_pro/mmlu_pro.yaml). IFEval and MATH-hard are generated text
(`output_type: generate_until`): no options, no random baseline; the lm-eval reader skips
them with that reason. One file thus needs a metric per task, which `default_metric` gives;
`--metric` overrides it for every task.
"""

from __future__ import annotations

# (task-name prefix, the metric its YAML lists, the YAML)
_METRICS = (
    ("leaderboard_bbh_", "acc_norm", "leaderboard/bbh_mc/_fewshot_template_yaml"),
    ("leaderboard_gpqa_", "acc_norm", "leaderboard/gpqa/_template_yaml"),
    ("leaderboard_musr_", "acc_norm", "leaderboard/musr/_template_yaml"),
    ("leaderboard_mmlu_pro", "acc", "leaderboard/mmlu_pro/mmlu_pro.yaml"),
)


def default_metric(task: str) -> str | None:
    """The leaderboard's own metric for `task`, or None for a task it does not score by a
    multiple-choice accuracy."""
    for prefix, metric, _ in _METRICS:
        if task.startswith(prefix):
            return metric
    return None
