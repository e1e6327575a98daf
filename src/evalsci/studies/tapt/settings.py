"""The tapt study's settings: one frozen, typed object built once, while the workflow is read
(tapt_common.smk), from the resolved config `tapt` (evalsci.settings: its preset,
workflow/presets/tapt/, the hyperparameter sheet, the schema's defaults and the user's values).
Each field's meaning is in workflow/schemas/tapt.schema.yaml, which is also the only place of
its default: nothing here repeats one. The rules and this study's functions take this object
(or one of its parts), never the config dict.

Two settings are resolved here, once, from the rest of the configuration: the NUTS backend
(`auto` -> PyMC's NUTS under portable arithmetic, nutpie without it) and what a failed
convergence check does (`auto` -> an error on the released data, a warning on our own
recompute, whose small demo cannot pass the checks)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from evalsci.configcheck import where as config_where
from evalsci.studies.tapt.data import RELEASED_CONFIGS
from evalsci.studies.tapt.training import settings as training

COMPARISONS = ("boost", "bias")


class SelectionError(ValueError):
    """A config list names a configuration that does not exist."""


def check_names(key: str, wanted, present: list[str]) -> None:
    """Every name of `wanted` is a configuration: of the released data, or of this run's
    source (a recompute run's own). Else an error naming the key, its file and the names."""
    valid = list(dict.fromkeys([*present, *RELEASED_CONFIGS]))
    unknown = [c for c in wanted if c not in valid]
    if unknown:
        raise SelectionError(
            f"config {key} ({config_where(key)}): unknown configuration(s) {unknown}; the "
            f"configurations: {valid}"
        )


def select(present: list[str], wanted, key: str = "tapt.fits.configs") -> list[str]:
    """`all`, or the listed configurations that are present. A name that is no configuration
    is an error (a typo used to select them all). A recompute source holds none of the
    released configurations the defaults list: it then gets all it has."""
    if wanted == "all":
        return list(present)
    check_names(key, wanted, present)
    chosen = [c for c in present if c in wanted]
    return chosen if chosen or not wanted else list(present)


def resolve_on_failure(setting: str, recomputing: bool) -> str:
    """What a failed convergence check does: `auto` fails loudly on the released data and
    warns on recompute runs (the embedded CPU demo has too few subsamples to pass)."""
    if setting == "auto":
        return "warn" if recomputing else "error"
    return setting


# NUTS samplers whose arithmetic is pinned by portable arithmetic (evalsci.pipeline.determinism): PyMC's
# own NUTS is PyTensor C code (compiled for x86-64-v2 when portable) driven by numpy, both
# pinned. nutpie's sampler (Rust: nuts-rs, faer, pulp) and jax's XLA pick SIMD code by CPU at
# run time, with no switch: their draws differ between CPUs (~1e-10 relative after 100 draws on
# an emulated Nehalem), enough to move HDI bounds and tail probabilities.
# "evalsci" is evalsci.stats.nuts on the Section 6 model in numpy (evalsci.compare.grid, the
# function `evalsci compare` calls): element-wise float64 numpy only, pinned likewise.
PORTABLE_BACKENDS = ("pymc", "evalsci")


class BackendConfigError(ValueError):
    """`tapt.bayes.backend` cannot keep the promise of `portable: true`."""


def resolve_backend(bayes_cfg: Mapping, portable: bool) -> str:
    """The NUTS implementation of every tapt fit, from config `tapt.bayes`. `auto` (the
    default): PyMC's NUTS under portable arithmetic (the same draws on any x86-64 CPU), nutpie
    without it (faster on these models, docs/benchmarks/bayes_fit.md). A named backend is used as named,
    unless portable arithmetic is on and that backend cannot be pinned: then an error says which
    keys to change instead of quietly giving CPU-dependent posteriors. nutpie's own options
    (`low_rank`, `variance_mass_matrix`) set for another backend are an error too, since that
    backend would ignore them."""
    setting = bayes_cfg["backend"]
    if setting == "auto":
        backend = PORTABLE_BACKENDS[0] if portable else "nutpie"
    elif portable and setting not in PORTABLE_BACKENDS:
        raise BackendConfigError(
            f"config tapt.bayes.backend ({config_where('tapt.bayes.backend')}): {setting!r} picks its SIMD code by CPU at run time, so "
            f"its posteriors differ between CPUs, which `portable: true` promises they do not. "
            f"Use tapt.bayes.backend: auto (or {', '.join(PORTABLE_BACKENDS)}), or set "
            f"portable: false to trade that promise for {setting}'s speed"
        )
    else:
        backend = setting
    nutpie_only = [k for k in ("low_rank", "variance_mass_matrix") if bayes_cfg.get(k)]
    if backend != "nutpie" and nutpie_only:
        why = " (backend auto with portable: true)" if setting == "auto" else ""
        raise BackendConfigError(
            f"config tapt.bayes.{nutpie_only[0]} ({config_where(f'tapt.bayes.{nutpie_only[0]}')}) "
            f"is an option of nutpie's sampler, but the fits "
            f"use {backend}{why}, which would ignore it: remove it, or set backend: nutpie "
            f"and portable: false"
        )
    return backend


@dataclass(frozen=True)
class Bayes:
    """NUTS settings and convergence checks of every hierarchical fit (config `tapt.bayes`),
    with `backend` and `on_failure` resolved."""

    backend: str
    chains: int
    draws: int
    tune: int
    seed: int
    max_draws: int
    target_accept: float
    low_rank: bool
    variance_mass_matrix: tuple[str, ...]
    noncentred_contrast: tuple[str, ...]
    threads: int
    max_r_hat: float
    max_r_hat_nuisance: float
    min_ess_bulk: float
    max_divergences: int
    on_failure: str

    @classmethod
    def from_config(cls, section: Mapping, *, portable: bool, recompute: bool) -> Bayes:
        return cls(
            backend=resolve_backend(section, portable),
            chains=int(section["chains"]),
            draws=int(section["draws"]),
            tune=int(section["tune"]),
            seed=int(section["seed"]),
            max_draws=int(section["max_draws"]),
            target_accept=float(section["target_accept"]),
            low_rank=bool(section["low_rank"]),
            variance_mass_matrix=tuple(section["variance_mass_matrix"]),
            noncentred_contrast=tuple(section["noncentred_contrast"]),
            threads=int(section["threads"]),
            max_r_hat=section["max_r_hat"],
            max_r_hat_nuisance=section["max_r_hat_nuisance"],
            min_ess_bulk=section["min_ess_bulk"],
            max_divergences=int(section["max_divergences"]),
            on_failure=resolve_on_failure(section["on_failure"], recompute),
        )

    def sampler(self, cores: int, comparison: str | None = None):
        """(bayes.SamplerSettings, bayes.Thresholds) of a fit on `cores` cores; `comparison`
        picks the mass matrix adaptation (`variance_mass_matrix`: the comparisons adapted from
        draw variances)."""
        from evalsci.stats import bayes

        variance = comparison is not None and comparison in self.variance_mass_matrix
        settings = bayes.SamplerSettings(
            backend=self.backend,
            chains=self.chains,
            draws=self.draws,
            tune=self.tune,
            seed=self.seed,
            cores=max(1, cores),
            low_rank=self.low_rank,
            grad_mass_matrix=not variance,
            target_accept=self.target_accept,
        )
        thresholds = bayes.Thresholds(
            max_r_hat=self.max_r_hat,
            max_r_hat_nuisance=self.max_r_hat_nuisance,
            min_ess_bulk=self.min_ess_bulk,
            max_divergences=self.max_divergences,
        )
        return settings, thresholds

    @property
    def meta_backend(self) -> str:
        """The sampler of Section 10's slice fits (evalsci.studies.tapt.meta): the Section 6
        fits' one, except PyMC's NUTS for "evalsci", whose numpy model is Section 6's only."""
        return "pymc" if self.backend == "evalsci" else self.backend

    def noncentred(self, comparison: str) -> bool:
        """Whether `comparison`'s fits sample the task x treatment contrast non-centred
        (evalsci.studies.tapt.reparam)."""
        return comparison in self.noncentred_contrast


@dataclass(frozen=True)
class Permutation:
    n_resamples: int
    alpha: float


@dataclass(frozen=True)
class Fits:
    """Which configurations get hierarchical fits: `all`, or a tuple of names."""

    configs: str | tuple[str, ...]
    eq2_configs: str | tuple[str, ...]

    @classmethod
    def from_config(cls, section: Mapping) -> Fits:
        def names(v):
            return v if v == "all" else tuple(v)

        return cls(configs=names(section["configs"]), eq2_configs=names(section["eq2_configs"]))

    def stems(self, present: list[str]) -> list[tuple[str, str, str]]:
        """Every (config, comparison, variant) fit of a run whose source has the
        configurations `present`: the authors' model on `configs`, eq. 2 on `eq2_configs`."""
        out = []
        for variant, key in (("authors", "configs"), ("eq2", "eq2_configs")):
            for config in select(present, getattr(self, key), f"tapt.fits.{key}"):
                out.extend((config, comparison, variant) for comparison in COMPARISONS)
        return out


@dataclass(frozen=True)
class Meta:
    """Section 10 meta-analysis: slices per configuration, {configuration: threshold}."""

    n_slices: int
    configs: tuple[tuple[str, float], ...]
    target_accept: float
    tune: int

    @classmethod
    def from_config(cls, section: Mapping) -> Meta:
        return cls(
            n_slices=int(section["n_slices"]),
            configs=tuple(section["configs"].items()),
            target_accept=float(section["target_accept"]),
            tune=int(section["tune"]),
        )

    @property
    def thresholds(self) -> dict[str, float]:
        return dict(self.configs)

    def present(self, present: list[str]) -> list[str]:
        """The configurations of the meta-analysis present in this run's source (a typo is an
        error: merged over the defaults, it used to be dropped without a word)."""
        wanted = [c for c, _ in self.configs]
        check_names("tapt.meta.configs", wanted, present)
        return [c for c in present if c in wanted]


@dataclass(frozen=True)
class Simulate:
    """Appendix E.1: Figure 7's prior predictive (of configuration `config`'s rows) and Figure
    8's recovery (`n_lms` LM types x `n_tasks` tasks x `n_subsamples` pairs, test size `n`)."""

    prior_draws: int
    n_subsamples: int
    beta_nonnull: float
    target_accept: float
    config: str
    n_lms: int
    n_tasks: int
    n: int

    @classmethod
    def from_config(cls, section: Mapping) -> Simulate:
        return cls(
            prior_draws=int(section["prior_draws"]),
            n_subsamples=int(section["n_subsamples"]),
            beta_nonnull=float(section["beta_nonnull"]),
            target_accept=float(section["target_accept"]),
            config=section["config"],
            n_lms=int(section["n_lms"]),
            n_tasks=int(section["n_tasks"]),
            n=int(section["n"]),
        )


@dataclass(frozen=True)
class Pca:
    n_trials: int


@dataclass(frozen=True)
class Run:
    """One recompute run: (m, n, LM type, dataset) and its number of subsamples."""

    m: int
    n: int
    lm: str
    dataset: str
    num_subsamples: int


@dataclass(frozen=True)
class Training:
    """Our own TAPT runs (config `tapt.training`), checked here, at parse time: every LM type
    (`lm_types`), and the settings of every (LM type, dataset) run the config asks for
    (`settings`, evalsci.studies.tapt.training.settings.RunSettings), which the shard rules
    pass to their function."""

    lms: tuple[str, ...]
    datasets: tuple[str, ...]
    device: str
    threads: int
    data_files: tuple[tuple[str, str | tuple[str, ...]], ...]
    revisions: tuple[tuple[str, str], ...]
    runs: tuple[Run, ...]
    n: tuple[int, ...]
    subsamples: int | tuple[int, ...]  # config num_subsamples: one int, or one per n
    lm_types: tuple[training.LmType, ...]
    settings: tuple[training.RunSettings, ...]  # one per (lm, dataset) of lms x datasets

    @classmethod
    def from_config(cls, section: Mapping) -> Training:
        types = training.lm_types(section)
        # every LM type and dataset checked here, at parse time, not in a job
        runs = tuple(Run(**r) for r in training.runs(section, types))
        return cls(
            lms=tuple(section["lms"]),
            datasets=tuple(section["datasets"]),
            device=section["device"],
            threads=int(section["threads"]),
            data_files=tuple(
                (k, v if isinstance(v, str) else tuple(v)) for k, v in section["data_files"].items()
            ),
            revisions=tuple(section["revisions"].items()),
            runs=runs,
            n=tuple(int(n) for n in section["n"]),
            subsamples=training.subsample_counts(section),
            lm_types=tuple(types.values()),
            settings=tuple(
                training.run_settings(section, types, lm, dataset)
                for lm in section["lms"]
                for dataset in section["datasets"]
            ),
        )

    def lm_type(self, lm: str) -> training.LmType:
        return training.lm_type_of({t.name: t for t in self.lm_types}, lm)

    def is_zero_shot(self, lm: str) -> bool:
        return self.lm_type(lm).zero_shot

    def run_settings(self, lm: str, dataset: str) -> training.RunSettings:
        """Everything one shard of (lm, dataset) needs: a run the config asks for."""
        for s in self.settings:
            if (s.lm, s.dataset) == (lm, dataset):
                return s
        raise KeyError(
            f"({lm!r}, {dataset!r}) is no run of config tapt.training (lms {list(self.lms)}, "
            f"datasets {list(self.datasets)})"
        )

    def num_subsamples(self, n: int) -> int:
        return training.num_subsamples(self.n, self.subsamples, n)

    def model(self, lm: str) -> str:
        """The model (a models-sheet name, hub id or directory) of LM type `lm`."""
        return self.lm_type(lm).model

    def data_files_of(self, dataset: str):
        """The local files of `dataset` (config data_files), or None: the hub or GLUE."""
        return dict(self.data_files).get(dataset)

    def revision(self, dataset: str) -> str | None:
        """The hub revision of `dataset`; None: the commit locked in hub.lock."""
        return dict(self.revisions).get(dataset)


@dataclass(frozen=True)
class TaptSettings:
    scale: str
    recompute: bool  # our own training's accuracies instead of the released ones
    count_rule: str
    permutation: Permutation
    bayes: Bayes
    fits: Fits
    meta: Meta
    simulate: Simulate
    pca: Pca
    training: Training

    @classmethod
    def from_config(cls, section: Mapping, *, portable: bool, recompute: bool) -> TaptSettings:
        """From the resolved config["tapt"], which holds every key (no default is repeated
        here); `portable` (config `portable`) and `recompute` (evalsci.settings.recomputes)
        resolve the NUTS backend and what a failed check does."""
        return cls(
            scale=section["scale"],
            recompute=bool(recompute),
            count_rule=section["count_rule"],
            permutation=Permutation(
                n_resamples=int(section["permutation"]["n_resamples"]),
                alpha=float(section["permutation"]["alpha"]),
            ),
            bayes=Bayes.from_config(section["bayes"], portable=portable, recompute=recompute),
            fits=Fits.from_config(section["fits"]),
            meta=Meta.from_config(section["meta"]),
            simulate=Simulate.from_config(section["simulate"]),
            pca=Pca(n_trials=int(section["pca"]["n_trials"])),
            training=Training.from_config(section["training"]),
        )

    @classmethod
    def of(cls, config: Mapping) -> TaptSettings:
        """From the whole resolved configuration (Snakemake's `config`)."""
        from evalsci.settings import recomputes

        return cls.from_config(
            config["tapt"], portable=bool(config["portable"]), recompute=recomputes(config, "tapt")
        )


def resolved_settings(**overrides: Any) -> TaptSettings:
    """The settings of the default preset with `overrides` on top (config keys of section
    `tapt`), resolved and validated as the workflow does: for tests and notebooks."""
    from evalsci.settings import resolved

    return TaptSettings.of(resolved({"tapt": overrides}))
