"""Resolve config `tapt.training` into the settings of one (LM type, dataset) run.

An LM type (`bert`, `gpt2`, `gpt2-epochs-2`, `mistral-qlora-zero-shot`: the author's result
directory names, which the analysis keys on) names a model, a method (`mlm`, `clm` or
`zero-shot`), its pretraining epochs and a hyperparameter table. A table maps dataset ->
batch sizes and classifier epochs (the author's experiment.sh groups), with `default` for
datasets it does not list; a dataset entry overrides only the keys it gives.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evalsci.configcheck import where as config_where

METHODS = ("mlm", "clm", "zero-shot")
HP_KEYS = ("batch_size_pretrain", "batch_size_train", "batch_size_eval", "epochs_train")


class TrainingConfigError(ValueError):
    """A key of config `tapt.training` is missing or inconsistent."""


def _get(cfg: Mapping, key: str, where: str = "tapt.training"):
    if key not in cfg:
        raise TrainingConfigError(f"config {where}: missing key {key!r}")
    return cfg[key]


def lm_type(cfg: Mapping, lm: str) -> dict[str, Any]:
    types = _get(cfg, "lm_types")
    if lm not in types:
        raise TrainingConfigError(
            f"config tapt.training.lm_types ({config_where('tapt.training.lms')}): no LM type {lm!r}; "
            f"known: {sorted(types)}"
        )
    t = dict(types[lm])
    for key in ("model", "method", "pretrain_epochs", "hyperparameters"):
        _get(t, key, f"tapt.training.lm_types.{lm}")
    if t["method"] not in METHODS:
        raise TrainingConfigError(
            f"config tapt.training.lm_types.{lm}.method ({config_where(f'tapt.training.lm_types.{lm}.method')}): {t['method']!r} not in {METHODS}"
        )
    if t.get("pack") and t["method"] != "zero-shot":
        raise TrainingConfigError(
            f"config tapt.training.lm_types.{lm}.pack ({config_where(f'tapt.training.lm_types.{lm}.pack')}): packing is the zero-shot variant "
            f"(Section 9); method is {t['method']!r}"
        )
    return t


def is_zero_shot(cfg: Mapping, lm: str) -> bool:
    return lm_type(cfg, lm)["method"] == "zero-shot"


def hyperparameters(cfg: Mapping, lm: str, dataset: str) -> dict[str, Any]:
    """Batch sizes and classifier epochs of (lm, dataset)."""
    table_name = lm_type(cfg, lm)["hyperparameters"]
    tables = _get(cfg, "hyperparameters")
    if table_name not in tables:
        raise TrainingConfigError(
            f"config tapt.training.lm_types.{lm}.hyperparameters ({config_where(f'tapt.training.lm_types.{lm}.hyperparameters')}): no table {table_name!r} "
            f"in tapt.training.hyperparameters ({sorted(tables)})"
        )
    table = tables[table_name]
    if "default" not in table:
        raise TrainingConfigError(
            f"config tapt.training.hyperparameters.{table_name} ({config_where(f'tapt.training.hyperparameters.{table_name}')}): needs a `default` entry"
        )
    hp = {**table["default"], **table.get(dataset, {})}
    missing = [k for k in HP_KEYS if k not in hp]
    if missing:
        raise TrainingConfigError(
            f"config tapt.training.hyperparameters.{table_name} ({config_where(f'tapt.training.hyperparameters.{table_name}')}): {dataset} lacks {missing}"
        )
    return hp


def run_settings(cfg: Mapping, lm: str, dataset: str) -> dict[str, Any]:
    """Everything one shard of (lm, dataset) needs, flat."""
    t = lm_type(cfg, lm)
    out = {"lm": lm, "dataset": dataset, **t, **hyperparameters(cfg, lm, dataset)}
    out["pretrain"] = dict(_get(cfg, "pretrain"))
    out["classifier"] = dict(_get(cfg, "classifier"))
    out["zero_shot"] = dict(_get(cfg, "zero_shot"))
    out["seed"] = int(_get(cfg, "seed"))
    out["split_seed"] = int(_get(cfg, "split_seed"))
    return out


def num_subsamples(cfg: Mapping, n: int) -> int:
    """Subsamples for test size n: an int, or a list parallel to `n`."""
    ns, counts = list(_get(cfg, "n")), _get(cfg, "num_subsamples")
    if isinstance(counts, int):
        return counts
    if len(counts) != len(ns):
        raise TrainingConfigError(
            f"config tapt.training.num_subsamples ({config_where('tapt.training.num_subsamples')}): {len(counts)} values for {len(ns)} n values"
        )
    if n not in ns:
        raise TrainingConfigError(
            f"config tapt.training.n ({config_where('tapt.training.n')}): {n} not in {ns}"
        )
    return int(counts[ns.index(n)])


def runs(cfg: Mapping) -> list[dict[str, Any]]:
    """Every (m, n, lm, dataset, num_subsamples) the config asks for. Zero-shot LM types
    ignore train but keep m, so their test splits equal the few-shot ones (as the author)."""
    from evalsci.data.hf_classification import ClassificationDataError, get_spec

    for dataset in _get(cfg, "datasets"):  # unknown names fail at parse time, not in a job
        try:
            get_spec(dataset)
        except ClassificationDataError as e:
            raise TrainingConfigError(
                f"config tapt.training.datasets ({config_where('tapt.training.datasets')}): {e}"
            ) from None
    out = []
    for m in _get(cfg, "m"):
        for n in _get(cfg, "n"):
            for lm in _get(cfg, "lms"):
                lm_type(cfg, lm)
                for dataset in _get(cfg, "datasets"):
                    out.append(
                        {
                            "m": int(m),
                            "n": int(n),
                            "lm": lm,
                            "dataset": dataset,
                            "num_subsamples": num_subsamples(cfg, n),
                        }
                    )
    return out
