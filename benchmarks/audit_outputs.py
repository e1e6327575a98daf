"""Write what `evalsci audit` prints for every input under tests/fixtures/audit (each file and
each folder on its own; CSV, JSON and, for the --compare fixtures, the tests CSV), with its
exit code and stderr, into OUT_DIR: one file per (input, format). Run it at two commits and
`diff -r` the folders to show that a change (a speed-up) leaves every output byte-identical:

    PYTHONPATH=<old checkout>/src python benchmarks/audit_outputs.py /tmp/before [EXTRA.csv ...]
    PYTHONPATH=src python benchmarks/audit_outputs.py /tmp/after [EXTRA.csv ...]
    diff -r /tmp/before /tmp/after && echo identical
    python benchmarks/audit_outputs.py --smoke      # 3 inputs, into a temporary folder (CI)

EXTRA files (e.g. the CSV that benchmarks/audit_csv.py --keep writes) are audited as CSV only.
Runs in one process (a fresh process per input would cost a second of imports each).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "audit"
NOT_INPUTS = {"make", "schema"}  # the fixtures' recipes and EEE's JSON schemas


def inputs() -> list[Path]:
    """Every fixture file (not the recipes and notes) and every folder, sorted."""
    out = []
    for p in sorted(FIXTURES.rglob("*")):
        rel = p.relative_to(FIXTURES).parts
        if NOT_INPUTS & set(rel) or p.suffix in (".md", ".py", ".sh"):
            continue
        out.append(p)
    return out


def run(argv: list[str]) -> bytes:
    """`evalsci audit ARGV` in this process: exit code, stderr and stdout as bytes."""
    from evalsci.cli import main

    raw, err = io.BytesIO(), io.StringIO()
    out = io.TextIOWrapper(raw, encoding="utf-8", newline="", write_through=True)
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(["audit", *argv])
        except SystemExit as e:  # argparse
            rc = e.code
    out.flush()
    return f"exit {rc}\n--- stderr\n{err.getvalue()}--- stdout\n".encode() + raw.getvalue()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir", type=Path, nargs="?", help="folder for the outputs (made)")
    ap.add_argument("extra", type=Path, nargs="*", help="more CSV files to audit")
    ap.add_argument("--smoke", action="store_true", help="3 inputs into a temporary folder (CI)")
    args = ap.parse_args()
    if args.smoke:
        with tempfile.TemporaryDirectory() as tmp:
            write_outputs(Path(tmp), inputs()[:3], [])
    elif args.out_dir is None:
        ap.error("give OUT_DIR, or --smoke")
    else:
        write_outputs(args.out_dir, inputs(), args.extra)


def write_outputs(dest: Path, fixtures: list[Path], extra: list[Path]) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    jobs = []
    for p in fixtures:
        name = str(p.relative_to(FIXTURES)).replace("/", "__")
        jobs += [(f"{name}.csv", [str(p), "--format", "csv"])]
        jobs += [(f"{name}.json", [str(p), "--format", "json"])]
        if "compare" in p.parts and p.is_dir():
            jobs += [(f"{name}.compare.csv", [str(p), "--compare", "--format", "csv"])]
    jobs += [(f"extra_{p.name}.csv", [str(p), "--format", "csv"]) for p in extra]
    for name, argv in jobs:
        data = run(argv)
        (dest / name).write_bytes(data)
        print(f"{hashlib.sha256(data).hexdigest()[:16]}  {len(data):>11,d}  {name}", flush=True)


if __name__ == "__main__":
    main()
