"""Doc block `reference_quickstart` (docs/reference.md): `evalsci reference select`, then
`predict`, on inspect-ai logs the project ships (tests/fixtures/audit), run as written."""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
from pathlib import Path

__all__ = ["quickstart"]

KNOWN = "tests/fixtures/audit/inspect_ai/eval/*_mc-single_*.eval"
NEW = "tests/fixtures/audit/reference/inspect/"


def _run(argv: list[str]) -> tuple[int, str, str]:
    """`evalsci ARGV` through the verbs' own parser (`command.add_parser`, as evalsci.cli
    registers it; this layer does not import the CLI above it)."""
    import argparse

    from .command import add_parser

    ap = argparse.ArgumentParser(prog="evalsci")
    add_parser(ap.add_subparsers(dest="command"))
    args = ap.parse_args(argv)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = args.func(args)
    return rc, out.getvalue(), err.getvalue()


def quickstart(paths) -> str:
    """The two commands on the shipped logs (two known models, `mockllm/alpha` and `beta`;
    the new one `mockllm/gamma`) and what each prints, stdout then stderr."""
    known = sorted(str(paths[k]) for k in paths if k.startswith("known"))
    new = str(Path(paths["new"]).parent)
    with tempfile.TemporaryDirectory() as d:
        ref = os.path.join(d, "ref.csv")
        rc1, _, err1 = _run(["reference", "select", *known, "--n", "4", "--out", ref])
        refs = Path(ref).read_text()
        rc2, out2, err2 = _run(["reference", "predict", *known, "--reference", ref, "--new", new])
    if rc1 or rc2:
        raise RuntimeError(f"the quickstart's commands failed: exit {rc1}, {rc2}\n{err1}{err2}")
    err1 = err1.replace(f"{d}/", "")
    return "\n".join(
        [
            "```bash",
            f"evalsci reference select {KNOWN} --n 4 --out ref.csv",
            "cat ref.csv",
            f"evalsci reference predict {KNOWN} --reference ref.csv --new {NEW}",
            "```",
            "",
            "```text",
            err1.rstrip("\n"),
            refs.rstrip("\n"),
            out2.rstrip("\n"),
            err2.rstrip("\n"),
            "```",
            "",
        ]
    )
