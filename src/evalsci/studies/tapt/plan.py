"""Every path the `tapt` rules read and write, from the settings: the study's file plan.

`plan(settings)` is pure (a function of the study's settings object, `TaptSettings`): the rule
files (workflow/rules/tapt*.smk) build it once and reference its entries, and no path of the
study is spelled anywhere else. Which files a run makes depends on the configurations of its
source: the released bundle's (evalsci.studies.tapt.data.RELEASED_CONFIGS), or those of the
recompute runs the settings ask for (named by their accuracies.csv paths). The artefacts' files
are the ones the artefact registry lists (src/evalsci/pipeline/artefacts.yaml, read with
`artefacts.outputs`); per-configuration
files are patterns over the wildcard {config}; a fit also over {comparison} and {variant}, a
family's figures over {family}, the recompute files over {m}, {n}, {lm}, {dataset} and a
shard's over {i} (the subsample, 3 digits).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from evalsci import paths
from evalsci.pipeline import artefacts
from evalsci.studies.tapt.data import RELEASED_CONFIGS, configs_of_files, family_of_config
from evalsci.studies.tapt.settings import COMPARISONS, TaptSettings, check_names
from evalsci.studies.tapt.training.shards import RUN_FILES, SHARD_FILES

STUDY = "tapt"
RUN = "m{m}/n{n}/{lm}/{dataset}"  # one recompute run (the author's result layout)


log, benchmark = paths.logs(STUDY)  # a rule's log and benchmark files


@dataclass(frozen=True)
class Plan:
    settings: TaptSettings
    # every accuracies.csv of the source as one long table (rule tapt_accuracies)
    accuracies: str
    # one fit: {config}/{comparison}_{variant} (.json summary, .draws.csv.gz, .diagnostics.csv)
    fit: str
    # Section 10: one configuration's slices
    meta_slices: str
    # the paper's tables and figures (paths.table, paths.figure)
    table1: tuple[str, ...]
    task_level: tuple[str, ...]
    differences: tuple[str, ...]  # differences_{config}
    permutation_tests: tuple[str, ...]
    permutation_summary: tuple[str, ...]
    beta_posteriors: tuple[str, ...]
    posterior_predictive: tuple[str, ...]  # posterior_predictive_{family}
    beta_figure: tuple[str, ...]  # beta_{family}
    meta_table: tuple[str, ...]
    meta_figure: tuple[str, ...]
    prior_predictive_table: tuple[str, ...]
    prior_predictive_figure: tuple[str, ...]
    recovery_table: tuple[str, ...]
    recovery_figure: tuple[str, ...]
    pca_table: tuple[str, ...]
    pca_figure: tuple[str, ...]
    # the claims ledger (evalsci.studies.tapt.claims)
    claims: str
    # the recompute path: one subsample's shard files and one run's merged files (by role,
    # training.shards.SHARD_FILES and RUN_FILES), and the manifest of every run
    shard: dict[str, str]
    run: dict[str, str]
    manifest: str

    # -- what the source holds -----------------------------------------------------------
    def run_accuracies(self) -> list[str]:
        """Every accuracies.csv the configured recompute runs write, in the runs' order."""
        pattern = self.run["accuracies"]
        return [
            pattern.format(m=r.m, n=r.n, lm=r.lm, dataset=r.dataset)
            for r in self.settings.training.runs
        ]

    def configs(self) -> list[str]:
        """The configurations of the source (recompute: those of the training rules' files),
        in paper order."""
        if self.settings.recompute:
            return configs_of_files(self.run_accuracies())
        return list(RELEASED_CONFIGS)

    # -- the fits ------------------------------------------------------------------------
    def fit_outputs(self) -> dict[str, list[str]]:
        """The files of one fit job ({config}, {variant}): both comparisons, by kind."""
        kinds = {"summary": ".json", "draws": ".draws.csv.gz", "diagnostics": ".diagnostics.csv"}
        # {comparison} filled in; {config} and {variant} stay wildcards
        return {
            kind: [self.fit.replace("{comparison}", c) + suffix for c in COMPARISONS]
            for kind, suffix in kinds.items()
        }

    def fits(self) -> list[tuple[str, str, str]]:
        """Every (config, comparison, variant) fit of this run."""
        return self.settings.fits.stems(self.configs())

    def fit_summaries(self) -> list[str]:
        return [
            f"{self.fit.format(config=c, comparison=k, variant=v)}.json" for c, k, v in self.fits()
        ]

    def families(self) -> list[str]:
        """Experiment families with at least one fit of the authors' model variant."""
        fitted = [c for c, _, v in self.fits() if v == "authors"]
        return list(dict.fromkeys(family_of_config(c) for c in fitted))

    def family_draws(self, family: str) -> list[str]:
        """Posterior draw files of the authors' variant of one family."""
        return [
            f"{self.fit.format(config=c, comparison=k, variant=v)}.draws.csv.gz"
            for c, k, v in self.fits()
            if v == "authors" and family_of_config(c) == family
        ]

    # -- Section 10 ----------------------------------------------------------------------
    def meta_configs(self) -> list[str]:
        return self.settings.meta.present(self.configs())

    def meta_slices_all(self) -> list[str]:
        return [self.meta_slices.format(config=c) for c in self.meta_configs()]

    # -- Appendix E.1 --------------------------------------------------------------------
    def prior_predictive_config(self) -> str:
        """The configuration whose rows Figure 7 simulates: config tapt.simulate.config when
        the source has it, else the source's first (a recompute run's own; a name that is no
        configuration is an error)."""
        present, wanted = self.configs(), self.settings.simulate.config
        check_names("tapt.simulate.config", [wanted], present)
        return wanted if wanted in present else present[0]

    # -- the named targets ---------------------------------------------------------------
    def csv(self, name: str) -> str:
        """The CSV file of one of the plan's tables (`table1`, `beta_posteriors`, ...)."""
        (found,) = paths.select(getattr(self, name), suffixes=(".csv",))
        return found

    def differences_all(self) -> list[str]:
        """Figure 1 and Figures 9-15: one figure per configuration, in config order."""
        return [f.format(config=c) for c in self.configs() for f in self.differences]

    def posterior_figures_all(self) -> list[str]:
        return [
            f.format(family=fam)
            for fam in self.families()
            for pattern in (self.posterior_predictive, self.beta_figure)
            for f in pattern
        ]

    def meta_analysis_all(self) -> list[str]:
        """Figure 5 and its table; none without a configuration to meta-analyse."""
        return [*self.meta_table, *self.meta_figure] if self.meta_configs() else []

    # -- the recompute path --------------------------------------------------------------
    def shard_files(self, m, n, lm, dataset) -> dict[str, list[str]]:
        """Every shard file of one run, by role, in subsample order."""
        n_sub = self.settings.training.num_subsamples(int(n))
        run = {"m": m, "n": n, "lm": lm, "dataset": dataset}
        return {
            kind: [pattern.format(**run, i=f"{i:03d}") for i in range(1, n_sub + 1)]
            for kind, pattern in self.shard.items()
        }


def plan(settings: TaptSettings) -> Plan:
    """The plan of a run whose tapt settings are `settings`."""
    out = artefacts.outputs(STUDY)  # the registry owns the artefacts' files
    (accuracies,) = out["accuracies"]
    (claims,) = out["claims"]
    tables = partial(paths.select, suffixes=paths.TABLE_SUFFIXES)
    figures = partial(paths.select, suffixes=paths.FIGURE_SUFFIXES)
    shards = paths.result(STUDY, f"recompute/shards/{RUN}")
    runs = paths.result(STUDY, f"recompute/accuracies/{RUN}")
    return Plan(
        settings=settings,
        accuracies=accuracies,
        fit=paths.result(STUDY, "fits/{config}/{comparison}_{variant}"),
        meta_slices=paths.result(STUDY, "meta/{config}_slices.csv"),
        table1=out["table1"],
        task_level=out["task_level"],
        differences=paths.figure(STUDY, "differences_{config}"),
        permutation_tests=paths.select(out["permutation"], stem="permutation_tests"),
        permutation_summary=paths.select(out["permutation"], stem="permutation_summary"),
        beta_posteriors=out["beta_posteriors"],
        posterior_predictive=paths.figure(STUDY, "posterior_predictive_{family}"),
        beta_figure=paths.figure(STUDY, "beta_{family}"),
        meta_table=tables(out["figure5"]),
        meta_figure=figures(out["figure5"]),
        prior_predictive_table=tables(out["figure7"]),
        prior_predictive_figure=figures(out["figure7"]),
        recovery_table=tables(out["figure8"]),
        recovery_figure=figures(out["figure8"]),
        pca_table=tables(out["figure6"]),
        pca_figure=figures(out["figure6"]),
        claims=claims,
        shard={kind: f"{shards}/{name}" for kind, name in SHARD_FILES.items()},
        run={kind: f"{runs}/{name}" for kind, name in RUN_FILES.items()},
        manifest=paths.result(STUDY, "recompute/manifest.csv"),
    )
