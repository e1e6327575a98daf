"""What a run prints on the console: compact target jobs, and where the results are.

Snakemake prints each job with its input and output files and the reason it runs. For the
target rules (`all` and the named artefact targets) those are the whole artefact list: rule
`all` alone printed an 8,799-character input line and a reason as long. `compact_targets`
shows them as counts instead (the files are in the artefact index). `run_summary` is what
the workflow's `onsuccess` prints: where the results, the logs and the report are.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Iterable
from pathlib import Path

from evalsci import paths

__all__ = ["compact_targets", "run_summary", "ARTEFACT_INDEX"]

ARTEFACT_INDEX = "docs/artefacts.md"  # every artefact: its target, files, rule and function


class _CompactTargets(logging.Filter):
    def __init__(self, rules: Collection[str]):
        super().__init__()
        self.rules = frozenset(rules)

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "event", None) != "job_info":  # Snakemake's LogEvent.JOB_INFO
            return True
        if getattr(record, "rule_name", None) not in self.rules:
            return True
        files = list(getattr(record, "input", None) or [])
        if files:
            record.input = [f"{len(files)} files (the artefacts; {ARTEFACT_INDEX} lists them)"]
        reason = str(getattr(record, "reason", "") or "")
        head, sep, listed = reason.partition(": ")
        if sep and "," in listed:  # "Input files updated by another job: a, b, ..."
            record.reason = f"{head}: {len(listed.split(', '))} files"
        return True


def compact_targets(rules: Collection[str], logger: str = "snakemake.logging") -> None:
    """Print the jobs of the named `rules` with their input files and the reason's file list
    as counts. Idempotent: installs one filter on `logger`."""
    log = logging.getLogger(logger)
    for f in list(log.filters):
        if isinstance(f, _CompactTargets):
            log.removeFilter(f)
    log.addFilter(_CompactTargets(rules))


def run_summary(studies: Iterable[str], snakemake_log=None, root: str = ".") -> str:
    """The lines a successful run ends with: the results directory of each enabled study
    that has one (under the working directory, which `-d` may have moved), the logs, and the
    HTML report. `snakemake_log`: the run's log file (Snakemake passes a list of them)."""
    base = Path(root).resolve()
    made = [f"{s}/" for s in studies if (base / paths.RESULTS / s).is_dir()]
    lines = ["evalsci: the run finished."]
    if made:
        lines.append(
            f"  results in {base / paths.RESULTS}/: " + "  ".join(made) + " (tables/, figures/)"
        )
    lines.append(f"  what each file is (target, rule, paper artefact): {ARTEFACT_INDEX}")
    if (base / "report.html").is_file():
        lines.append(
            f"  HTML report: {base / 'report.html'} (remake: snakemake --report report.html)"
        )
    else:
        lines.append("  HTML report: snakemake --report report.html (a caption for every artefact)")
    logs = f"  job logs: {base / paths.LOGS}/<study>/"
    if isinstance(snakemake_log, str):
        snakemake_log = [snakemake_log]
    if snakemake_log:
        logs += "; this run's log: " + ", ".join(str(f) for f in snakemake_log)
    lines.append(logs)
    return "\n".join(lines)
