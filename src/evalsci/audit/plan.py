"""Every path the `audit` rules read and write, from the settings: the study's file plan.

`plan(config)` is pure: the rule files (workflow/rules/audit*.smk) build it once and reference
its entries, and no path of the study is spelled anywhere else. The sweep's files are the
outputs the artefact registry lists (src/evalsci/pipeline/artefacts.yaml, `audit.flipped_share`);
shared shapes come from `evalsci.paths`. Per-source files are patterns
over the wildcard `{au_source}` (`of(pattern, source)` fills one in).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from evalsci import paths
from evalsci.pipeline import artefacts

STUDY = "audit"
SOURCE = "{au_source}"
LEADERBOARD = "open_llm_leaderboard_v2"
# source -> the released bundle it is read from
BUNDLE = {
    LEADERBOARD: "predictaboard",
    "mizrahi_paraphrases": "multi_prompt",
    "baselines_prompts": "srb_aggregated",
    "openai_evals": "cfi_ground_truth",
}


log, benchmark = paths.logs(STUDY)  # a rule's log and benchmark files


def of(pattern, source: str):
    """A per-source pattern (or tuple of them) filled in for `source`."""
    if isinstance(pattern, str):
        return pattern.format(au_source=source)
    return [p.format(au_source=source) for p in pattern]


@dataclass(frozen=True)
class Plan:
    sources: tuple[str, ...]
    bundles: Mapping[str, str]  # source -> its released bundle's directory
    runs: str  # runs table per source (pattern)
    scope: str  # the leaderboard's out-of-scope tasks
    detail: str  # per-run detail (pattern)
    table: tuple[str, ...]  # counts table (pattern)
    figure: tuple[str, ...]  # runs figure (pattern)
    requests: str
    baselines: str
    sweep_table: tuple[str, ...]
    sweep_figure: tuple[str, ...]


def plan(config: Mapping[str, Any]) -> Plan:
    """The plan of a run whose resolved configuration is `config` (evalsci.settings.resolve)."""
    del config  # the audit's files do not depend on its settings (yet)
    sweep = artefacts.outputs(STUDY)["flipped_share"]
    return Plan(
        sources=tuple(BUNDLE),
        bundles={s: paths.released(b) for s, b in BUNDLE.items()},
        runs=paths.result(STUDY, f"data/{SOURCE}_runs.csv"),
        scope=paths.result(STUDY, f"data/{LEADERBOARD}_out_of_scope.csv"),
        detail=paths.result(STUDY, f"tables/{SOURCE}_runs.csv"),
        table=paths.table(STUDY, SOURCE),
        figure=paths.figure(STUDY, SOURCE),
        requests=paths.maxrandom(STUDY, "requests"),
        baselines=paths.maxrandom(STUDY, "baselines"),
        sweep_table=tuple(f for f in sweep if f.endswith(paths.TABLE_SUFFIXES)),
        sweep_figure=tuple(f for f in sweep if f.endswith(paths.FIGURE_SUFFIXES)),
    )
