"""Every path the `mc_icl` rules read and write, from the settings: the study's file plan.

`plan(settings)` is pure (a function of the study's settings object, `params.McIclSettings`):
the rule files (workflow/rules/mc_icl*.smk) build it once and reference its entries, and no
path of the study is spelled anywhere else. Per-run files are patterns over the wildcards
{model}, {dataset} and {mc_icl_run} (a trial `trial<i>`, or a Section 5.2 set `set_<name>`);
the figures over {n}.
"""

from __future__ import annotations

from dataclasses import dataclass

from evalsci import paths
from evalsci.pipeline import artefacts
from evalsci.studies.mc_icl.params import McIclSettings

STUDY = "mc_icl"
SETS = ("set_high", "set_low", "set_random")  # the Section 5.2 runs


log, benchmark = paths.logs(STUDY)  # a rule's log and benchmark files

# The recorded CPU-scale run (preset cpu, scripts/recorded_run.sh), committed beside the study
# and laid out as that run's results root: its record and findings, which the claims ledger
# reads, its summary and its shard, from which the findings are recomputed in the tests.
RECORDED_CPU = ("evalsci", "studies", STUDY, "recorded", "cpu")  # under the package's src/
RECORD = paths.result(STUDY, "run_record.yaml")  # under a run's root


@dataclass(frozen=True)
class Plan:
    settings: McIclSettings
    scores: str  # one shard's scores: {model}/{dataset}/{mc_icl_run}
    values: str  # Section 5.2 per-example values: {model}/{dataset}
    sets: str  # the selected sets: {model}/{dataset}
    accuracy_by_k: str
    accuracy_by_set: str
    summary: tuple[str, ...]
    findings: str
    claims: str
    figure: tuple[str, ...]  # figure{n}
    requests: str
    baselines: str

    def scores_of(self, model: str, dataset: str, runs=None) -> list[str]:
        """The score files of a model on a dataset: its trials, or the given runs."""
        runs = runs or [f"trial{i}" for i in range(self.settings.num_trials)]
        return [self.scores.format(model=model, dataset=dataset, mc_icl_run=r) for r in runs]

    def trial_scores(self) -> list[str]:
        s = self.settings
        return [f for m in s.models for d in s.datasets for f in self.scores_of(m, d)]

    def set_scores(self) -> list[str]:
        sel = self.settings.selection
        return [f for m in sel.models for d in sel.datasets for f in self.scores_of(m, d, SETS)]

    def sets_of(self, model: str, dataset: str) -> str:
        return self.sets.format(model=model, dataset=dataset)

    def selected_sets(self) -> list[str]:
        sel = self.settings.selection
        return [self.sets_of(m, d) for m in sel.models for d in sel.datasets]

    def figure_of(self, n: int | str) -> list[str]:
        return [f.format(n=n) for f in self.figure]


def plan(settings: McIclSettings) -> Plan:
    """The plan of a run whose mc_icl settings are `settings`."""
    run = "{model}/{dataset}"
    return Plan(
        settings=settings,
        scores=paths.result(STUDY, f"scores/{run}/{{mc_icl_run}}.parquet"),
        values=paths.result(STUDY, f"selection/{run}/values.csv"),
        sets=paths.result(STUDY, f"selection/{run}/sets.json"),
        accuracy_by_k=paths.result(STUDY, "tables/accuracy_by_k.csv"),
        accuracy_by_set=paths.result(STUDY, "tables/accuracy_by_set.csv"),
        summary=artefacts.outputs(STUDY)["summary"],  # the registry owns the artefacts' files
        findings=artefacts.outputs(STUDY)["findings"][0],
        claims=artefacts.outputs(STUDY)["claims"][0],
        figure=paths.figure(STUDY, "figure{n}"),
        requests=paths.maxrandom(STUDY, "requests"),
        baselines=paths.maxrandom(STUDY, "baselines"),
    )
