"""`evalsci claims`: the claims ledgers of a results tree, as a table, CSV, JSON or Markdown.

Exit codes: 0 printed, 2 bad input (an unknown study, a missing or malformed ledger: the error
names the file and the rule that makes it).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

__all__ = ["add_parser", "run"]

FORMATS = ("table", "csv", "json", "md")


def add_parser(sub) -> argparse.ArgumentParser:
    c = sub.add_parser(
        "claims",
        help="each paper's claims: quote, the paper's value, ours, its uncertainty and the "
        "verdict by one rule (from the ledgers results/<study>/claims.csv)",
    )
    c.add_argument(
        "--study",
        action="append",
        metavar="S",
        help="a study (repeat for several; default: every study whose ledger exists)",
    )
    c.add_argument(
        "--format",
        choices=FORMATS,
        default="table",
        help="table (default): fits $COLUMNS characters (100 when unset), long cells cut with "
        "'…'; csv and json: every column in full (with the test that decided each verdict); "
        "md: a Markdown table",
    )
    c.add_argument(
        "--root",
        default="results",
        metavar="DIR",
        help="the results tree holding <study>/claims.csv (default %(default)s)",
    )
    c.set_defaults(func=run)
    return c


def _width() -> int:
    try:
        return max(int(os.environ.get("COLUMNS", "")), 20)
    except ValueError:
        return 100


def _ledger_file(root: Path, study: str) -> Path:
    from evalsci import paths
    from evalsci.claims import render

    return root / Path(render.ledger_path(study)).relative_to(paths.RESULTS)


def run(args) -> int:
    from evalsci.claims import render
    from evalsci.claims.ledger import read_csv

    root = Path(args.root)
    wanted = args.study
    if wanted:
        known = render.paper_studies()
        unknown = [s for s in wanted if s not in known]
        if unknown:
            raise ValueError(f"unknown study {unknown}; studies: {known}")
        files = {s: _ledger_file(root, s) for s in wanted}
        missing = {s: f for s, f in files.items() if not f.is_file()}
        if missing:
            raise ValueError(
                "; ".join(
                    f"no claims ledger for {s} at {f}: {render.making_rule(s)} writes it"
                    for s, f in missing.items()
                )
            )
    else:
        files = {}
        for s in render.paper_studies():
            try:
                files[s] = _ledger_file(root, s)
            except ValueError:
                continue  # no ledger registered for this study yet
        files = {s: f for s, f in files.items() if f.is_file()}
        if not files:
            raise ValueError(
                f"no claims ledger under {root} (rules <study>_make_claims write "
                "<study>/claims.csv; give --root the results tree)"
            )
    rows = [r for f in files.values() for r in read_csv(f)]
    out = {
        "table": lambda: render.to_table(rows, _width()),
        "csv": lambda: render.to_csv(rows),
        "json": lambda: render.to_json(rows),
        "md": lambda: render.to_markdown(rows),
    }[args.format]()
    if args.format == "table":
        out += "".join(
            render.summary_line(s, [r for r in rows if r.study == s]) + "\n" for s in files
        )
    try:
        sys.stdout.write(out)
        sys.stdout.flush()
    except BrokenPipeError:  # `evalsci claims | head`: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0
