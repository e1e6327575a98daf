"""Every path the `assessors` rules read and write, from the settings: the study's file plan.

`plan(settings)` is pure (a function of the study's settings object, `AssessorsSettings`):
the rule files (workflow/rules/assessors*.smk) build it once and reference its entries, and
no path of the study is spelled anywhere else. The artefacts' files that are the same in every
run (table3, lomo) are the ones the artefact registry lists (src/evalsci/pipeline/artefacts.yaml);
per-collection files are patterns over the
wildcard {collection}; per-split ones also over {asplit}, the n_ref figures over {fig}, the
leave-one-model-out runs over {benchmark}.
"""

from __future__ import annotations

from dataclasses import dataclass

from evalsci import paths, reference
from evalsci.pipeline import artefacts
from evalsci.studies.assessors.settings import AssessorsSettings

STUDY = "assessors"
COLLECTION = f"{STUDY}/{{collection}}"  # a collection's results, under the study's


log, benchmark = paths.logs(STUDY)  # a rule's log and benchmark files


def _table(name: str) -> tuple[str, ...]:
    """A per-collection table (CSV, Markdown, LaTeX)."""
    return paths.table(COLLECTION, name)


def _figure(name: str) -> tuple[str, ...]:
    """A per-collection figure (PDF, PNG)."""
    return paths.figure(COLLECTION, name)


@dataclass(frozen=True)
class Plan:
    settings: AssessorsSettings
    # a collection's normalised data (rules assessors_data, _embed, _splits, _irt)
    instances: str
    success: str
    coverage: str
    embeddings: str
    splits: str
    irt: str
    # one split's run and n_ref sweep: {collection}/{asplit}
    results: str
    references: str
    predictions: str
    nref: str
    # a collection's selection, Figure 2 and Figures 8-9 ({fig})
    figure2_table: tuple[str, ...]
    table3: str
    figure2_summary: str
    figure2_paired: str
    table3_resamples: str
    figure2: tuple[str, ...]
    nref_table: str
    nref_figure: tuple[str, ...]
    # across collections
    table3_all: tuple[str, ...]
    requests: str
    baselines: str
    claims: str
    # leave one model out: one benchmark's runs ({benchmark}), the table, tests and figure
    lomo_runs: str
    lomo_table: tuple[str, ...]
    lomo_tests: tuple[str, ...]
    lomo_figure: tuple[str, ...]

    def of(self, pattern, collection: str, **wildcards):
        """A pattern (or tuple of them) of one collection."""
        if isinstance(pattern, tuple):
            return [p.format(collection=collection, **wildcards) for p in pattern]
        return pattern.format(collection=collection, **wildcards)

    def data_files(self, collection: str = "{collection}") -> dict[str, str]:
        """The normalised tables, embeddings, splits and IRT features a per-split job reads."""
        names = ("instances", "success", "embeddings", "splits", "irt")
        return {n: self.of(getattr(self, n), collection) for n in names}

    def per_split(self, pattern: str, collection: str) -> list[str]:
        """A per-split file of every split of a collection, in the collection's split order."""
        splits = self.settings.collection(collection).split_names
        return [self.of(pattern, collection, asplit=s) for s in splits]

    def collections(self, pattern: str) -> list[str]:
        """A per-collection file of every enabled collection."""
        return [self.of(pattern, c) for c in self.settings.collection_names]

    def nref_figures(self, fig: str) -> list[list[str]]:
        """Figure 8 or 9 of every collection that draws it (config `nref_figure`)."""
        names = [c.name for c in self.settings.collections if c.nref_figure == fig]
        return [self.of(self.nref_figure, c, fig=fig) for c in names]

    def nref_tables(self) -> list[str]:
        """The n_ref figure table of every enabled collection (its `nref_figure`)."""
        return [
            self.of(self.nref_table, c.name, fig=c.nref_figure)
            for c in self.settings.collections
            if c.nref_figure
        ]

    @property
    def judges_claims(self) -> bool:
        """Whether the claims ledger runs: it judges the paper on the two stand-ins
        (reference.yaml `stand_in_for`), so a run with other collections has none."""
        return tuple(self.settings.collection_names) == tuple(reference.load(STUDY)["stand_in_for"])

    def lomo_runs_all(self) -> list[str]:
        return [self.lomo_runs.format(benchmark=b) for b in self.settings.lomo_benchmarks]


def plan(settings: AssessorsSettings) -> Plan:
    """The plan of a run whose assessors settings are `settings`."""
    out = artefacts.outputs(STUDY)  # the registry owns the artefacts' files
    data = paths.result(COLLECTION, "data")
    split = paths.result(COLLECTION, "runs/{asplit}")
    return Plan(
        settings=settings,
        instances=f"{data}/instances.csv.gz",
        success=f"{data}/success.csv.gz",
        coverage=f"{data}/coverage.csv",
        embeddings=f"{data}/embeddings.npy",
        splits=f"{data}/splits.csv",
        irt=f"{data}/irt.npz",
        results=f"{split}.csv.gz",
        references=f"{split}_references.json",
        predictions=f"{split}_predictions.npz",
        nref=paths.result(COLLECTION, "nref/{asplit}.csv.gz"),
        figure2_table=_table("figure2"),
        table3=paths.result(COLLECTION, "tables/table3.csv"),
        figure2_summary=paths.result(COLLECTION, "tables/figure2_summary.csv"),
        figure2_paired=paths.result(COLLECTION, "tables/figure2_paired.csv"),
        table3_resamples=paths.result(COLLECTION, "tables/table3_resamples.csv"),
        figure2=_figure("figure2"),
        nref_table=paths.result(COLLECTION, "tables/{fig}.csv"),
        nref_figure=_figure("{fig}"),
        table3_all=out["table3"],
        requests=paths.maxrandom(STUDY, "requests"),
        baselines=paths.maxrandom(STUDY, "baselines"),
        claims=out["claims"][0],
        lomo_runs=paths.result(STUDY, "lomo/{benchmark}.csv.gz"),
        lomo_table=paths.select(out["lomo"], stem="lomo"),
        lomo_tests=paths.select(out["lomo"], stem="lomo_tests"),
        lomo_figure=out["lomo_figure"],
    )
