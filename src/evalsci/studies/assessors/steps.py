"""The steps the workflow runs, one function per rule (workflow/rules/assessors.smk).

Files per collection under `results/assessors/<collection>/`:
  data/instances.csv.gz, data/success.csv.gz, data/coverage.csv   (assessors_data)
  data/embeddings.npy                                             (assessors_embed)
  data/splits.csv                                                 (assessors_splits)
  data/irt.npz                                                    (assessors_irt)
  runs/<split>.csv.gz, runs/<split>_references.json               (assessors_run)
  nref/<split>.csv.gz                                             (assessors_run, after the run)
  tables/figure2.{csv,md,tex}, tables/table3.csv                  (assessors_make_selection)
  figures/figure2.{pdf,png}                                       (assessors_make_figure2)
  figures/figure{8,9}.{pdf,png}, tables/figure{8,9}.csv           (assessors_make_nref_figure)
and `results/assessors/tables/table3.*` (assessors_make_table3), and
`results/assessors/maxrandom/requests.csv` (assessors_maxrandom_requests) for the shared max
random rule.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from evalsci.pipeline.jobs import atomic_path
from evalsci.studies.assessors.columns import NREF_COLUMNS

from .collections import load_collection, read_instances, read_success
from .settings import AssessorsSettings, Collection, Embedding, Lomo
from .splits import check_llm_splits, define_splits, make_instance_splits

__all__ = [
    "build_data",
    "build_embeddings",
    "build_splits",
    "build_irt",
    "run_split_and_nref",
    "run_one_split",
    "run_one_nref",
    "build_requests_file",
    "select_collection",
    "make_figure2",
    "make_table3",
    "make_nref_figure",
]

log = logging.getLogger(__name__)


def build_data(
    collection: Collection,
    seed: int,
    instances: str,
    success: str,
    coverage: str,
    bundle: str = "",
    run_list: str | None = None,
) -> None:
    """Load a collection from its released bundle (or raw path) into the normalised tables;
    a HELM collection reads its runs from the run list bundle (`run_list`)."""
    root = Path(collection.path or Path(bundle) / collection.subdir)
    if run_list is not None:
        run_list = f"{run_list}/experiments/download_helm/helm_lite.csv"
    inst, succ, cov = load_collection(collection, root, seed, run_list=run_list)
    gaps = cov[cov["n_missing"] > 0] if "n_missing" in cov else cov.iloc[:0]
    name = collection.name
    if len(gaps):
        log.warning(
            "%s: coverage gaps (LLM lacks instances others have):\n%s", name, gaps.to_string()
        )
    else:
        log.info("%s: every LLM covers the same instances", name)
    for out, df in ((instances, inst), (success, succ), (coverage, cov)):
        with atomic_path(out) as tmp:
            df.to_csv(tmp, index=False, compression="gzip" if str(out).endswith(".gz") else None)


def build_embeddings(instances: str, embedding: Embedding, embeddings: str) -> None:
    """Sentence embeddings of every instance text (cached once per collection)."""
    from .features import embed_openai, embed_sentences

    texts = read_instances(instances)["text"].tolist()
    if embedding.openai and os.environ.get("OPENAI_API_KEY"):
        emb = embed_openai(texts, dims=1024)  # the paper truncates to 1024
    else:
        if embedding.openai:
            log.warning(
                "embedding.openai is set but OPENAI_API_KEY is not: using sentence embeddings"
            )
        emb = embed_sentences(
            texts,
            model=embedding.model,
            max_seq_length=embedding.max_seq_length,
            batch_size=embedding.batch_size,
        )
    with atomic_path(embeddings) as tmp:
        with open(tmp, "wb") as fh:
            np.save(fh, emb)


def build_splits(
    instances: str, settings: AssessorsSettings, collection: Collection, seed: int, splits: str
) -> None:
    inst = read_instances(instances)
    held = define_splits(inst["dataset"].tolist(), collection.ood_splits)
    roles = make_instance_splits(
        inst,
        held,
        seed,
        test_size=settings.test_size,
        validation_size=settings.validation_size,
    )
    summary = {s: roles[s].value_counts().to_dict() for s in roles.columns}
    log.info("split sizes: %s", summary)
    with atomic_path(splits) as tmp:
        roles.reset_index().to_csv(tmp, index=False)


def _load_split(
    data_paths: Mapping[str, str], split: str, collection: Collection, embeddings: bool = True
):
    """The split's SplitData; embeddings=False gives zero-width embeddings (for the IRT job,
    which runs before the embeddings exist and needs only the success matrix)."""
    from .experiment import SplitData

    inst = read_instances(data_paths["instances"])
    succ = read_success(data_paths["success"]).loc[inst["instance_id"]]
    emb = np.load(data_paths["embeddings"]) if embeddings else np.empty((len(inst), 0), np.float32)
    roles = pd.read_csv(data_paths["splits"], dtype={"instance_id": str}).set_index("instance_id")
    if split not in roles.columns:
        raise KeyError(f"{data_paths['splits']}: no split {split!r}; have {list(roles.columns)}")
    roles = roles.loc[inst["instance_id"], split]
    llms = collection.llms.as_dict()
    check_llm_splits(llms, list(succ.columns))
    return SplitData(
        split, emb, succ[collection.llms.all()], roles, llms, texts=inst["text"].tolist()
    )


def build_irt(
    instances: str,
    success: str,
    splits: str,
    settings: AssessorsSettings,
    collection: Collection,
    seed: int,
    irt: str,
) -> None:
    """The IRT selectors' item features of every split (irt.npz: `features/<split>` and the
    training instance ids they belong to, `ids/<split>`). One job per collection: torch's
    import (~2.5 s) is paid once, not by every split's job. Empty without IRT selectors."""
    from .experiment import irt_item_features, split_seed

    data_paths = {"instances": instances, "success": success, "splits": splits}
    arrays = {}
    if settings.uses_irt:
        for split in collection.split_names:
            data = _load_split(data_paths, split, collection, embeddings=False)
            arrays[f"features/{split}"] = irt_item_features(
                data, settings.irt, split_seed(seed, split)
            )
            arrays[f"ids/{split}"] = np.asarray(data.ids["train"], dtype=str)
            log.info(
                "%s: IRT on %d training LLMs x %d training instances",
                split,
                len(data.llms["train"]),
                len(data.pos["train"]),
            )
    with atomic_path(irt) as tmp, open(tmp, "wb") as fh:
        np.savez(fh, **arrays)


def _irt_features(path: str, data) -> np.ndarray:
    """The split's IRT item features from `build_irt`'s file, checked against its training set."""
    with np.load(path) as z:
        key = f"features/{data.split}"
        if key not in z.files:
            raise KeyError(
                f"{path}: no IRT features for split {data.split!r}; has "
                f"{sorted(k.split('/', 1)[1] for k in z.files if k.startswith('features/'))}"
            )
        ids, feats = z[f"ids/{data.split}"], z[key]
    if not np.array_equal(ids, np.asarray(data.ids["train"], dtype=str)):
        raise ValueError(
            f"{path}: the IRT features of {data.split!r} belong to other training "
            "instances than the split's (rerun assessors_irt)"
        )
    return feats


def run_split_and_nref(
    instances: str,
    success: str,
    embeddings: str,
    splits: str,
    irt: str,
    asplit: str,
    settings: AssessorsSettings,
    collection: Collection,
    seed: int,
    results: str,
    references: str,
    predictions: str,
    nref: str,
    threads: int = 1,
) -> None:
    """One split's job (rule assessors_run): every combination and baseline (`run_one_split`),
    then the n_ref sweep of Figures 8-9 (`run_one_nref`), which reuses the run's own point."""
    data = {
        "instances": instances,
        "success": success,
        "embeddings": embeddings,
        "splits": splits,
        "irt": irt,
    }
    run = {"results": results, "references": references, "predictions": predictions}
    run_one_split(data, asplit, settings, collection, seed, run, threads=threads)
    reuse = {"run_results": results, "run_references": references}
    run_one_nref(data | reuse, asplit, settings, collection, seed, nref, threads=threads)


def run_one_split(
    data_paths: Mapping[str, str],
    split: str,
    settings: AssessorsSettings,
    collection: Collection,
    seed: int,
    out: Mapping[str, str],
    threads: int = 1,
) -> None:
    from .experiment import run_split, split_seed

    data = _load_split(data_paths, split, collection)
    use_irt = settings.uses_irt and "irt" in data_paths
    irt = _irt_features(data_paths["irt"], data) if use_irt else None
    preds: list = []
    res, refs = run_split(
        data,
        settings,
        split_seed(seed, split),
        threads=threads,
        irt_features=irt,
        row_predictions=preds,
    )
    with atomic_path(out["results"]) as tmp:
        res.to_csv(tmp, index=False, compression="gzip")
    if "predictions" in out:
        from .uncertainty import write_predictions

        with atomic_path(out["predictions"]) as tmp:
            write_predictions(tmp, res, preds, data)
    with atomic_path(out["references"]) as tmp:
        tmp.write_text(json.dumps(refs, indent=1, sort_keys=True))


def run_one_nref(
    data_paths: Mapping[str, str],
    split: str,
    settings: AssessorsSettings,
    collection: Collection,
    seed: int,
    out: str,
    threads: int = 1,
) -> None:
    from .experiment import SplitRunRows, run_nref, split_seed

    data = _load_split(data_paths, split, collection)
    # Figures 8-9 use XGBoost: the grid's own variant of it (binned as the grid's), else plain.
    xgb = next((c for c in settings.classifiers if c.startswith("xgboost")), "xgboost")
    # The sweep's point at the configured n_ref was fitted by the split's run: reuse it.
    reuse = (
        SplitRunRows.read(
            data_paths["run_results"],
            data_paths["run_references"],
            settings.n_ref,
            settings.max_train_rows,
        )
        if "run_results" in data_paths
        else None
    )
    res = run_nref(
        data,
        list(settings.n_ref_sweep),
        list(settings.generic_features),
        split_seed(seed, split),
        classifier=xgb,
        threads=threads,
        max_train_rows=settings.max_train_rows,
        reuse=reuse,
    )
    with atomic_path(out) as tmp:
        res.to_csv(tmp, index=False, compression="gzip")


def build_requests_file(
    success: Sequence[str],
    splits: Sequence[str],
    collections: Sequence[str],
    settings: AssessorsSettings,
    requests: str,
) -> None:
    """maxrandom requests for every collection (its success table and splits, in order)."""
    from evalsci.maxrandom.requests import write_requests

    from .maxrandom_requests import build_requests

    t = settings.n_combinations
    frames = []
    for name, succ_path, splits_path in zip(collections, success, splits, strict=True):
        llms = settings.collection(name).llms.as_dict()
        succ = read_success(succ_path)
        roles = pd.read_csv(splits_path, dtype={"instance_id": str}).set_index("instance_id")
        frames.append(build_requests(name, succ, roles, llms, t))
    write_requests(pd.concat(frames, ignore_index=True), requests)


def _read_runs(paths: Sequence[str]) -> pd.DataFrame:
    from .columns import RESULT_COLUMNS

    # `row`: the row's position in its own split's file (how its predictions are stored)
    df = pd.concat(
        [
            pd.read_csv(p, keep_default_na=False, na_values=[""]).rename_axis("row").reset_index()
            for p in paths
        ],
        ignore_index=True,
    )
    missing = [c for c in RESULT_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"run tables {list(paths)[:2]}...: missing columns {missing}")
    for c in ("features", "selector", "classifier"):
        df[c] = df[c].fillna("").astype(str)
    return df


def select_collection(
    runs: Sequence[str],
    figure2: Sequence[str],
    table3: str,
    summary: str,
    predictions: Sequence[str] | None = None,
    seed: int = 0,
    paired: str | None = None,
    resamples: str | None = None,
) -> None:
    """Figure 2 data (figure2.{csv,md,tex}) and the winning combinations (table3.csv); with
    the runs' predictions also the test AUCs against 0.5 with DeLong intervals and each
    winner's stability under resampling (figure2_summary.csv, table3's `stability`), the
    paired DeLong differences of every two methods per split (`paired`) and the generic
    winner of every resample (`resamples`): what the claims ledger's tests read."""
    from evalsci.tables import write_table

    from .selection import figure2_table
    from .selection import table3 as table3_rows

    run_paths, out_table3, out_summary = runs, table3, summary
    res = _read_runs(run_paths)
    write_table(figure2_table(res), figure2)
    t3 = table3_rows(res)
    if predictions is not None:
        from .uncertainty import (
            NOISE_SHARE,
            RunPredictions,
            generic_winner_resamples,
            paired_differences,
            test_auc_summary,
            winner_stability,
        )

        preds = RunPredictions.read(run_paths, predictions)
        summary = test_auc_summary(res, preds)
        winners, generic_stability = generic_winner_resamples(res, preds, seed)
        summary["stability"] = [
            float("nan")
            if m == "specific"
            else generic_stability[s]
            if m == "generic"
            else winner_stability(res, preds, s, m, seed)
            for s, m in zip(summary["split"], summary["method"], strict=True)
        ]
        summary["within_noise"] = summary["stability"] < NOISE_SHARE
        write_table(summary, [out_summary])
        stab = summary[summary["method"] == "generic"].set_index("split")["stability"]
        t3["stability"] = t3["split"].map(stab)
        t3["within_noise"] = t3["stability"] < NOISE_SHARE
        if paired is not None:
            write_table(paired_differences(res, preds), [paired])
        if resamples is not None:
            write_table(winners, [resamples])
    write_table(t3, [out_table3])


def make_figure2(figure2: str, summary: str, collection: str, figure) -> None:
    """Figure 2 of one collection: test AUC per method, split and test LLM, against chance,
    with the generic assessor's interval and winner stability per split."""
    from .figures import plot_figure2

    plot_figure2(pd.read_csv(figure2), pd.read_csv(summary), collection, figure)


def make_table3(tables: Sequence[str], collections: Sequence[str], baselines: str, table) -> None:
    """Table 3 of every collection, with the paper's choice and the max random val AUC."""
    from evalsci.tables import write_table

    from .maxrandom_requests import read_answers
    from .table3 import table3_with_paper

    mr = read_answers(baselines)
    parts = [
        table3_with_paper(pd.read_csv(p), c, mr) for c, p in zip(collections, tables, strict=True)
    ]
    write_table(pd.concat(parts, ignore_index=True), table)


def make_nref_figure(
    runs: Sequence[str],
    baselines: str,
    collection: str,
    fig: str,
    settings: AssessorsSettings,
    table: str,
    figure,
) -> None:
    """Figures 8-9: AUC against the number of reference instances (and the figure's data)."""
    from .figures import plot_nref
    from .maxrandom_requests import read_answers

    rows = pd.concat([pd.read_csv(p) for p in runs], ignore_index=True)
    with atomic_path(table) as tmp:
        rows[NREF_COLUMNS].to_csv(tmp, index=False)
    plot_nref(
        rows,
        read_answers(baselines),
        collection,
        settings.n_combinations["nref"],
        f"Figure {fig.removeprefix('figure')} ({collection}): generic assessor (clustering "
        "on embeddings, XGBoost) against the number of reference instances",
        figure,
    )


def run_lomo(
    benchmark: str, cfg: Lomo, seed: int, out: str, bundle: str | None = None, success=None
) -> None:
    """Leave-one-model-out rows of one benchmark (`lomo.run_benchmark`): a PredictaBoard
    benchmark from the bundle, or a collection from its normalised success table."""
    from . import lomo

    if benchmark in lomo.LEADERBOARD_BENCHMARKS:
        from evalsci.data.released import local_name

        runs = lomo.leaderboard_runs(bundle, benchmark, lambda p: local_name("predictaboard", p))
    else:
        runs = lomo.collection_runs(success, benchmark)
    res = lomo.run_benchmark(runs, cfg, seed)
    with atomic_path(out) as tmp:
        res.to_csv(tmp, index=False, compression="gzip")


def make_lomo(
    run_paths: Sequence[str], cfg: Lomo, table: Sequence[str], tests: Sequence[str], figure
) -> None:
    """The leave-one-model-out table (mean +- SE over held-out models per benchmark, n and
    method), the paired tests of the default against gp-IRT and the random mean, and the
    figure of absolute error against n."""
    from evalsci.tables import write_table

    from .figures import plot_lomo
    from .lomo import paired_tests, summarise

    res = pd.concat([pd.read_csv(p) for p in run_paths], ignore_index=True)
    write_table(summarise(res), table)
    write_table(paired_tests(res, cfg.test_level), tests)
    plot_lomo(summarise(res), figure)
