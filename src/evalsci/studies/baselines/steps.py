"""The functions the study's rules run, one per rule (workflow/rules/baselines*.smk, through
the one adapter workflow/scripts/call.py): each takes its rule's named inputs, outputs and
params as keyword arguments, paths in, files out (tests/test_rule_calls.py holds the names to
the rules)."""

from __future__ import annotations

import logging
from pathlib import Path

import pandas as pd

from evalsci import reference
from evalsci.data.checked import read_json
from evalsci.pipeline.jobs import atomic_path, configure_threads
from evalsci.studies.baselines import (
    audit_runs,
    consistency,
    heldout,
    load,
    section53,
    table1,
    table2,
)
from evalsci.studies.baselines import maxrandom_requests as reqs
from evalsci.studies.baselines.keys import Baselines
from evalsci.studies.baselines.settings import all_cells, configured_cells
from evalsci.tables import write_table

log = logging.getLogger(__name__)


def _aggregated(path, cfg: dict, recompute: bool):
    """Configured cells' per-prompt accuracies; a recompute may hold only a subset."""
    data = load.load_aggregated(
        path,
        configured_cells(cfg, recompute),
        strict=not recompute,
        prompts=_prompts(cfg, recompute),
    )
    log.info("%d experiments from %s", len(data), path)
    return data


def _prompts(cfg: dict, recompute: bool) -> int:
    """Prompts every experiment must have: the released 200, or the recompute grid's."""
    if not recompute:
        return load.RELEASED_PROMPTS
    return int(cfg["recompute"]["prompts"])


def is_full_grid(data) -> bool:
    return set(data) == set(all_cells())


def write_csv(df: pd.DataFrame, path) -> None:
    with atomic_path(path) as tmp:
        df.to_csv(tmp, index=False)  # shortest round-trip floats


def requests(aggregated, multi_prompt, splits, requests, cfg, recompute):
    """Every random baseline the study needs, as one request file for the maxrandom rule.
    `splits`: our held-out splits, or none (the authors')."""
    from evalsci.maxrandom.requests import write_requests

    out = requests
    data = _aggregated(aggregated, cfg, recompute)
    mp = load.load_multi_prompt(multi_prompt) if multi_prompt else None
    sp = pd.read_csv(splits) if splits else None
    df = reqs.build(data, mp, sp, section53_t=cfg["section53"]["t"])
    write_requests(df, out)
    log.info("%d baseline requests -> %s", len(df), out)


def make_table1(aggregated, baselines, table, cfg, recompute):
    """Table 1: standard vs maximum random baseline per experiment."""
    outputs = table
    data = _aggregated(aggregated, cfg, recompute)
    df = table1.build(data, Baselines.from_files(baselines))
    full = is_full_grid(data)
    ref = reference.load("baselines")["table1"]
    write_table(
        df,
        outputs,
        markdown=table1.to_markdown(df, ref, full),
        latex=table1.to_latex(df, ref, full),
    )
    log.info("Table 1: %s", table1.summary(df))


def make_table2(per_example, options, baselines, table, settings):
    """Table 2: the Table 1 verdicts of each precision pair, and what NF4 changes.
    `per_example`/`options`: the files of `table2.pair_cells` (same order; the plan's)."""
    outputs = table
    keys = table2.pair_cells(settings)
    if len(keys) != len(per_example) or len(keys) != len(options):
        raise ValueError("make_table2: one per-example and one options file per pair cell")
    df = table2.build(
        settings,
        dict(zip(keys, per_example, strict=True)),
        dict(zip(keys, options, strict=True)),
        Baselines.from_files(baselines),
    )
    ref = reference.load("baselines")
    write_table(df, outputs, markdown=table2.to_markdown(df, ref["table2"], ref["table1"]))
    log.info("Table 2: %s", table2.summary(df))


def heldout_splits(per_example, splits, cfg, recompute, seed, threads):
    """Section 5.2 procedure on per-example results: seeded 75/25 splits per experiment, best
    of t prompts on the validation part; `threads` processes over experiments."""
    configure_threads(1)  # parallel over experiments, not inside numpy
    out = splits
    files = load.per_example_files(per_example)
    cells = set(configured_cells(cfg, recompute))
    files = {c: p for c, p in files.items() if c in cells}
    df = heldout.split_all(files, seed, threads, splits=cfg["heldout"]["splits"])
    write_csv(df, out)


def heldout_predictions(source, splits, baselines, predictions):
    """Authors' predictions (released bundle dir) or ours (splits + maxrandom answers)."""
    out = predictions
    if splits:
        df = heldout.predictions(pd.read_csv(splits), Baselines.from_files(baselines))
    else:
        df = load.load_heldout(source)
    write_csv(df, out)


def heldout_tables(predictions, table3, table4):
    """Tables 3-4: held-out prediction per model and per dataset (Section 5.2, App. D)."""
    out3, out4 = table3, table4
    pred = pd.read_csv(predictions)
    ref = reference.load("baselines")
    t3 = heldout.table3(pred, ref["table3"])
    t4 = heldout.table4(pred, ref["table4"])
    scores = heldout.distribution_scores(pred[pred["t"] == 200])
    ref_total = ref["heldout_total"]
    note = (
        f"\nWith the baselines' distribution functions as scores (Section 5.2, Figure 5 "
        f"gray curves), t = 200: AUROC {scores['auroc_max']:.2f} (max F) / "
        f"{scores['auroc_standard']:.2f} (standard F), AUPR {scores['aupr_max']:.2f} / "
        f"{scores['aupr_standard']:.2f}; paper {ref_total['auroc_distribution']:.2f} and "
        f"{ref_total['aupr_distribution']:.2f}.\n"
    )
    write_table(t3, out3, markdown=heldout.to_markdown(t3) + note, latex=heldout.to_latex(t3))
    log.info("distribution-function scores: %s", scores)
    write_table(
        t4,
        out4,
        markdown=heldout.to_markdown(t4, ("auroc", "aupr")),
        latex=heldout.to_latex(t4, ("auroc", "aupr")),
    )
    log.info("Table 3 total: %s", t3.iloc[-1].to_dict())


def make_section53(multi_prompt, baselines, table, experiments, cfg):
    """Section 5.3: Mizrahi et al.'s multi-prompt results against both baselines."""
    outputs, experiments_out = table, experiments
    exps = section53.experiments(load.load_multi_prompt(multi_prompt), cfg["section53"]["t"])
    judged = section53.judge(exps, Baselines.from_files(baselines))
    s = section53.summary(judged, reference.load("baselines")["section53"])
    write_table(s, outputs, markdown=section53.to_markdown(s), latex=section53.to_latex(s))
    write_csv(judged, experiments_out)
    log.info("Section 5.3:\n%s", s.to_string())


def per_example_check(
    per_example,
    aggregated,
    subsampled,
    bigbench,
    checks,
    pairs,
    quirks,
    cfg,
    recompute,
    threads,
):
    """Per-example CSVs reproduce aggregated-results.json; the data's quirks, from the data.
    `subsampled`: the srb_aggregated bundle (its subsampled indices)."""
    configure_threads(1)  # parallel over experiments, not inside numpy
    out_checks, out_pairs, out_md = checks, pairs, quirks
    data = _aggregated(aggregated, cfg, recompute)
    files = {c: p for c, p in load.per_example_files(per_example).items() if c in data}
    sub_dir = Path(subsampled) / load.SUBSAMPLED_IDXS
    subsamples = (
        {
            f.name.split("_200-examples")[0]: read_json(f, load.BaselinesDataError)
            for f in sorted(sub_dir.glob("*_200-examples_idxs.json"))
        }
        if sub_dir.is_dir()
        else {}
    )
    checks, pairs = consistency.check_all(files, data, bigbench, subsamples, threads)
    write_csv(checks, out_checks)
    write_csv(pairs, out_pairs)
    with atomic_path(out_md) as tmp:
        tmp.write_text(consistency.quirks_markdown(checks, pairs))
    bad = checks[checks.match == "no"]
    if len(bad):
        log.warning(
            "%d experiments do not match aggregated-results.json: %s",
            len(bad),
            ", ".join(bad.config),
        )


def make_figures(aggregated, baselines, distributions, predictions, cfg, recompute, **figures):
    """The paper's figures {name: [pdf, png]} (`figures`: the rule's outputs), each input read
    once for all of them: one job, one Python start and one reading for 12 figures."""
    from evalsci.studies.baselines import figures as draw

    data = _aggregated(aggregated, cfg, recompute)
    base = Baselines.from_files(baselines, distributions)
    pred = pd.read_csv(predictions)
    for name, files in figures.items():
        draw.make(name, files, aggregated=data, baselines=base, predictions=pred)


def make_audit_runs(source: str, bundle, runs) -> None:
    """The runs table (study `audit`) of a released source other than the leaderboard: this
    study's own results (audit_runs.py), or the audit package's other sources (evalsci.audit
    imports no study, so the rule that reads them all runs this function)."""
    if source not in audit_runs.SOURCES:
        from evalsci.audit import steps as audit_steps

        audit_steps.make_runs(source, bundle, runs)
        return
    table = (
        audit_runs.mizrahi_runs(bundle)
        if source == "mizrahi_paraphrases"
        else audit_runs.prompt_runs(bundle)
    )
    write_csv(table, runs)
    log.info("%s: %d runs over %d tasks", source, len(table), table.task.nunique())


# The recompute path (workflow/rules/baselines_recompute.smk): our own few-shot inference.


def icl_shard(
    bigbench,
    aggregated,
    per_example,
    checkpoint,
    shard,
    spec,
    settings,
    lm,
    seed,
    work_dir,
    model,
    task,
    shots,
    start,
    stop,
):
    """Few-shot inference for prompts [start, stop) of one model x task x shots, resumable per
    prompt in `work_dir`. `checkpoint`: the model's files (the spec says how to load them);
    `per_example`: the authors' per-example CSVs when the prompts' demonstrations are theirs."""
    from evalsci.studies.baselines.shards import run_shard

    del checkpoint  # an input so that the shard reruns when the model changes
    run_shard(
        model=model,
        spec=spec,
        task=task,
        shots=int(shots),
        start=int(start),
        stop=int(stop),
        bigbench_dir=bigbench,
        idxs_dir=f"{aggregated}/{load.SUBSAMPLED_IDXS}",
        per_example_dir=per_example or None,
        settings=settings,
        lm=lm,
        seed=seed,
        out=shard,
        work_dir=work_dir,
    )


def icl_cell(shards, per_example, options):
    """The shards of one experiment -> the authors' per-example CSV + per-option scores."""
    from evalsci.studies.baselines.shards import assemble_cell

    df = assemble_cell(shards, per_example, options)
    print(f"{len(df)} per-example rows, accuracy {df['Correct prediction'].mean():.3f}")


def icl_aggregated(per_example, aggregated, cell_keys):
    """Per-prompt accuracies of every recomputed experiment (authors' aggregated-results.json)."""
    from evalsci.studies.baselines.shards import write_aggregated

    agg = write_aggregated(dict(zip(cell_keys, per_example, strict=True)), aggregated)
    for key, accs in agg.items():
        print(key, f"max {max(accs):.3f}", f"mean {sum(accs) / len(accs):.3f}")
