"""The `evalsci` command: quick answers from the max random baseline, and maintainer tools.

    evalsci baseline --n 100 --p 0.5 --t 10 --t 200
    evalsci baseline --n 100 --labels '{"2": 50, "4": 50}' --t 10
    evalsci tail --correct 62 --n 100 --p 0.5 --t 10         (or --accuracy 0.62)
    evalsci auc --n-pos 50 --n-neg 50 --t 10
    evalsci audit PATH... [--t N] [--format table|md|csv|json | --format eee --out DIR] [--compare]
    evalsci compare PATH... --a MODEL --b MODEL | --baseline MODEL [--format table|csv|json] [--plot F]
    evalsci manifest MIRROR                                   (rehash released data)
    evalsci verify [resources/released] [--cached]            (rehash fetched bundles)
    evalsci check-config FILE... [--resolved]                 (config files, then the whole config)

Heavy modules are imported inside the subcommands so that `evalsci --help` stays instant.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

# exit codes (docs/audit.md), shared with `evalsci reference`
from evalsci.audit.records import EXIT_BAD_INPUT, EXIT_NOTHING_TO_AUDIT, EXIT_OK


def _t_value(s: str) -> float:
    """t as typed: integers or scientific notation (1e12), checked here so that a bad --t
    fails before anything is printed."""
    from evalsci.maxrandom._checks import check_t

    try:
        t = float(s)
        check_t(t)
    except ValueError:
        shown = s if len(s) <= 40 else f"{s[:20]}...({len(s)} characters)"
        raise argparse.ArgumentTypeError(
            f"t must be an integer >= 1 and at most {sys.float_info.max:.4g} (the largest "
            f"float; 1e12 allowed), got {shown!r}"
        ) from None
    return t


def _t_count(s: str) -> int:
    """`audit --t`: the same check, kept an integer (a count of tries)."""
    return int(_t_value(s))


def _add_p(parser: argparse.ArgumentParser) -> None:
    g = parser.add_mutually_exclusive_group(required=True)
    g.add_argument("--p", type=float, help="probability that a random guess is correct (1/labels)")
    g.add_argument(
        "--labels",
        help='JSON {"number of labels": number of examples}, e.g. \'{"2": 50, "4": 50}\'',
    )


def _p_arg(args):
    if args.labels is None:
        return args.p
    try:
        labels = json.loads(args.labels)
    except json.JSONDecodeError as e:
        raise ValueError(f"--labels is not valid JSON ({e}): {args.labels!r}") from None
    if not isinstance(labels, dict):
        raise ValueError(f"--labels must be a JSON object, got {args.labels!r}")
    return labels


def _fmt_t(t: float) -> str:
    return str(int(t)) if t < 1e16 else f"{t:g}"


def cmd_baseline(args) -> None:
    from evalsci.maxrandom import max_random_baseline, standard_baseline

    p = _p_arg(args)
    # compute everything before printing: an error must not follow half an answer
    standard = standard_baseline(args.n, p)
    values = max_random_baseline(args.n, p, args.t)
    print(f"standard baseline (t=1): {standard:.6f}")
    for t, v in zip(args.t, values, strict=True):
        print(f"max random baseline n={args.n} t={_fmt_t(t)}: {v:.6f}")


def cmd_tail(args) -> None:
    from evalsci.maxrandom import correct_count, max_random_tail, standard_tail

    p = _p_arg(args)
    correct = args.correct if args.correct is not None else correct_count(args.accuracy, args.n)
    standard = standard_tail(correct, args.n, p)
    values = max_random_tail(correct, args.n, p, args.t)
    print(f"correct = {correct} of n = {args.n}")
    print(f"standard tail P(X >= {correct}): {standard:.6g}")
    for t, v in zip(args.t, values, strict=True):
        print(f"max tail P(max >= {correct}) t={_fmt_t(t)}: {v:.6g}")


def cmd_auc(args) -> None:
    from evalsci.maxrandom import max_random_auc

    values = max_random_auc(args.n_pos, args.n_neg, args.t)
    for t, v in zip(args.t, values, strict=True):
        print(f"max random AUC n_pos={args.n_pos} n_neg={args.n_neg} t={_fmt_t(t)}: {v:.6f}")


def _check_audit_options(args) -> None:
    """Option errors, before any input is read."""
    if args.plot and args.plot.suffix not in (".png", ".pdf"):
        raise ValueError(f"--plot: give a .png or .pdf file, got {args.plot}")
    if args.columns is not None:
        args.columns = _output_columns(args.columns, args.format)
    if args.choices is not None and args.choices < 2:
        raise ValueError(
            f"--choices: an item's number of options is at least 2, got {args.choices}"
        )
    if (args.format == "eee") != (args.out is not None):
        raise ValueError("--format eee and --out DIR go together: give both or neither")
    from evalsci.pipeline.jobs import check_output_path

    if args.plot:
        check_output_path(args.plot, "--plot")
    if args.out is not None and args.out.exists() and not args.out.is_dir():
        raise ValueError(f"--out {args.out}: not a folder (Every Eval Ever files go in a folder)")


def _output_columns(spec: str, fmt: str) -> list[str]:
    """--columns: `short` or a comma-separated list of output columns, checked before reading."""
    from evalsci.audit.columns import OUTPUT_COLUMNS, SHORT_COLUMNS

    if fmt not in ("csv", "json", "md"):
        raise ValueError("--columns applies to --format csv, json or md")
    cols = SHORT_COLUMNS if spec.strip() == "short" else [c.strip() for c in spec.split(",")]
    bad = [c for c in cols if c not in OUTPUT_COLUMNS]
    if bad or not cols:
        raise ValueError(
            f"--columns: unknown column(s) {bad}; give 'short' or names from: "
            + ", ".join(OUTPUT_COLUMNS)
        )
    return list(dict.fromkeys(cols))


STDIN = "<stdin>"
#: the most bytes `audit -` takes from stdin (docs/audit.md)
MAX_STDIN_BYTES = 1 << 30


def _stdin_paths(paths: list[str], tmp: Path) -> list[str]:
    """`-` (once) becomes a file holding what stdin gives, read like any named file."""
    if paths.count("-") > 1:
        raise ValueError("'-' (stdin) may be given once")
    if "-" not in paths:
        return paths
    f = tmp / "stdin"
    from evalsci.pipeline.jobs import copy_at_most

    with open(f, "wb") as fo:  # streamed to a file: `audit - < /dev/zero` grew to 7.5 GB
        if not copy_at_most(sys.stdin.buffer, fo, MAX_STDIN_BYTES):
            raise ValueError(
                f"{STDIN}: more than {MAX_STDIN_BYTES:,} bytes; give a file that large by "
                "its name (files are read in blocks, stdin is copied first)"
            )
    return [str(f) if p == "-" else p for p in paths]


def _unstdin(found, tmp: Path) -> None:
    """Name stdin `<stdin>` wherever the temporary file's path would show."""
    from dataclasses import replace

    name = str(tmp / "stdin")
    found.results[:] = [
        replace(r, source=STDIN, run=STDIN) if r.source == name else r for r in found.results
    ]
    found.skipped[:] = [replace(s, path=STDIN) if s.path == name else s for s in found.skipped]
    for f in found.frames:
        if name in f["source"].cat.categories:
            f["source"] = f["source"].cat.rename_categories({name: STDIN})


def cmd_audit(args) -> int:
    import tempfile

    _check_audit_options(args)  # before any reading
    with tempfile.TemporaryDirectory(prefix="evalsci-stdin-") as tmp:
        tmp = Path(tmp)
        found = read_inputs_or_nothing(
            _stdin_paths(list(args.paths), tmp), args.metric, args.choices
        )
        if found is None:
            return EXIT_NOTHING_TO_AUDIT
        _unstdin(found, tmp)  # before the file goes: the frames' sources are read lazily
        return _audit_found(args, found)


def read_inputs_or_nothing(paths, metric, choices=None):
    """`read_inputs`' answer, or None (after saying why on stderr) when every input was read
    and nothing in it has a random baseline."""
    from evalsci.audit import read_inputs
    from evalsci.audit.records import NothingToAudit

    try:
        return read_inputs(paths, metric=metric, choices=choices)
    except NothingToAudit as e:
        print(f"evalsci audit: {e}", file=sys.stderr)
        return None


def _audit_found(args, found) -> int:
    from evalsci.audit import judge_inputs

    frame, df = judge_inputs(found, t=args.t, alpha=args.alpha, adjust=args.adjust)
    tests = groups = None
    notes = []
    if args.compare:
        from evalsci.audit.compare import compare

        tests, groups, notes = compare(frame, df, method=args.adjust, alpha=args.alpha)
    if args.plot:
        from evalsci.audit.plot import plot_scores

        plot_scores(df, args.plot)
    # everything is computed before anything is printed: an error never follows half a table
    _say_audit(args.format, df, found.skipped, notes)
    if args.format == "eee":
        from evalsci.audit.eee_write import write_eee

        files = write_eee(args.out, df, found.results, found.skipped, tests, groups)
        print(f"wrote {len(files)} files under {args.out}", file=sys.stderr)
    else:
        shown = df if args.columns is None else df[args.columns]
        _write_audit(args.format, shown, found.skipped, tests, groups, full=df)
    if args.plot:
        print(
            f"wrote {args.plot} and its {'PDF' if args.plot.suffix == '.png' else 'PNG'}",
            file=sys.stderr,
        )
    return 0


def _say_audit(fmt: str, df, skipped, notes: list[str]) -> None:
    """The words around the scores: on stdout with the table (for people, each once), else on
    stderr beside the data (skipped files and tasks, the verdicts' counts and family, t)."""
    from evalsci.audit.judge import family_line, t_summary, verdict_counts

    if fmt == "table":
        from evalsci.audit.terminal import write_table

        write_table(df, skipped, t_summary(df), sys.stdout)
        lines = notes
    else:
        lines = [
            *(f"skipped {s.path}" + (f": task {s.task!r}" if s.task else "") + f": {s.reason}"
              for s in skipped),  # nothing is passed over silently
            f"{len(df)} scores: {verdict_counts(df)}",
            family_line(df),
            *t_summary(df),
            *notes,
        ]  # fmt: skip
    for line in lines:
        print(line, file=sys.stderr)


def _write_audit(fmt: str, df, skipped, tests, groups, full=None) -> None:
    """The scores (and --compare's tests and groups) in `fmt` on stdout; `full`: every column
    of the scores, where `df` has only those --columns asked for (the summary needs them)."""
    full = df if full is None else full
    from evalsci.audit.judge import family_line, verdict_counts
    from evalsci.audit.output import skipped_frame, to_json_text, write, write_skipped_csv

    if fmt == "json":
        parts = {"scores": df, "skipped": skipped_frame(skipped)}
        if tests is not None:
            parts |= {"tests": tests, "groups": groups}
        summary = {
            "verdicts": f"{len(full)} scores: {verdict_counts(full)}",
            "family": family_line(full),
        }
        sys.stdout.write(to_json_text(parts, summary=summary) + "\n")
    elif fmt == "csv" and tests is None:
        write(df, "csv", sys.stdout)
        write_skipped_csv(skipped, list(df.columns), sys.stdout)
    elif fmt == "csv":  # one table per stream: the tests, with each model's group
        write(tests, "csv", sys.stdout)
    elif fmt == "md" and tests is None:
        write(df, "md", sys.stdout)
    elif fmt == "table" and tests is not None:  # the scores are above
        from evalsci.audit.terminal import compare_tables

        sys.stdout.write("\n" + compare_tables(tests, groups, df["model"].astype(str)))
    elif tests is not None:
        for title, table in (("scores", df), ("tests", tests), ("groups", groups)):
            sys.stdout.write(f"\n## {title}\n\n")
            write(table, "md", sys.stdout)


def cmd_manifest(args) -> None:
    import yaml

    from evalsci.data.released import build_manifest

    data = Path(__file__).resolve().parent / "data"
    mirror = Path(args.mirror)
    if not mirror.is_dir():
        raise ValueError(f"mirror is not a directory: {mirror}")
    upstream = yaml.safe_load((data / "released_upstream.yaml").read_text())
    manifest = build_manifest(mirror, upstream)
    out = Path(args.output) if args.output else data / "released_manifest.json"
    tmp = out.with_name(f".{out.name}.tmp")
    with open(tmp, "w") as fh:
        json.dump(manifest, fh, indent=0, sort_keys=True)
        fh.write("\n")
    tmp.replace(out)
    nfiles = sum(len(v["files"]) for v in manifest.values())
    print(f"wrote {out} ({len(manifest)} sources, {nfiles} files)")


def cmd_verify(args) -> None:
    from evalsci.data.released import SUMS, ReleasedDataError, fetched_bundles, verify_bundle

    root = Path(args.path)
    bundles = fetched_bundles(root)
    if not bundles:
        raise ValueError(f"no bundle (a directory with {SUMS}) at {root}")
    for b in bundles:
        try:
            verify_bundle(b, rehash=not args.cached)
        except ReleasedDataError as e:
            raise ValueError(str(e)) from None
        print(f"ok {b} ({sum(1 for _ in open(b / SUMS))} files)")


def cmd_check_config(args) -> None:
    import yaml

    from evalsci.pipeline.configfiles import load_config_file
    from evalsci.settings import merge, resolve

    root = Path(args.root)
    files = [root / "config.yaml"]
    user = load_config_file(files[0])
    for path in args.files:
        keys = load_config_file(path)  # ConfigFileError (a ValueError) names file and line
        print(f"ok {path} ({len(keys)} top-level keys)")
        if Path(path).resolve() != files[0].resolve():
            files.append(Path(path))
            user = merge(user, keys)
    # what the workflow runs with these files as --configfile: the same function resolves and
    # validates it (ConfigError, a ValueError, names the key and the file and line that set it)
    cfg = resolve(user, root, files=files)
    scales = ", ".join(
        f"{k} {v['scale']}" for k, v in cfg.items() if isinstance(v, dict) and "scale" in v
    )
    print(f"ok resolved configuration (presets: {scales})")
    if args.resolved:
        print(yaml.safe_dump(cfg, sort_keys=False, width=100), end="")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="evalsci", description=__doc__.split("\n")[0])
    from evalsci import __version__

    parser.add_argument("--version", action="version", version=f"evalsci {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    b = sub.add_parser("baseline", help="expected max accuracy of t random classifiers")
    b.add_argument("--n", type=int, required=True, help="number of examples")
    _add_p(b)
    b.add_argument(
        "--t",
        type=_t_value,
        action="append",
        required=True,
        help="number of random classifiers (repeat for several)",
    )
    b.set_defaults(func=cmd_baseline)

    t = sub.add_parser("tail", help="P(random >= correct) for the standard and max baselines")
    g = t.add_mutually_exclusive_group(required=True)
    g.add_argument("--correct", type=int, help="number of correct answers")
    g.add_argument("--accuracy", type=float, help="accuracy; converted to a count by rounding")
    t.add_argument("--n", type=int, required=True, help="number of examples")
    _add_p(t)
    t.add_argument(
        "--t",
        type=_t_value,
        action="append",
        required=True,
        help="number of random classifiers (repeat for several)",
    )
    t.set_defaults(func=cmd_tail)

    a = sub.add_parser("auc", help="expected max AUC of t random scorers")
    a.add_argument("--n-pos", type=int, required=True)
    a.add_argument("--n-neg", type=int, required=True)
    a.add_argument("--t", type=_t_value, action="append", required=True)
    a.set_defaults(func=cmd_auc)

    from evalsci.assess.command import add_parser as add_reference

    add_reference(sub)
    from evalsci.compare.command import add_parser as add_compare

    add_compare(sub)
    from evalsci.claims.command import add_parser as add_claims

    add_claims(sub)
    au = sub.add_parser(
        "audit",
        help="judge your own results against the standard and the max "
        "random baseline (lm-eval output dirs/files, tidy CSV)",
    )
    au.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="result files or directories, recognised by content: lm-eval 0.3/0.4 output "
        "(with or without --log_samples), Open LLM Leaderboard v2 results, inspect-ai logs, "
        "HELM run directories, lighteval results, Every Eval Ever files, a CSV with columns "
        "model, task, n, accuracy|correct, choices|labels[, t, run, metric], or a per-item "
        "CSV model, task, item, correct[, choices, run] (docs/audit.md); '-' reads one "
        "input from stdin. Exit codes: 0 some score audited, 2 bad input, 3 every input read "
        "but nothing in it has a random baseline",
    )
    au.add_argument(
        "--t",
        type=_t_count,
        default=None,
        help="number of tries each score was selected from, for every score (default: the "
        "t the input states, else the number of scores of its task in the inputs; the "
        "output's t_rule column says which)",
    )
    au.add_argument(
        "--metric",
        default=None,
        help="lm-eval per-item 0/1 metric for every task (default: each task's own, the Open "
        "LLM Leaderboard's per task (acc_norm for BBH, GPQA, MuSR; acc for MMLU-Pro), else acc)",
    )
    au.add_argument(
        "--columns",
        metavar="LIST",
        default=None,
        help="the output columns for --format csv, json or md: 'short' (model, task, "
        "accuracy, n, choices, t, max_baseline, p_max_adjusted, verdict) or a comma-separated "
        "list (docs/audit.md, Output columns); default every column",
    )
    au.add_argument(
        "--choices",
        type=int,
        metavar="K",
        default=None,
        help="every item's number of options, for a per-item CSV (model, task, item, "
        "correct) without a choices column",
    )
    au.add_argument(
        "--format",
        choices=("table", "md", "csv", "json", "eee"),
        default="table",
        help="table (default): a table for people that fits the terminal ($COLUMNS, else "
        "100 columns when not a terminal), then a summary, the "
        "family, a legend, each note once and what was skipped; md: every column as "
        "Markdown; csv: every column, then one row per skipped file or task (verdict "
        "'skipped', the reason in note); json: {scores, skipped, summary[, tests, groups]}; "
        "eee: Every Eval Ever files under --out DIR (data/<benchmark>/<developer>/<model>/"
        "<uuid>.json and _samples.jsonl; baselines in score_details.details; the table, "
        "skipped inputs and --compare tests in DIR/evalsci_audit.json)",
    )
    au.add_argument(
        "--out", type=Path, metavar="DIR", help="folder for --format eee (created if needed)"
    )
    au.add_argument(
        "--compare",
        action="store_true",
        help="paired exact tests between models on the same items (McNemar / sign test), "
        "each model against the max random baseline, multiplicity control and the groups "
        "the data cannot separate (needs per-item results); csv: the tests table",
    )
    au.add_argument(
        "--adjust",
        choices=("none", "holm", "bh"),
        default="holm",
        help="multiplicity control of the verdicts, across the scores of the output (each "
        "kind of test: p_max, p_standard, p_below), and across every test of --compare: "
        "Holm (family-wise error), Benjamini-Hochberg (false discovery rate) or none; "
        "default holm",
    )
    au.add_argument(
        "--alpha",
        type=float,
        default=0.05,
        help="level of the verdicts' tests and of 'separated' in --compare (default 0.05)",
    )
    au.add_argument(
        "--plot",
        type=Path,
        metavar="FILE",
        help="draw each task's scores against both baselines to FILE (.png or .pdf; the "
        "other format is written beside it)",
    )
    au.set_defaults(func=cmd_audit)

    m = sub.add_parser(
        "manifest",
        help="hash a released-data mirror into released_manifest.json "
        "(maintainers, when a pin changes)",
    )
    m.add_argument("mirror", help="directory laid out like shared/released")
    m.add_argument("--output", help="write here instead of src/evalsci/data/released_manifest.json")
    m.set_defaults(func=cmd_manifest)

    v = sub.add_parser(
        "verify",
        help="recheck fetched bundles against their SHA256SUMS and "
        "the pinned manifest (content of .gz files)",
    )
    v.add_argument(
        "path",
        nargs="?",
        default="resources/released",
        help="a bundle directory, or a directory of bundles (default %(default)s)",
    )
    v.add_argument(
        "--cached",
        action="store_true",
        help="rehash only files whose size, mtime, ctime or inode changed since they were last "
        "hashed (the workflow's shortcut; misses only a change below the file system, such as "
        "bit rot). Default: rehash every file",
    )
    v.set_defaults(func=cmd_verify)

    c = sub.add_parser(
        "check-config",
        help="check workflow config files as the workflow does: each read strictly (a "
        "duplicate key, a YAML syntax error, an empty file is named with its line; Snakemake "
        "does not name a bad --configfile), then all of them over ROOT/config.yaml, as "
        "--configfile, resolved over the study presets and validated (a value the schema "
        "rejects is named with its key and the file and line that set it)",
    )
    c.add_argument("files", nargs="+", metavar="FILE")
    c.add_argument(
        "--root",
        default=str(Path(__file__).resolve().parents[2]),
        help="the workflow's directory (config.yaml, workflow/presets; default: this checkout)",
    )
    c.add_argument(
        "--resolved", action="store_true", help="print the resolved configuration (YAML)"
    )
    c.set_defaults(func=cmd_check_config)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        rc = args.func(args)
    except ValueError as e:  # names from files may hold escape codes: printed escaped
        from evalsci.textsafe import printable

        print(f"evalsci {args.command}: error: {printable(str(e), keep=chr(10))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    return EXIT_OK if rc is None else rc


def run() -> int:
    """The `evalsci` command (its console script, and `python -m evalsci.cli`): `main`, then
    gc.freeze, so that the interpreter's exit skips the cycle collections that would take
    apart, one by one, the ~70,000 objects (classes, functions, module dicts: all in cycles)
    that importing pandas, pyarrow and scipy made; the exit frees the process's memory anyway.
    ~0.1 CPU-s of every run (0.12 -> 0.01 s of exit after those imports); nothing runs after
    it but the exit. In-process callers (tests) call `main`, and keep their collector."""
    import gc

    rc = main()
    gc.freeze()
    return rc


if __name__ == "__main__":
    sys.exit(run())
