"""The assessors study's settings: one frozen, typed object built once, while the workflow is
read (assessors_common.smk), from the resolved config `assessors` (evalsci.settings: its
preset, workflow/presets/assessors/, the schema's defaults and the user's values). Each field's
meaning is in workflow/schemas/assessors.schema.yaml, which is also the only place of its
default: nothing here repeats one. The rules and this study's functions take this object,
never the config dict."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

ROLES = ("train", "validation", "test")


@dataclass(frozen=True)
class Llms:
    """A collection's LLM split (the paper's Table 1): three disjoint lists."""

    train: tuple[str, ...]
    validation: tuple[str, ...]
    test: tuple[str, ...]

    def of(self, role: str) -> tuple[str, ...]:
        return getattr(self, role)

    def as_dict(self) -> dict[str, list[str]]:
        return {r: list(self.of(r)) for r in ROLES}

    def all(self) -> list[str]:
        """Every LLM, in role order (train, validation, test)."""
        return [m for r in ROLES for m in self.of(r)]


@dataclass(frozen=True)
class Collection:
    """One collection of results the assessors are trained on (config
    `assessors.collections.<name>`)."""

    name: str
    loader: str
    llms: Llms
    # name -> held-out datasets, in the config's order (a tuple of pairs: picklable, frozen)
    ood: tuple[tuple[str, tuple[str, ...]], ...]
    enabled: bool
    bundle: str | None
    subdir: str
    path: str | None
    datasets: tuple[str, ...] | None
    max_instances: int | None
    nref_figure: str | None

    @property
    def ood_splits(self) -> dict[str, list[str]]:
        return {name: list(held) for name, held in self.ood}

    @property
    def split_names(self) -> list[str]:
        """ "random" (in distribution, always) and the OOD splits."""
        return ["random", *(name for name, _ in self.ood)]

    @classmethod
    def from_config(cls, name: str, section: Mapping[str, Any]) -> Collection:
        """From config `assessors.collections.<name>`; the keys it leaves out take their
        schema defaults (the config keeps such table entries as written)."""
        from evalsci.settings import entry_defaults

        section = {**entry_defaults("assessors", "collection"), **section}
        llms = section["llms"]
        return cls(
            name=name,
            loader=section["loader"],
            llms=Llms(*(tuple(llms[r]) for r in ROLES)),
            ood=tuple((k, tuple(v)) for k, v in (section["ood_splits"] or {}).items()),
            enabled=bool(section["enabled"]),
            bundle=section["bundle"],
            subdir=section["subdir"],
            path=section["path"],
            datasets=None if section["datasets"] is None else tuple(section["datasets"]),
            max_instances=section["max_instances"],
            nref_figure=section["nref_figure"],
        )


@dataclass(frozen=True)
class Embedding:
    model: str | None
    max_seq_length: int | None
    batch_size: int
    openai: bool


@dataclass(frozen=True)
class Irt:
    dims: int
    max_iter: int


@dataclass(frozen=True)
class Lomo:
    """Leave one model out (config `assessors.lomo`; evalsci.studies.assessors.lomo)."""

    enabled: bool
    benchmarks: tuple[str, ...]
    n_reference: tuple[int, ...]
    held_out_models: int
    max_items: int | None
    max_rows: int
    max_calibration: int
    irt_dims: int
    level: float
    test_level: float

    @classmethod
    def from_config(cls, section: Mapping[str, Any]) -> Lomo:
        return cls(
            enabled=bool(section["enabled"]),
            benchmarks=tuple(section["benchmarks"]),
            n_reference=tuple(int(n) for n in section["n_reference"]),
            held_out_models=int(section["held_out_models"]),
            max_items=None if section["max_items"] is None else int(section["max_items"]),
            max_rows=int(section["max_rows"]),
            max_calibration=int(section["max_calibration"]),
            irt_dims=int(section["irt_dims"]),
            level=float(section["level"]),
            test_level=float(section["test_level"]),
        )

    @property
    def active_benchmarks(self) -> list[str]:
        """The benchmarks to run: none when switched off."""
        return list(self.benchmarks) if self.enabled else []


@dataclass(frozen=True)
class AssessorsSettings:
    scale: str
    classifiers: tuple[str, ...]
    n_ref: int
    n_ref_sweep: tuple[int, ...]
    max_train_rows: int  # 0: every row (the paper)
    test_size: float
    validation_size: float
    selectors: tuple[str, ...]
    generic_features: tuple[str, ...]
    specific_features: tuple[str, ...]
    random_best_of_draws: int
    fa_max_factors: int
    irt: Irt
    embedding: Embedding
    collections: tuple[Collection, ...]  # the enabled ones, in the config's order
    lomo: Lomo

    @classmethod
    def from_config(cls, section: Mapping[str, Any]) -> AssessorsSettings:
        """From the resolved config["assessors"], which holds every key (no default is
        repeated here). Collections switched off (`enabled: false`) are left out."""
        emb, irt = section["embedding"], section["irt"]
        return cls(
            scale=section["scale"],
            classifiers=tuple(section["classifiers"]),
            n_ref=int(section["n_ref"]),
            n_ref_sweep=tuple(int(n) for n in section["n_ref_sweep"]),
            max_train_rows=int(section["max_train_rows"]),
            test_size=float(section["test_size"]),
            validation_size=float(section["validation_size"]),
            selectors=tuple(section["selectors"]),
            generic_features=tuple(section["generic_features"]),
            specific_features=tuple(section["specific_features"]),
            random_best_of_draws=int(section["random_best_of_draws"]),
            fa_max_factors=int(section["fa_max_factors"]),
            irt=Irt(dims=int(irt["dims"]), max_iter=int(irt["max_iter"])),
            embedding=Embedding(
                model=emb["model"],
                max_seq_length=emb["max_seq_length"],
                batch_size=int(emb["batch_size"]),
                openai=bool(emb["openai"]),
            ),
            collections=tuple(
                c
                for c in (
                    Collection.from_config(name, c)
                    for name, c in (section["collections"] or {}).items()
                )
                if c.enabled
            ),
            lomo=Lomo.from_config(section["lomo"]),
        )

    def collection(self, name: str) -> Collection:
        for c in self.collections:
            if c.name == name:
                return c
        raise KeyError(
            f"no enabled assessors collection {name!r}; enabled: {[c.name for c in self.collections]}"
        )

    @property
    def collection_names(self) -> list[str]:
        return [c.name for c in self.collections]

    @property
    def lomo_benchmarks(self) -> list[str]:
        """The leave-one-model-out benchmarks to run: the leaderboard ones, and the collections
        among them that are switched on (a collection switched off is skipped everywhere)."""
        from evalsci.data.leaderboard import LEADERBOARD_BENCHMARKS

        return [
            b
            for b in self.lomo.active_benchmarks
            if b in LEADERBOARD_BENCHMARKS or b in self.collection_names
        ]

    @property
    def n_combinations(self) -> dict[str, int]:
        """t of each search: the generic assessor's combinations and the n_ref sweep's."""
        return {
            "generic": len(self.generic_features) * len(self.selectors) * len(self.classifiers),
            "nref": len(self.n_ref_sweep) * len(self.generic_features),
        }

    @property
    def uses_irt(self) -> bool:
        """Whether a selector needs the IRT item features (the assessors_irt job)."""
        from evalsci.assess.selectors import SELECTORS

        return any(SELECTORS[s][1] == "irt" for s in self.selectors if s in SELECTORS)


def resolved_settings(**overrides: Any) -> AssessorsSettings:
    """The settings of the default preset with `overrides` on top (config keys of section
    `assessors`), resolved and validated as the workflow does: for tests and notebooks."""
    from evalsci.settings import resolved

    return AssessorsSettings.from_config(resolved({"assessors": overrides})["assessors"])
