"""Where the CPU of a whole workflow run goes: a py-spy profile grouped by rule and by activity.

Record (py-spy is a profiler, not a project dependency: `pip install py-spy`):

    py-spy record -s -r 20 -f raw -o dag.raw -- snakemake -s Snakefile -d <new dir> --cores 2
    python scripts/profile_dag.py dag.raw

`-s` follows every job's Python process. The report gives, per rule (the job script's name),
the sampled seconds and how many of them were spent importing modules, then the samples of all
jobs by activity (XGBoost, imports, numba compilation, ...). Samples are wall-clock seconds of
threads that were running or runnable, so on a busy machine they exceed the CPU seconds
somewhat; compare shares, not absolute numbers. Native threads that Python does not see
(nutpie's Rust chains) are not in it.
"""

from __future__ import annotations

import argparse
import collections
import re

# activity -> substrings of a stack that mark it; the first match wins
ACTIVITIES = [
    ("imports", ("_find_and_load ",)),
    ("nutpie compilation", ("compile_pymc_model",)),
    ("other numba compilation", ("numba/core/compiler",)),
    ("xgboost", ("xgboost/",)),
    ("embedding forward (torch)", ("sentence_transformers", "torch/nn")),
    ("savefig", ("savefig", "print_figure")),
    ("matplotlib (drawing)", ("matplotlib/",)),
    ("scikit-learn", ("sklearn/",)),
    ("pandas", ("pandas/",)),
    ("pytensor", ("pytensor/",)),
    ("scipy", ("scipy/",)),
]
SCRIPT = re.compile(r"\.snakemake/scripts/tmp\w+\.(\w+)\.py")


def read(path: str):
    """(rule, stack, samples) per line of py-spy's raw (collapsed stack) output."""
    with open(path) as fh:
        for line in fh:
            stack, count = line.rstrip("\n").rsplit(" ", 1)
            frames = stack.split(";")
            procs = [f for f in frames if f.startswith("process ")]
            m = SCRIPT.search(procs[-1]) if procs else None
            rule = m.group(1) if m else ("snakemake (scheduler)" if len(procs) <= 1 else "other")
            yield rule, stack, int(count)


def activity(stack: str) -> str:
    for name, marks in ACTIVITIES:
        if any(mark in stack for mark in marks):
            return name
    return "other"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("raw", help="py-spy record -f raw output")
    ap.add_argument("--rate", type=float, default=20.0, help="py-spy's sampling rate (-r)")
    a = ap.parse_args(argv)
    by_rule, imports, by_activity = (
        collections.Counter(),
        collections.Counter(),
        collections.Counter(),
    )
    for rule, stack, n in read(a.raw):
        by_rule[rule] += n
        if rule == "snakemake (scheduler)":
            continue  # mostly idle waiting: not an activity of the jobs
        act = activity(stack)
        by_activity[act] += n
        if act == "imports":
            imports[rule] += n
    s = a.rate
    print(f"{'rule (job script)':40s} {'sampled s':>10s} {'of which imports':>17s}")
    for rule, n in by_rule.most_common():
        print(f"{rule:40s} {n / s:10.1f} {imports[rule] / s:17.1f}")
    print(f"\n{'activity (all jobs)':40s} {'sampled s':>10s}")
    for act, n in by_activity.most_common():
        print(f"{act:40s} {n / s:10.1f}")


if __name__ == "__main__":
    main()
