"""One inference shard: Algorithm 1 for one (model, dataset, trial), or one Section 5.2 set.

Shards are the unit of resumption: each is written atomically once complete, and Snakemake
reruns only the missing ones after a kill.
"""

from __future__ import annotations

import json
import logging
import os
import re
import time
from collections.abc import Mapping
from typing import Any

from evalsci.data.glue import EVAL_SPLIT, load_glue
from evalsci.studies.mc_icl.inference import plan_rows, score_plan
from evalsci.studies.mc_icl.params import RUN_PATTERN, McIclSettings
from evalsci.studies.mc_icl.sampler import eval_subsample, plan_fixed, plan_trial
from evalsci.studies.mc_icl.scores import write_scores
from evalsci.studies.mc_icl.templates import template

log = logging.getLogger(__name__)


def parse_run(run: str) -> tuple[str, int | str]:
    """`trial3` -> ("trial", 3); `set_high` -> ("set", "high")."""
    if not re.fullmatch(RUN_PATTERN, run):
        raise ValueError(f"mc_icl run {run!r} is neither trial<N> nor set_<high|low|random>")
    return ("trial", int(run[5:])) if run.startswith("trial") else ("set", run[4:])


def load_data(dataset: str, glue_root: str | os.PathLike | None):
    train = load_glue(dataset, "train", root=glue_root)
    val = load_glue(dataset, EVAL_SPLIT[dataset], root=glue_root)
    return train, val


def make_plan(
    dataset: str,
    run: str,
    train: list[dict],
    params: McIclSettings,
    seed: int,
    sets_path: str | os.PathLike | None = None,
):
    kind, which = parse_run(run)
    if kind == "trial":
        if which >= params.num_trials:
            raise ValueError(f"{run}: config has only {params.num_trials} trials")
        return plan_trial(
            len(train), params.num_demos, params.num_permutations, seed, dataset, which
        )
    if sets_path is None:
        raise ValueError(f"{run} needs the selected sets (sets.json)")
    sets = json.loads(open(sets_path).read())
    ids = sets[which]
    if not ids:
        raise ValueError(
            f"{sets_path}: the {which!r} set is empty (no example passed |Z| > "
            "threshold); run more trials or demonstrations"
        )
    pos = {e["idx"]: i for i, e in enumerate(train)}
    return plan_fixed([pos[i] for i in ids], params.num_permutations, seed, dataset, which)


def run_shard(
    model_name: str,
    model_spec: Mapping[str, Any] | str,
    dataset: str,
    run: str,
    params: McIclSettings,
    seed: int,
    out: str | os.PathLike,
    *,
    glue_root: str | os.PathLike | None = None,
    sets_path=None,
    lm: Mapping[str, Any] | None = None,
    progress: bool = True,
) -> None:
    """Score one shard and write its scores table. `lm` is config["lm"] (device, cpu_dtype,
    batch budgets per device)."""
    from evalsci.lm.load import load_model
    from evalsci.lm.placement import placement

    lm = lm or {}
    train, val = load_data(dataset, glue_root)
    queries = [val[i] for i in eval_subsample(len(val), params.num_eval, seed, dataset)]
    plan = make_plan(dataset, run, train, params, seed, sets_path)
    spec = dict(model_spec) if isinstance(model_spec, Mapping) else model_spec
    where = placement(lm, spec)
    device = where.device
    t0 = time.perf_counter()
    model, tok = load_model(spec, device=device, dtype=where.dtype)
    log.info(
        "loaded %s on %s (%s) in %.1f s", model_name, device, model.dtype, time.perf_counter() - t0
    )
    scorer = make_scorer(model, tok, add_bos=params.add_bos, **where.batch)
    tmpl = template(dataset)
    log.info(
        "%s %s %s: K=%d P=%d on %d validation examples",
        model_name,
        dataset,
        run,
        plan.K,
        plan.P,
        len(queries),
    )
    node_scores, prefix_tokens = score_plan(scorer, tmpl, train, queries, plan, progress)
    stats = scorer.stats.as_dict()
    stats["tokens_per_s"] = stats["forward_tokens"] / max(stats["seconds"], 1e-9)
    log.info("scoring stats: %s", stats)
    set_name = "trial" if run.startswith("trial") else run[4:]
    qtok = [len(ids) for ids in scorer.encode_batch([tmpl.doc_to_text(q) for q in queries])]
    df = plan_rows(
        plan, node_scores, prefix_tokens, train, queries, tmpl, model_name, set_name, qtok
    )
    warn_overlong(df, model)
    write_scores(df, out)


def make_scorer(model, tok, *, add_bos: bool = False, **batch):
    """The engine's Scorer, with the harness's BOS convention.

    lm-evaluation-harness 0.4.0-0.4.x (2024, when the paper ran) encoded prompts with
    `add_special_tokens=False` unless `add_bos_token=True`, so no BOS token for Pythia, OPT,
    GPT-Neo or Llama-2; newer versions use the tokenizer's default. `add_bos` picks.
    """
    from evalsci.lm.scoring import Scorer

    return Scorer(model, tok, add_special_tokens=add_bos, **batch)


def warn_overlong(df, model) -> None:
    """The harness left-truncates prompts beyond the model's context; we report them."""
    limit = getattr(model.config, "max_position_embeddings", None)
    if not limit:
        return
    total = df["prefix_tokens"] + df["query_tokens"] + 1
    over = int((total > limit).sum())
    if over:
        log.warning("%d of %d prompts exceed the model's %d-token context", over, len(df), limit)
