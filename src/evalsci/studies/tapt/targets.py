"""Which files the tapt rules make, from the config and the configurations present.

Pure functions used by workflow/rules/tapt.smk (kept here so the rule file holds rules only).
`present` is the list of configurations of the source (released or recompute), in paper order.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from evalsci.configcheck import where as config_where
from evalsci.studies.tapt.data import RELEASED_CONFIGS, configs_of_files, family_of_config

FIT = "results/tapt/fits/{config}/{comparison}_{variant}"
COMPARISONS = ("boost", "bias")


def present_configs(recompute: bool, recompute_files, released_configs) -> list[str]:
    """Configurations of the source: the recompute files' or the released bundle's."""
    return configs_of_files(recompute_files()) if recompute else list(released_configs)


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


def fit_stems(tapt_cfg: dict, present: list[str]) -> list[str]:
    """Every (config, comparison, variant) fit of this run, as path stems."""
    fits = tapt_cfg["fits"]
    stems = []
    for variant, key in (("authors", "configs"), ("eq2", "eq2_configs")):
        for config in select(present, fits[key], f"tapt.fits.{key}"):
            for comparison in COMPARISONS:
                stems.append(FIT.format(config=config, comparison=comparison, variant=variant))
    return stems


def _parts(stem: str) -> tuple[str, str, str]:
    p = PurePosixPath(stem)
    comparison, variant = p.name.split("_", 1)
    return p.parent.name, comparison, variant


def families(stems: list[str]) -> list[str]:
    """Experiment families with at least one fit of the authors' model variant."""
    fitted = [c for c, _, v in map(_parts, stems) if v == "authors"]
    return list(dict.fromkeys(family_of_config(c) for c in fitted))


def family_draws(stems: list[str], family: str) -> list[str]:
    """Posterior draw files of the authors' variant of one family."""
    return [
        f"{s}.draws.csv.gz"
        for s in stems
        if _parts(s)[2] == "authors" and family_of_config(_parts(s)[0]) == family
    ]


def meta_configs(tapt_cfg: dict, present: list[str]) -> list[str]:
    """The configurations of the Section 10 meta-analysis present in this run's source (a typo
    is an error: merged over the defaults, it used to be dropped without a word)."""
    wanted = list(tapt_cfg["meta"]["configs"])
    check_names("tapt.meta.configs", wanted, present)
    return [c for c in present if c in wanted]


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
PORTABLE_BACKENDS = ("pymc",)


class BackendConfigError(ValueError):
    """`tapt.bayes.backend` cannot keep the promise of `portable: true`."""


def resolve_backend(bayes_cfg: dict, portable: bool) -> str:
    """The NUTS implementation of every tapt fit, from config `tapt.bayes`. `auto` (the
    default): PyMC's NUTS under portable arithmetic (the same draws on any x86-64 CPU), nutpie
    without it (faster on these models, docs/benchmarks.md). A named backend is used as named,
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
