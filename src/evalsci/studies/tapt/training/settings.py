"""The settings of one (LM type, dataset) run, typed: built and checked once from the resolved
config `tapt.training` (by evalsci.studies.tapt.settings.Training, while the workflow is read),
then passed as they are to the shard rule and its functions (shards, pretrain, classify,
zero_shot), which read attributes, never the config dict.

An LM type (`bert`, `gpt2`, `gpt2-epochs-2`, `mistral-qlora-zero-shot`: the author's result
directory names, which the analysis keys on) names a model, a method (`mlm`, `clm` or
`zero-shot`), its pretraining epochs and a hyperparameter table. A table maps dataset ->
batch sizes and classifier epochs (the author's experiment.sh groups), with `default` for
datasets it does not list; a dataset entry overrides only the keys it gives.

Every value comes from the resolved config, which holds every key (the schema's defaults,
workflow/schemas/tapt.schema.yaml, and the presets): nothing here repeats a default. An LM
type's keys left out of the config take their schema defaults (`$defs/lm_type`) through
evalsci.settings.entry_defaults, as the config keeps such table entries as written.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, NamedTuple

from evalsci.configcheck import where as config_where

METHODS = ("mlm", "clm", "zero-shot")
HP_KEYS = ("batch_size_pretrain", "batch_size_train", "batch_size_eval", "epochs_train")


class TrainingConfigError(ValueError):
    """A key of config `tapt.training` is missing or inconsistent."""


def _get(cfg: Mapping, key: str, where: str = "tapt.training"):
    if key not in cfg:
        raise TrainingConfigError(f"config {where}: missing key {key!r}")
    return cfg[key]


@dataclass(frozen=True)
class LmType:
    """One entry of config `tapt.training.lm_types`."""

    name: str
    model: str  # minilm, smollm2, an lm.models name, a hub id or a directory
    method: str  # one of METHODS
    pretrain_epochs: float
    hyperparameters: str  # its table in tapt.training.hyperparameters
    pack: bool  # zero-shot only: Section 9's packing variant

    @classmethod
    def from_config(cls, name: str, entry: Mapping) -> LmType:
        from evalsci.settings import entry_defaults

        key = f"tapt.training.lm_types.{name}"
        t = {**entry_defaults("tapt", "lm_type"), **entry}
        for k in ("model", "method", "pretrain_epochs", "hyperparameters"):
            _get(t, k, key)
        if t["method"] not in METHODS:
            raise TrainingConfigError(
                f"config {key}.method ({config_where(f'{key}.method')}): {t['method']!r} not in {METHODS}"
            )
        if t["pack"] and t["method"] != "zero-shot":
            raise TrainingConfigError(
                f"config {key}.pack ({config_where(f'{key}.pack')}): packing is the zero-shot variant "
                f"(Section 9); method is {t['method']!r}"
            )
        return cls(
            name=name,
            model=t["model"],
            method=t["method"],
            pretrain_epochs=t["pretrain_epochs"],
            hyperparameters=t["hyperparameters"],
            pack=bool(t["pack"]),
        )

    @property
    def zero_shot(self) -> bool:
        return self.method == "zero-shot"


@dataclass(frozen=True)
class Hyperparameters:
    """Batch sizes and classifier epochs of one (LM type, dataset): its table's `default` row
    with the dataset's row over it."""

    batch_size_pretrain: int
    batch_size_train: int
    batch_size_eval: int
    epochs_train: float

    @classmethod
    def of(cls, lm: LmType, dataset: str, tables: Mapping) -> Hyperparameters:
        name = lm.hyperparameters
        if name not in tables:
            raise TrainingConfigError(
                f"config tapt.training.lm_types.{lm.name}.hyperparameters ({config_where(f'tapt.training.lm_types.{lm.name}.hyperparameters')}): no table {name!r} "
                f"in tapt.training.hyperparameters ({sorted(tables)})"
            )
        table = tables[name]
        if "default" not in table:
            raise TrainingConfigError(
                f"config tapt.training.hyperparameters.{name} ({config_where(f'tapt.training.hyperparameters.{name}')}): needs a `default` entry"
            )
        hp = {**table["default"], **table.get(dataset, {})}
        missing = [k for k in HP_KEYS if k not in hp]
        if missing:
            raise TrainingConfigError(
                f"config tapt.training.hyperparameters.{name} ({config_where(f'tapt.training.hyperparameters.{name}')}): {dataset} lacks {missing}"
            )
        return cls(**{k: hp[k] for k in HP_KEYS})


def _fields(cls, section: Mapping, skip: tuple[str, ...] = ()) -> dict:
    """{field: the section's value} of a settings dataclass whose fields are the section's keys
    (the schema has filled in every default)."""
    return {f.name: section[f.name] for f in fields(cls) if f.name not in skip}


@dataclass(frozen=True)
class Pretrain:
    """MLM/CLM pretraining (config `tapt.training.pretrain`)."""

    learning_rate: float
    max_length: int
    mlm_probability: float

    @classmethod
    def from_config(cls, section: Mapping) -> Pretrain:
        return cls(**_fields(cls, section))


@dataclass(frozen=True)
class Classifier:
    """Classifier finetuning (config `tapt.training.classifier`); `max_length` None: the
    model's maximum."""

    learning_rate: float
    weight_decay: float
    max_length: int | None

    @classmethod
    def from_config(cls, section: Mapping) -> Classifier:
        return cls(**_fields(cls, section))


@dataclass(frozen=True)
class Lora:
    """The LoRA adapter (config `tapt.training.zero_shot.lora`)."""

    r: int
    lora_alpha: float
    lora_dropout: float


@dataclass(frozen=True)
class ZeroShot:
    """(Q)LoRA zero-shot (config `tapt.training.zero_shot`)."""

    learning_rate: float
    max_length: int
    packing_max_length: int
    quantize: str  # auto, nf4 or none
    chat_template: str  # auto or none
    lora: Lora

    @classmethod
    def from_config(cls, section: Mapping) -> ZeroShot:
        lora = Lora(**_fields(Lora, section["lora"]))
        return cls(**{**_fields(cls, section, skip=("lora",)), "lora": lora})


class RunSettings(NamedTuple):
    """Everything one shard of (LM type, dataset) needs. A NamedTuple (immutable, typed, its
    parts frozen dataclasses) rather than a dataclass, because it is the shard rules' param:
    Snakemake records a param's repr only for builtin types (tuple among them) and silently
    drops any other object, so with a dataclass a change to this run's settings would no
    longer rerun its shards."""

    lm_type: LmType
    dataset: str
    hyperparameters: Hyperparameters
    pretrain: Pretrain
    classifier: Classifier
    zero_shot: ZeroShot
    seed: int  # model heads, masks, dropout and data order of subsample i: seed + i
    split_seed: int  # the split of subsample i: the author's random_state split_seed + i

    @property
    def lm(self) -> str:
        return self.lm_type.name


def lm_types(section: Mapping) -> dict[str, LmType]:
    """Every LM type of config `tapt.training.lm_types`, checked."""
    return {name: LmType.from_config(name, t) for name, t in _get(section, "lm_types").items()}


def lm_type_of(types: Mapping[str, LmType], lm: str) -> LmType:
    """The LM type `lm`, or an error naming the config key that asks for it."""
    if lm not in types:
        raise TrainingConfigError(
            f"config tapt.training.lm_types ({config_where('tapt.training.lms')}): no LM type {lm!r}; "
            f"known: {sorted(types)}"
        )
    return types[lm]


def run_settings(
    section: Mapping, types: Mapping[str, LmType], lm: str, dataset: str
) -> RunSettings:
    """The settings of run (lm, dataset) from the resolved `tapt.training` and its LM types."""
    t = lm_type_of(types, lm)
    return RunSettings(
        lm_type=t,
        dataset=dataset,
        hyperparameters=Hyperparameters.of(t, dataset, _get(section, "hyperparameters")),
        pretrain=Pretrain.from_config(_get(section, "pretrain")),
        classifier=Classifier.from_config(_get(section, "classifier")),
        zero_shot=ZeroShot.from_config(_get(section, "zero_shot")),
        seed=int(_get(section, "seed")),
        split_seed=int(_get(section, "split_seed")),
    )


def subsample_counts(section: Mapping) -> int | tuple[int, ...]:
    """Config `num_subsamples`, checked: one int, or one count per value of `n`."""
    ns, counts = list(_get(section, "n")), _get(section, "num_subsamples")
    if isinstance(counts, int):
        return counts
    if len(counts) != len(ns):
        raise TrainingConfigError(
            f"config tapt.training.num_subsamples ({config_where('tapt.training.num_subsamples')}): {len(counts)} values for {len(ns)} n values"
        )
    return tuple(int(c) for c in counts)


def num_subsamples(ns: tuple[int, ...], counts: int | tuple[int, ...], n: int) -> int:
    """Subsamples for test size n (`counts`: subsample_counts of config n = `ns`)."""
    if isinstance(counts, int):
        return counts
    if n not in ns:
        raise TrainingConfigError(
            f"config tapt.training.n ({config_where('tapt.training.n')}): {n} not in {list(ns)}"
        )
    return counts[ns.index(n)]


def runs(section: Mapping, types: Mapping[str, LmType]) -> list[dict[str, Any]]:
    """Every (m, n, lm, dataset, num_subsamples) the config asks for. Zero-shot LM types
    ignore train but keep m, so their test splits equal the few-shot ones (as the author)."""
    from evalsci.data.hf_classification import ClassificationDataError, get_spec

    for dataset in _get(section, "datasets"):  # unknown names fail at parse time, not in a job
        try:
            get_spec(dataset)
        except ClassificationDataError as e:
            raise TrainingConfigError(
                f"config tapt.training.datasets ({config_where('tapt.training.datasets')}): {e}"
            ) from None
    ns, counts = tuple(int(n) for n in _get(section, "n")), subsample_counts(section)
    out = []
    for m in _get(section, "m"):
        for n in ns:
            for lm in _get(section, "lms"):
                lm_type_of(types, lm)
                for dataset in _get(section, "datasets"):
                    out.append(
                        {
                            "m": int(m),
                            "n": n,
                            "lm": lm,
                            "dataset": dataset,
                            "num_subsamples": num_subsamples(ns, counts, n),
                        }
                    )
    return out
