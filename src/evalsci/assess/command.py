"""`evalsci reference select|predict`: the assessors paper's "100 instances" on anyone's results.

Exit codes are those of `evalsci audit` (docs/audit.md): 0 done, 2 bad input (a clear error
naming the file, model, task or item), 3 every input read but nothing in it usable (no task
with a random baseline, so the audit's readers returned nothing).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from evalsci.audit.records import EXIT_NOTHING_TO_AUDIT as EXIT_NOTHING
from evalsci.textsafe import csv_safe, csv_uncell

__all__ = ["add_parser"]

GROUP_RUNS = (
    "each RESULTS path (and each --new path) is one run, so a model may have several (a tidy "
    "CSV may name its runs in a `run` column instead); predict leaves out every run of a model "
    "together, in the assessor's features and in the calibration"
)

SEED = "random seed (an integer >= 0; default 0): the same seed, the same output"
METRIC = (
    "lm-eval per-item 0/1 metric for every task (default: each task's own, as `evalsci audit "
    "--metric`)"
)


def _read(paths, metric, what, group_runs=False):
    from evalsci.audit.records import NothingToAudit

    from .responses import read_responses

    try:
        got = read_responses(paths, metric=metric, group_runs=group_runs)
    except NothingToAudit as e:
        print(f"evalsci reference: {what}: {e}", file=sys.stderr)
        return None
    for s in got.skipped:
        print(f"evalsci reference: passed over {s}", file=sys.stderr)
    return got.frame


def _known_matrix(frame):
    from .responses import success_matrix

    m = success_matrix(frame)
    if m.dropped:
        print(
            f"evalsci reference: {m.dropped} items not answered by every known model are left "
            f"out; {m.success.shape[1]} items shared by {len(m.models)} models remain",
            file=sys.stderr,
        )
    if m.groups is not None:
        print(
            f"evalsci reference: {len(m.models)} runs of {len(set(m.groups))} known models "
            "(--group-runs: every run of a model is left out together)",
            file=sys.stderr,
        )
    return m


def samples_list(ref, kinds: dict | None = None) -> tuple[dict, list[str]]:
    """({task: [item ids]}, notes): the ids a harness runs, and what the caller must be told.

    lm-eval doc ids: integers, in ascending order, where every id of the task is one.
    Ascending is required, not cosmetic: lm-eval 0.4.13 walks the task's documents in dataset
    order keeping those whose index is listed, and logs the k-th kept document under the k-th
    listed id (`evaluator.evaluate`: `doc_id_true = indices[doc_id]`), so an unsorted list logs
    documents under other documents' ids (tests/test_reference_cli.py runs lm-eval on one).

    `kinds`: {task: the formats its results were read from (`responses._kind`)}. An inspect log
    with epochs names its items `<sample id>#<epoch>`; inspect runs samples, each for every
    epoch (`inspect eval --sample-id`, `--epochs`), so the list holds the sample ids. Every Eval
    Ever files are paired on their sample hashes, which no harness takes: listed as they are,
    and said."""
    from evalsci.audit.readers.sniff import EEE_AGGREGATE, INSPECT_LOG

    kinds = kinds or {}
    out, notes = {}, []
    for task, g in ref.groupby("task", sort=False):
        ids = g["item"].astype(str).tolist()
        kind = kinds.get(task, set())
        if kind == {INSPECT_LOG} and all(re.fullmatch(r".+#\d+", i) for i in ids):
            ids = list(dict.fromkeys(i.rsplit("#", 1)[0] for i in ids))
            notes.append(
                f"task {task!r}: inspect epochs: the list holds the reference items' sample "
                "ids (inspect eval --sample-id ... with the known models' --epochs runs every "
                "epoch of them, the reference items among them)"
            )
        elif EEE_AGGREGATE in kind:
            notes.append(
                f"task {task!r}: the items are Every Eval Ever sample hashes, which no harness "
                "accepts: the list holds them as they are; run the harness that wrote the "
                "files on the samples with those hashes (their sample_id in the files)"
            )
        out[task] = sorted(int(i) for i in ids) if all(i.isdigit() for i in ids) else ids
    return out, notes


def cmd_select(args) -> int:
    from evalsci.pipeline.jobs import atomic_path, check_output_path

    from .refset import select_reference

    for path in (Path(args.out), Path(args.out).with_suffix(".samples.json")):
        check_output_path(path, "--out")  # before any work: a FIFO, symlink, device, folder
    frame = _read(args.results, args.metric, "results", args.group_runs)
    if frame is None:
        return EXIT_NOTHING
    m = _known_matrix(frame)
    ref = select_reference(m, args.n, args.selector, seed=args.seed)
    out = Path(args.out)
    samples = out.with_suffix(".samples.json")
    listed, notes = samples_list(ref, frame.groupby("task")["kind"].agg(set).to_dict())
    text = json.dumps(listed, indent=1) + "\n"
    with atomic_path(out) as tmp_csv, atomic_path(samples) as tmp_json:
        csv_safe(ref, ("task", "item")).to_csv(tmp_csv, index=False, float_format="%.6g")
        tmp_json.write_text(text)
    print(
        f"wrote {out} ({len(ref)} items, selector {args.selector}, {len(m.models)} "
        f"{'runs' if m.groups else 'models'}) "
        f"and {samples} (item ids per task; lm-eval: --samples {samples})",
        file=sys.stderr,
    )
    for note in notes:
        print(f"evalsci reference: {samples}: {note}", file=sys.stderr)
    return 0


def _read_ref(path):
    """`select`'s ref.csv: columns task, item, weight (each weight a finite number >= 0); an
    error names the file and the column (a missing weight column once made LAPACK print
    on stdout and fail with "SVD did not converge")."""
    import numpy as np
    import pandas as pd

    from evalsci.audit.records import AuditInputError

    try:
        ref = pd.read_csv(path, dtype={"task": str, "item": str})
    except (OSError, ValueError, pd.errors.ParserError) as e:
        raise AuditInputError(f"{path}: cannot read ({e})") from None
    missing = [c for c in ("task", "item", "weight") if c not in ref.columns]
    if missing:
        raise AuditInputError(
            f"{path}: needs columns task, item, weight (the ref.csv `evalsci reference select` "
            f"writes); missing {', '.join(missing)}"
        )
    weight = pd.to_numeric(ref["weight"], errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(weight) | (weight < 0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise AuditInputError(
            f"{path}:{i + 2}: weight {ref['weight'].iloc[i]!r} is not a number >= 0"
        )
    for c in ("task", "item"):
        ref[c] = [csv_uncell(v) if isinstance(v, str) else v for v in ref[c]]
    return ref


def cmd_predict(args) -> int:

    from evalsci.audit.records import AuditInputError

    from .refset import predict_new

    ref = _read_ref(args.reference)
    known = _read(args.results, args.metric, "known models' results", args.group_runs)
    if known is None:
        return EXIT_NOTHING
    new = _read(args.new, args.metric, "new models' results", args.group_runs)
    if new is None:
        return EXIT_NOTHING
    clash = sorted(set(new["model"]) & set(known["model"]))
    if clash:
        raise AuditInputError(f"model {clash[0]!r} is among both the known and the new models")
    m = _known_matrix(known)
    outcomes = {
        model: dict(
            zip(zip(g["task"], g["item"], strict=True), g["correct"].astype(int), strict=True)
        )
        for model, g in new.groupby("run" if args.group_runs else "model", sort=True)
    }
    acc, items = predict_new(
        m,
        ref,
        outcomes,
        alpha=args.alpha,
        seed=args.seed,
        estimator=args.estimator,
        groups=m.groups,
    )
    table = items if args.items else acc
    csv_safe(table, ("model", "task", "item")).to_csv(sys.stdout, index=False)
    for note in acc["note"].dropna().unique() if len(acc) else []:
        # the fallbacks (interval [0, 1], the reference mean alone), said where they are read,
        # not only in a column
        for part in filter(None, str(note).split("; ")):
            print(f"evalsci reference: {part}", file=sys.stderr)
    if len(acc):
        for model, side in acc.groupby("model", sort=False)["out_of_range"].first().items():
            if side != "no":
                print(
                    f"evalsci reference: model {model!r}: its accuracy on the reference items "
                    f"lies {side} every known model's (column out_of_range): outside the "
                    "known range; the stack's estimate moves to the model's own reference "
                    "outcomes by weight_anchor, and its interval widens (docs/reference.md)",
                    file=sys.stderr,
                )
    print(
        f"evalsci reference: estimator {args.estimator}; interval = split-conformal over the "
        "known models (each held out, |true - estimated accuracy| quantile at level "
        f"{1 - args.alpha}); docs/reference.md",
        file=sys.stderr,
    )
    return 0


def _bounded(option: str, kind, low=None, high=None, low_open=False, high_open=False):
    """An argparse type: `kind` within bounds, else an error naming the option."""
    import argparse

    def parse(text: str):
        try:
            v = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{option} must be a{'n integer' if kind is int else ' number'}, got {text!r}"
            ) from None
        ok = v == v  # NaN fails every bound
        if low is not None:
            ok = ok and (v > low if low_open else v >= low)
        if high is not None:
            ok = ok and (v < high if high_open else v <= high)
        if not ok:
            lo = "" if low is None else f"{low} {'<' if low_open else '<='} "
            hi = "" if high is None else f" {'<' if high_open else '<='} {high}"
            raise argparse.ArgumentTypeError(
                f"{option} must satisfy {lo}{option}{hi}, got {text!r}"
            )
        return v

    return parse


def add_parser(sub) -> None:
    from .refset import DEFAULT_ESTIMATOR, DEFAULT_SELECTOR, ESTIMATORS, NEEDS_TEXT, SELECTORS

    r = sub.add_parser(
        "reference",
        help="choose ~100 reference items from your models' per-item results, and predict a "
        "new model's accuracy from its results on them (docs/reference.md)",
    )
    verbs = r.add_subparsers(dest="verb", required=True)
    inputs = (
        "per-item results of the known models: any per-item format `evalsci audit` reads "
        "(lm-eval samples, inspect-ai logs, HELM, lighteval details, Every Eval Ever "
        "_samples.jsonl) or a CSV with columns model,task,item,correct"
    )
    s = verbs.add_parser("select", help="choose n reference items")
    s.add_argument("results", nargs="+", metavar="RESULTS", help=inputs)
    s.add_argument(
        "--n",
        type=_bounded("--n", int, low=1),
        default=100,
        help="how many reference items (default 100), spread over the tasks in proportion to "
        "their sizes, at least one each",
    )
    s.add_argument(
        "--selector",
        default=DEFAULT_SELECTOR,
        help=f"one of {', '.join(SELECTORS)} (default {DEFAULT_SELECTOR}); "
        f"{', '.join(NEEDS_TEXT)} need instance text and are not available",
    )
    s.add_argument("--out", required=True, help="ref.csv (task,item,weight); beside it "
                   "<stem>.samples.json: item ids per task (lm-eval --samples)")  # fmt: skip
    s.add_argument("--seed", type=_bounded("--seed", int, low=0), default=0, help=SEED)
    s.add_argument("--metric", default=None, help=METRIC)
    s.add_argument("--group-runs", action="store_true", help=GROUP_RUNS)
    s.set_defaults(func=cmd_select)
    p = verbs.add_parser("predict", help="predict new models' accuracy from the reference items")
    p.add_argument("results", nargs="+", metavar="RESULTS", help=inputs)
    p.add_argument("--reference", required=True, help="the ref.csv of `select`")
    p.add_argument("--new", nargs="+", required=True, help="the new models' per-item results")
    p.add_argument("--format", choices=["csv"], default="csv",
                   help="output format on stdout (csv, the only one)")  # fmt: skip
    p.add_argument(
        "--items",
        action="store_true",
        help="per-item P(success) instead of per-task accuracies (columns model,task,item,"
        "p_success,reference; reference items carry their observed outcome)",
    )
    p.add_argument(
        "--alpha",
        type=_bounded("--alpha", float, low=0, high=1, low_open=True, high_open=True),
        default=0.1,
        help="1 - the interval's level, 0 < alpha < 1 (default 0.1: 90 %% intervals)",
    )
    p.add_argument(
        "--estimator",
        choices=ESTIMATORS,
        default=DEFAULT_ESTIMATOR,
        help="stack (default): the reference mean, the assessor's estimate and p-IRT "
        "(tinyBenchmarks), convex weights by least squares on held-out known models; blend: "
        "the first two only; assessor: the paper's alone",
    )
    p.add_argument("--seed", type=_bounded("--seed", int, low=0), default=0, help=SEED)
    p.add_argument("--metric", default=None, help=METRIC)
    p.add_argument("--group-runs", action="store_true", help=GROUP_RUNS)
    p.set_defaults(func=cmd_predict)
