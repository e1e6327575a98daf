"""The max random baseline applied beyond the papers: `evalsci audit` and study `audit`.

Yauney & Mimno ask for the max random baseline wherever a reported score is the best of
many tries (prompts, paraphrases, checkpoints, leaderboard submissions). This package judges
scores against both baselines:

  - the standard random baseline: expected accuracy of ONE uniform guesser;
  - the max random baseline: expected best accuracy of t uniform guessers on the same n items.

The tool (`evalsci audit PATH...`, `audit_paths`): `readers/` turns result files as other tools
write them into `Result`s (records.py), one module per format, detected by content; `judge.py`
computes baselines, tail p-values and verdicts. Formats, the output schema and how t is chosen
are in docs/audit.md.

The workflow's `audit` study (released many-model results: the Open LLM Leaderboard v2, the
evals logs, and runs tables the baselines study derives from Mizrahi et al.'s paraphrases and
Yauney & Mimno's 288 experiments) has a paper study's roles: sources.py (released results ->
runs tables), columns.py (the column schemas of its frames and files), maxrandom_requests.py (its questions to the shared `maxrandom` rule), counts.py
(counts above each baseline), figures.py, doc_blocks.py (the numbers docs/audit.md quotes) and
steps.py (one function per rule). It is one package with the tool because both are the same
code (readers' records, then the judge), and the `evalsci` command imports it; it imports no
study.

    >>> from evalsci.audit import audit_paths
    >>> audit_paths(["out/"])                                    # doctest: +SKIP
"""

from __future__ import annotations

from .columns import OUTPUT_COLUMNS
from .judge import (
    POINT_VERDICTS,
    VERDICTS,
    audit_results,
    choices_label,
    point_verdict,
)
from .readers import read_inputs
from .records import AuditInputError, Inputs, Result, Skipped

__all__ = [
    "AuditInputError",
    "Inputs",
    "Result",
    "Skipped",
    "read_inputs",
    "audit_results",
    "audit_inputs",
    "judge_inputs",
    "audit_paths",
    "point_verdict",
    "choices_label",
    "OUTPUT_COLUMNS",
    "VERDICTS",
    "POINT_VERDICTS",
]


def judge_inputs(found, t: int | None = None, alpha: float = 0.05, adjust: str = "holm"):
    """(the results frame of `read_inputs`' answer, its judged rows in the same order); the
    verdicts are tests at `alpha`, adjusted by `adjust` (none, holm, bh) across the rows."""
    from .frames import concat_frames, results_frame
    from .judge import audit_frame, check_t_option
    from .option_bounds import annotate, below_at

    check_t_option(t)
    frame = concat_frames([results_frame(found.results), *found.frames])
    judged = audit_frame(frame, t=t, alpha=alpha, method=adjust, below_at=below_at(found.results))
    return frame, annotate(found.results, judged)


def audit_inputs(paths, t: int | None = None, metric: str | None = None, **judging):
    """(one judged row per (model, task) result, the files and tasks passed over).
    `judging`: alpha, adjust (judge_inputs)."""
    found = read_inputs(paths, metric=metric)
    return judge_inputs(found, t=t, **judging)[1], found.skipped


def audit_paths(paths, t: int | None = None, metric: str | None = None, **judging):
    """Read every input under `paths` and judge it: one row per (model, task) result."""
    return audit_inputs(paths, t=t, metric=metric, **judging)[0]
