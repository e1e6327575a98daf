"""One subsample = one shard: acc_base, acc_extra, acc_test (Sections 4.1-4.3, 9), and the
merge of a run's shards into the author's `accuracies.csv`.

Shard files of subsample i (1-based) of (m, n, lm, dataset), under
`results/tapt/recompute/shards/m{m}/n{n}/{lm}/{dataset}/`:
- `{i:03d}.predictions.csv.gz`: the n test rows: subsample, index_from_full_split, text,
  label, pred_prob_{k}_{base|extra|test} (the author's `subsample_test_{i}.csv`, gzipped);
- `{i:03d}.metrics.csv`: one row per training step (pretrain_extra, classifier_base, ...):
  the Trainer's metrics (train_loss, train_runtime, ...);
- `{i:03d}.accuracies.csv`: one row: subsample, base, extra, test, majority, num_classes,
  majority_all, random_state, train_size, seconds. Written last, atomically: it marks the
  shard done, so a rerun after a kill redoes only the shards without it.

Every random choice of a shard is seeded from (config seed, i) alone: the split uses the
author's `split_seed + i` (identical for every LM), and model heads, masks, dropout and data
order use `seed + i`. A shard therefore gives the same numbers whether it runs in a full
pass or after an interrupt (on the same hardware and thread count).

`merge` writes `accuracies/m{m}/n{n}/{lm}/{dataset}/`: `accuracies.csv` (exactly the
author's six columns, one row per subsample, in order), `subsamples.csv` (the shard rows
with their metadata), `predictions.csv.gz` and `train_metrics.csv` (all shards).
"""

from __future__ import annotations

import logging
import shutil
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from evalsci.studies.tapt.columns import ACCURACY_COLUMNS, SHARD_COLUMNS
from evalsci.studies.tapt.training import splits
from evalsci.studies.tapt.training.settings import RunSettings

log = logging.getLogger(__name__)

METHODS = ("base", "extra", "test")
# The files of one subsample's shard ({i}: the subsample, 3 digits) and of one run's merged
# directory (the author's result layout: m{m}/n{n}/{lm}/{dataset}/accuracies.csv and its
# companions), by role: run_subsamples and merge write them, the tapt plan
# (evalsci.studies.tapt.plan) names them for the workflow.
SHARD_FILES = {
    "accuracies": "{i}.accuracies.csv",
    "predictions": "{i}.predictions.csv.gz",
    "metrics": "{i}.metrics.csv",
}
RUN_FILES = {
    "accuracies": "accuracies.csv",
    "subsamples": "subsamples.csv",
    "predictions": "predictions.csv.gz",
    "metrics": "train_metrics.csv",
}


@dataclass(frozen=True)
class ShardPaths:
    accuracies: Path
    predictions: Path
    metrics: Path

    def __post_init__(self):
        for name in ("accuracies", "predictions", "metrics"):
            object.__setattr__(self, name, Path(getattr(self, name)))

    @classmethod
    def of(cls, shard_dir: str | Path, i: int) -> ShardPaths:
        d = Path(shard_dir)
        return cls(*(d / SHARD_FILES[k].format(i=f"{i:03d}") for k in SHARD_FILES))

    def done(self) -> bool:
        return self.accuracies.is_file() and self.predictions.is_file() and self.metrics.is_file()


def _write_csv(df: pd.DataFrame, path: str | Path) -> None:
    from evalsci.pipeline.jobs import atomic_path

    path = Path(path)
    # gzip without a timestamp so reruns are byte-identical
    compression = {"method": "gzip", "mtime": 0} if path.suffix == ".gz" else None
    with atomic_path(path) as tmp:
        df.to_csv(tmp, index=False, compression=compression)


# ---------------------------------------------------------------------------------------
# The two kinds of shard
# ---------------------------------------------------------------------------------------
def _few_shot(
    settings: RunSettings,
    split: splits.Split,
    num_labels: int,
    seed: int,
    device: str,
    dtype: str,
    lm_models: Mapping | None,
    tmp: Path,
):
    """acc_base / acc_extra / acc_test probabilities for a BERT- or GPT-2-type LM."""
    from evalsci.studies.tapt.training import classify, models, pretrain

    path = models.model_path(models.model_spec(settings.lm_type.model, lm_models))
    tok = models.load_tokenizer(path)
    hp = settings.hyperparameters
    train_texts, train_labels = split.train["text"].tolist(), split.train["label"].tolist()
    test_texts = split.test["text"].tolist()

    def classifier(from_path: str):
        return classify.train_classifier(
            from_path,
            tok,
            train_texts,
            train_labels,
            num_labels,
            settings=settings.classifier,
            epochs=hp.epochs_train,
            batch_size=hp.batch_size_train,
            eval_batch_size=hp.batch_size_eval,
            seed=seed,
            device=device,
            dtype=dtype,
            work_dir=str(tmp),
        )

    probs, metrics = {}, []
    t0 = time.perf_counter()
    clf = classifier(path)
    probs["base"] = clf.predict_proba(test_texts)
    metrics.append({"step": "classifier_base", **clf.metrics})
    log.info("base: %.1f s", time.perf_counter() - t0)
    del clf
    for source in ("extra", "test"):
        t0 = time.perf_counter()
        pre_dir = tmp / f"pretrained_{source}"
        m = pretrain.pretrain(
            path,
            tok,
            getattr(split, source)["text"].tolist(),
            str(pre_dir),
            settings=settings.pretrain,
            method=settings.lm_type.method,
            epochs=settings.lm_type.pretrain_epochs,
            batch_size=hp.batch_size_pretrain,
            seed=seed,
            device=device,
            dtype=dtype,
            work_dir=str(tmp),
        )
        metrics.append({"step": f"pretrain_{source}", **m})
        clf = classifier(str(pre_dir))
        probs[source] = clf.predict_proba(test_texts)
        metrics.append({"step": f"classifier_{source}", **clf.metrics})
        del clf
        shutil.rmtree(pre_dir, ignore_errors=True)
        log.info(
            "%s: pretrain loss %.3f, %.1f s", source, m["train_loss"], time.perf_counter() - t0
        )
    return probs, metrics


def _zero_shot(
    settings: RunSettings,
    split: splits.Split,
    spec,
    seed: int,
    device: str,
    dtype: str | None,
    lm_models: Mapping | None,
    tmp: Path,
):
    """Zero-shot probabilities: base model, and after (Q)LoRA on extra / test prompts."""
    from evalsci.studies.tapt.training import models, zero_shot

    zs, hp, pack = settings.zero_shot, settings.hyperparameters, settings.lm_type.pack
    model_spec = models.model_spec(settings.lm_type.model, lm_models)
    test_texts = split.test["text"].tolist()
    probs, metrics = {}, []
    t0 = time.perf_counter()
    model, tok = zero_shot.load_base(model_spec, device=device, dtype=dtype, quantize=zs.quantize)
    prefix, rest = zero_shot.prompts(tok, test_texts, spec, zs.chat_template)
    probs["base"] = zero_shot.predict_proba(
        model, tok, prefix, rest, spec.class_names, batch_size=hp.batch_size_eval
    )
    log.info("base: %.1f s", time.perf_counter() - t0)
    del model
    for source in ("extra", "test"):
        t0 = time.perf_counter()
        texts = getattr(split, source)["text"].tolist()
        if pack:
            # packing: batch_size_pretrain texts per sequence, one sequence per step
            train_texts = zero_shot.packed_prompts(
                tok, texts, spec, hp.batch_size_pretrain, zs.chat_template
            )
            batch_size, max_length = 1, zs.packing_max_length
        else:
            p, r = zero_shot.prompts(tok, texts, spec, zs.chat_template)
            train_texts = [p + x for x in r]
            batch_size, max_length = hp.batch_size_pretrain, zs.max_length
        model, tok2, m = zero_shot.train_adapter(
            model_spec,
            train_texts,
            settings=zs,
            epochs=settings.lm_type.pretrain_epochs,
            batch_size=batch_size,
            max_length=max_length,
            seed=seed,
            device=device,
            dtype=dtype,
            work_dir=str(tmp),
        )
        m["packed"] = pack
        metrics.append({"step": f"pretrain_{source}", **m})
        probs[source] = zero_shot.predict_proba(
            model, tok2, prefix, rest, spec.class_names, batch_size=hp.batch_size_eval
        )
        del model
        log.info("%s: adapter loss %.3f, %.1f s", source, m["train_loss"], time.perf_counter() - t0)
    return probs, metrics


def run_shard(
    settings: RunSettings,
    frame: pd.DataFrame,
    *,
    m: int,
    n: int,
    i: int,
    paths: ShardPaths,
    lm_models: Mapping | None = None,
    device: str = "auto",
    cpu_dtype: str = "float32",
    work_dir: str | Path | None = None,
) -> pd.Series:
    """Compute subsample `i` of (settings' lm and dataset) and write its shard files.

    `cpu_dtype` is config lm.cpu_dtype: the precision of every model on CPU (float32 unless
    the user opts in). On CUDA the classifiers and MLM/CLM pretraining stay float32 and the
    zero-shot base loads with the loader's CUDA default (NF4 weights, bf16 compute)."""
    import torch

    from evalsci.data.hf_classification import get_spec
    from evalsci.lm.placement import placement
    from evalsci.studies.tapt.training import models

    t_start = time.perf_counter()
    spec = get_spec(settings.dataset)
    # the model's own `dtype` (config lm.models.<name>.dtype) wins over lm.cpu_dtype
    model = models.model_spec(settings.lm_type.model, lm_models)
    where = placement({"cpu_dtype": cpu_dtype}, model, device=device)
    device = where.device
    split = splits.split(frame, m, n, i, settings.split_seed)
    seed = settings.seed + i
    num_labels = spec.num_classes
    if frame["label"].nunique() != num_labels:
        log.warning(
            "%s: %d labels present, %d class names", spec.key, frame["label"].nunique(), num_labels
        )
    grad = torch.is_grad_enabled()
    with tempfile.TemporaryDirectory(prefix="tapt-", dir=work_dir) as tmp:
        if settings.lm_type.zero_shot:
            probs, metrics = _zero_shot(
                settings, split, spec, seed, device, where.dtype, lm_models, Path(tmp)
            )
        else:
            probs, metrics = _few_shot(
                settings,
                split,
                num_labels,
                seed,
                device,
                where.dtype or "float32",
                lm_models,
                Path(tmp),
            )
    torch.set_grad_enabled(grad)

    labels = split.test["label"].to_numpy()
    row = {"subsample": i}
    for method in METHODS:
        p = np.asarray(probs[method])
        if p.shape != (len(labels), num_labels):
            raise RuntimeError(
                f"{method}: probabilities of shape {p.shape}, expected {(len(labels), num_labels)}"
            )
        row[method] = float(np.mean(p.argmax(axis=1) == labels))
    row["majority"] = float(split.test["label"].value_counts(normalize=True).max())
    row["num_classes"] = int(frame["label"].nunique())
    row["majority_all"] = float(frame["label"].value_counts(normalize=True).max())
    row["random_state"] = split.random_state
    row["train_size"] = len(split.train)
    row["seconds"] = round(time.perf_counter() - t_start, 1)

    pred = split.test[["text", "label"]].reset_index()
    pred.insert(0, "subsample", i)
    for method in METHODS:
        for k in range(num_labels):
            pred[f"pred_prob_{k}_{method}"] = np.asarray(probs[method])[:, k]
    met = pd.DataFrame(metrics)
    met.insert(0, "subsample", i)
    _write_csv(pred, paths.predictions)
    _write_csv(met, paths.metrics)
    _write_csv(pd.DataFrame([row], columns=list(SHARD_COLUMNS)), paths.accuracies)
    log.info(
        "subsample %d: base %.3f extra %.3f test %.3f (%.0f s)",
        i,
        row["base"],
        row["extra"],
        row["test"],
        row["seconds"],
    )
    return pd.Series(row)


def run_subsamples(
    settings: RunSettings,
    frame: pd.DataFrame,
    *,
    m: int,
    n: int,
    subsamples: Sequence[int],
    shard_dir: str | Path,
    lm_models: Mapping | None = None,
    device: str = "auto",
    cpu_dtype: str = "float32",
    shard_fn: Callable[..., Any] | None = None,
) -> list[ShardPaths]:
    """Run the shards of `subsamples` that are not done yet (resume after an interrupt)."""
    from evalsci.pipeline.progress import progress_bar

    shard_fn = shard_fn or run_shard
    out = []
    for i in progress_bar(list(subsamples), desc=f"{settings.lm}/{settings.dataset}"):
        paths = ShardPaths.of(shard_dir, i)
        if not paths.done():
            shard_fn(
                settings,
                frame,
                m=m,
                n=n,
                i=i,
                paths=paths,
                lm_models=lm_models,
                device=device,
                cpu_dtype=cpu_dtype,
            )
        out.append(paths)
    return out


def merge(shards: Sequence[ShardPaths], out_dir: str | Path) -> Path:
    """Write the author's accuracies.csv (and companions, RUN_FILES) in `out_dir` from a run's
    shards, in order."""
    out_dir = Path(out_dir)
    rows = []
    for p in shards:
        df = pd.read_csv(p.accuracies)
        missing = [c for c in SHARD_COLUMNS if c not in df.columns]
        if missing or len(df) != 1:
            raise ValueError(f"{p.accuracies}: not a shard row (missing {missing}, {len(df)} rows)")
        rows.append(df)
    acc = pd.concat(rows, ignore_index=True)
    expected = list(range(1, len(shards) + 1))
    if acc["subsample"].tolist() != expected:
        raise ValueError(
            f"shards in {out_dir}: subsamples {acc['subsample'].tolist()}, expected {expected}"
        )
    preds = pd.concat([pd.read_csv(p.predictions) for p in shards], ignore_index=True)
    mets = pd.concat([pd.read_csv(p.metrics) for p in shards], ignore_index=True)
    _write_csv(preds, out_dir / RUN_FILES["predictions"])
    _write_csv(mets, out_dir / RUN_FILES["metrics"])
    _write_csv(acc, out_dir / RUN_FILES["subsamples"])
    _write_csv(acc[list(ACCURACY_COLUMNS)], out_dir / RUN_FILES["accuracies"])
    return out_dir / RUN_FILES["accuracies"]


def write_manifest(
    runs: Sequence[Mapping[str, Any]], accuracy_files: Sequence[str | Path], out: str | Path
) -> pd.DataFrame:
    """One row per run (m, n, lm, dataset, num_subsamples, path), after checking each
    accuracies.csv has the author's columns and one row per subsample."""
    if len(runs) != len(accuracy_files):
        raise ValueError(f"{len(runs)} runs but {len(accuracy_files)} accuracies files")
    rows = []
    for run, path in zip(runs, accuracy_files, strict=True):
        df = pd.read_csv(path)
        if list(df.columns) != list(ACCURACY_COLUMNS):
            raise ValueError(f"{path}: columns {list(df.columns)}, expected {ACCURACY_COLUMNS}")
        if len(df) != run["num_subsamples"]:
            raise ValueError(f"{path}: {len(df)} rows, expected {run['num_subsamples']}")
        rows.append(
            {
                **{k: run[k] for k in ("m", "n", "lm", "dataset", "num_subsamples")},
                "path": str(path),
            }
        )
    manifest = pd.DataFrame(rows, columns=["m", "n", "lm", "dataset", "num_subsamples", "path"])
    _write_csv(manifest, Path(out))
    return manifest
