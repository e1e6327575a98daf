"""`evalsci compare FILES... --a MODEL --b MODEL` (or `--baseline MODEL`): is B better than A
across these tasks, and on which? The tapt paper's hierarchical model and an exact cross-check
(evalsci.compare.core; docs/compare.md).

Exit codes are those of `evalsci audit` (docs/audit.md) plus one: 0 done, 2 bad input (a clear
error naming the file, line, model or option), 3 every input read but nothing to compare (the
systems share no task), 4 the sampler did not converge (the failed diagnostics named).
"""

from __future__ import annotations

import sys
from pathlib import Path

from evalsci.audit.records import EXIT_NOTHING_TO_AUDIT, EXIT_OK
from evalsci.textsafe import csv_safe

EXIT_NOT_CONVERGED = 4

__all__ = ["add_parser", "EXIT_NOT_CONVERGED"]


def _pairs(args, models: list[str]) -> list[tuple[str, str]]:
    if args.baseline is not None:
        if args.a is not None or args.b is not None:
            raise ValueError("--baseline compares every model against one: give it without --a/--b")
        others = [m for m in models if m != args.baseline]
        return [(args.baseline, m) for m in others]
    if args.a is None or args.b is None:
        raise ValueError("give --a MODEL and --b MODEL, or --baseline MODEL")
    return [(args.a, args.b)]


def _portable_reexec(args) -> None:
    """Restart this process with the portable pins in its environment (evalsci.pipeline.
    determinism.PORTABLE_ENV: numpy's baseline loops, glibc's non-FMA libm, read only at
    process start), so the sampler's draws are the same bytes on any x86-64 CPU. Only when
    the process itself was started as `evalsci compare ...` (not main() called in-process) and
    the pins are not set yet; `--not-portable` skips it."""
    import os

    from evalsci.pipeline.determinism import apply_portable

    if args.not_portable or sys.argv[1:2] != ["compare"]:
        return
    env = dict(os.environ)
    apply_portable(True, env)
    if env != os.environ:
        os.execve(sys.executable, [sys.executable, "-m", "evalsci.cli", *sys.argv[1:]], env)


def cmd_compare(args) -> int:
    from evalsci.audit.records import AuditInputError

    from .core import NothingToCompare, compare, models_of
    from .fit import FitSettings, NotConverged
    from .inputs import read_scores

    if args.plot and args.plot.suffix not in (".png", ".pdf"):
        raise ValueError(f"--plot: give a .png or .pdf file, got {args.plot}")
    if not args.exact_only:
        _portable_reexec(args)
    try:
        scores, skipped = read_scores(args.paths, metric=args.metric)
    except AuditInputError as e:
        raise ValueError(str(e)) from None
    for s in skipped:
        print(f"evalsci compare: passed over {s}", file=sys.stderr)
    if not scores:
        print("evalsci compare: no score found in the inputs", file=sys.stderr)
        return EXIT_NOTHING_TO_AUDIT
    models = models_of(scores)
    if args.baseline is not None and args.baseline not in models:
        raise ValueError(f"unknown model {args.baseline!r}; the inputs have: " + ", ".join(models))
    pairs = _pairs(args, models)
    if not pairs:
        raise ValueError(f"--baseline {args.baseline!r}: no other model in the inputs")
    settings = FitSettings(seed=args.seed)
    try:
        table, notes, fits = compare(
            scores,
            pairs,
            rope=args.rope,
            method=args.adjust,
            alpha=args.alpha,
            settings=settings,
            hierarchical=not args.exact_only,
        )
    except NothingToCompare as e:
        print(f"evalsci compare: {e}", file=sys.stderr)
        return EXIT_NOTHING_TO_AUDIT
    except NotConverged as e:
        print(f"evalsci compare: {e}", file=sys.stderr)
        return EXIT_NOT_CONVERGED
    except AuditInputError as e:
        raise ValueError(str(e)) from None
    _write(args, table, notes, fits)
    return EXIT_OK


def _write(args, table, notes, fits) -> None:
    from . import output

    if args.format == "csv":
        safe = csv_safe(table, ("model_a", "model_b", "task"))  # no cell a spreadsheet evaluates
        sys.stdout.write(safe.to_csv(index=False, float_format="%.10g", lineterminator="\n"))
        for n in notes:
            print(f"evalsci compare: {n}", file=sys.stderr)
    elif args.format == "json":
        sys.stdout.write(output.to_json(table, notes, fits))
    else:
        sys.stdout.write(output.terminal(table, notes, args.rope))
    if args.plot:
        for p in output.forest(table, args.plot):
            print(f"evalsci compare: wrote {p}", file=sys.stderr)


def _positive(s: str) -> float:
    import argparse
    import math

    try:
        v = float(s)
    except ValueError:
        v = math.nan
    if not (v > 0 and math.isfinite(v)):
        raise argparse.ArgumentTypeError(f"must be a number > 0, got {s!r}")
    return v


def add_parser(sub) -> None:
    p = sub.add_parser(
        "compare",
        help="is B better than A across these tasks, and on which? The tapt paper's "
        "hierarchical model (task intercepts and B-vs-A slopes) with an exact cross-check",
    )
    p.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="result files or directories: any format `evalsci audit` reads, or a tidy CSV "
        "model,task,item,correct (per item) or model,task,n,correct (per task). Exit codes: "
        "0 done, 2 bad input, 3 nothing to compare, 4 the sampler did not converge",
    )
    p.add_argument("--a", metavar="MODEL", help="system A (the reference)")
    p.add_argument("--b", metavar="MODEL", help="system B (effects are B - A)")
    p.add_argument(
        "--baseline", metavar="MODEL", help="compare every other model in the inputs against it"
    )
    p.add_argument(
        "--rope",
        type=_positive,
        default=1.0,
        help="half-width of the region of practical equivalence, in accuracy points "
        "(default 1: |B - A| < 1 point counts as no practical difference)",
    )
    p.add_argument(
        "--adjust",
        choices=("none", "holm", "bh"),
        default="holm",
        help="multiplicity control of the exact tests (per-task tests across every task row; "
        "the across-task sign tests across pairs); default holm",
    )
    p.add_argument("--alpha", type=float, default=0.05, help="level of the verdicts (0.05)")
    p.add_argument("--metric", default=None, help="per-item 0/1 metric to read (as audit's)")
    p.add_argument(
        "--format",
        choices=("table", "csv", "json"),
        default="table",
        help="table (default: fits 100 columns or $COLUMNS), csv (every column), json",
    )
    p.add_argument(
        "--plot",
        type=Path,
        metavar="FILE",
        help="forest plot to FILE (.png or .pdf; the other format is written beside it)",
    )
    p.add_argument(
        "--exact-only",
        action="store_true",
        help="only the exact cross-check (no sampler: well under a second)",
    )
    p.add_argument("--seed", type=int, default=20251129, help="the sampler's seed")
    p.add_argument(
        "--not-portable",
        action="store_true",
        help="skip the restart with the portable pins (docs/reproducibility.md): the draws "
        "are then reproducible on this machine only",
    )
    p.set_defaults(func=cmd_compare)
