"""Every path the `baselines` rules read and write, from the settings: the study's file plan.

`plan(config)` is pure (it reads no file and changes nothing): the rule files
(workflow/rules/baselines*.smk) build it once and reference its entries, and no path of the
study is spelled anywhere else. The paper artefacts' files are the outputs the artefact
registry lists (src/evalsci/pipeline/artefacts.yaml, which also names the target that builds them);
shared shapes (the maxrandom exchange, released bundles, logs) come from `evalsci.paths`.

Where the analyses read from: the authors' released bundles, or our recompute in their schema
(results/baselines/recompute/results/) when the study recomputes (config `recompute`, or
`baselines.source: recompute`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from evalsci import paths
from evalsci.pipeline import artefacts
from evalsci.settings import recomputes
from evalsci.studies.baselines import recompute_grid, table2

STUDY = "baselines"
RECOMPUTE = paths.result(STUDY, "recompute")
# Figures 1-11 of 000 (also 001's), and 001's Figure 9 (p-values vs normalized scores): drawn
# by one job (baselines_make_figures); registry entries baselines.<name>.
FIGURES = (*(f"figure{i}" for i in range(1, 12)), "figure9_001")
# The wildcards of the recompute rules' patterns: an experiment (cell) and a shard of it.
CELL = "{model}_{task}_{shots}-shot"
SHARD = "{model}/{task}/{shots}-shot/prompts-{start}-{stop}"


log, benchmark = paths.logs(STUDY)  # a rule's log and benchmark files


@dataclass(frozen=True)
class Plan:
    """The study's paths (relative to the working directory) and the switches that pick them."""

    recompute: bool  # the analyses read our recompute, not the released results
    resplit: bool  # our own held-out splits (always when recomputing)
    settings: recompute_grid.RecomputeSettings
    # inputs of the analyses
    aggregated: str  # per-prompt accuracies (aggregated-results.json, or its bundle)
    per_example: str | tuple[str, ...]  # per-example CSVs (a bundle, or our cells' files)
    # the exchange with the shared maxrandom rule
    requests: str
    baselines: str
    distributions: str
    # intermediate data
    splits: str
    predictions: str
    section53_experiments: str
    # paper artefacts: {registry entry baselines.<name>: its files}
    outputs: Mapping[str, tuple[str, ...]]
    checks: Mapping[str, str]  # the per-example check's files
    # the recompute path: patterns over the wildcards CELL and SHARD
    shard: str
    shard_work: str
    cell_per_example: str
    cell_options: str
    recompute_aggregated: str
    recompute_per_example: tuple[str, ...]
    table2_per_example: tuple[str, ...]
    table2_options: tuple[str, ...]

    def shards(self, model: str, task: str, shots: int | str) -> list[str]:
        """The shard files of one experiment (prompts [start, stop) each)."""
        s = self.settings
        return [
            self.shard.format(
                model=model, task=task, shots=shots, start=f"{a:03d}", stop=f"{b:03d}"
            )
            for a, b in recompute_grid.shard_ranges(s.prompts, s.prompts_per_shard)
        ]

    def csv(self, name: str) -> str:
        """The CSV file of the study's artefact `name` (its table, or a figure's data)."""
        (found,) = paths.select(self.outputs[name], suffixes=(".csv",))
        return found

    def shard_work_dir(self, model: str, task: str, shots, start, stop) -> str:
        """Where a shard keeps its finished prompts until it is complete (resume after a kill)."""
        return self.shard_work.format(model=model, task=task, shots=shots, start=start, stop=stop)


def _cell_file(model: str, task: str, shots: int, suffix: str) -> str:
    return f"{RECOMPUTE}/results/{CELL.format(model=model, task=task, shots=shots)}{suffix}"


def plan(config: Mapping[str, Any]) -> Plan:
    """The plan of a run whose resolved configuration is `config` (evalsci.settings.resolve)."""
    section = config[STUDY]
    recompute = recomputes(config, STUDY)
    settings = recompute_grid.RecomputeSettings.from_config(section["recompute"])
    outputs = artefacts.outputs(STUDY)
    ours = tuple(_cell_file(*c, ".csv.gz") for c in recompute_grid.cells(settings))
    (ours_aggregated,) = outputs["table1_recompute"]
    check, quirks = sorted(outputs["per_example_check"])  # .csv, .md
    pair_cells = table2.pair_cells(settings)
    return Plan(
        recompute=recompute,
        resplit=recompute or bool(section["heldout"]["resplit"]),
        settings=settings,
        aggregated=ours_aggregated if recompute else paths.released("srb_aggregated"),
        per_example=ours if recompute else paths.released("srb_per_example"),
        requests=paths.maxrandom(STUDY, "requests"),
        baselines=paths.maxrandom(STUDY, "baselines"),
        distributions=paths.maxrandom(STUDY, "distributions"),
        splits=paths.result(STUDY, "data/heldout_splits.csv"),
        predictions=paths.result(STUDY, "data/heldout_predictions.csv"),
        section53_experiments=paths.result(STUDY, "data/section53_experiments.csv"),
        outputs=outputs,
        checks={
            "checks": check,
            "pairs": paths.result(STUDY, "checks/instruct_vs_base.csv"),
            "quirks": quirks,
        },
        shard=f"{RECOMPUTE}/shards/{SHARD}.csv.gz",
        shard_work=f"{RECOMPUTE}/partial/{SHARD}",
        cell_per_example=_cell_file("{model}", "{task}", "{shots}", ".csv.gz"),
        cell_options=_cell_file("{model}", "{task}", "{shots}", ".options.csv.gz"),
        recompute_aggregated=ours_aggregated,
        recompute_per_example=ours,
        table2_per_example=tuple(_cell_file(*c, ".csv.gz") for c in pair_cells),
        table2_options=tuple(_cell_file(*c, ".options.csv.gz") for c in pair_cells),
    )
