"""Quiet, useful logs (DESIGN, Principles): a job's log holds the package's INFO and the
libraries' warnings, progress as count lines (never \\r-joined tqdm bars); the console shows
no "Shell command: None", the target rules' file lists as counts, and at the end of a run
where the results, logs and report are."""

from __future__ import annotations

import logging
import re
from types import SimpleNamespace

import pytest

from evalsci.pipeline import progress as progress_mod
from evalsci.pipeline.console import run_summary
from evalsci.pipeline.jobs import logged
from evalsci.pipeline.progress import CountLog, progress_bar

from conftest import snakemake


def _job(log):
    return SimpleNamespace(log=[str(log)], threads=1)


def test_a_job_log_keeps_evalsci_info_and_library_warnings_only(tmp_path):
    log = tmp_path / "job.log"
    with logged(_job(log)):
        logging.getLogger("evalsci.studies.x").info("step done")
        logging.getLogger("fontTools.subset").info("maxp pruned")
        logging.getLogger("fontTools.subset").warning("a real problem")
        logging.getLogger("numexpr.utils").info("NumExpr defaulting to 2 threads.")
    text = log.read_text()
    assert "step done" in text and "a real problem" in text
    assert "maxp pruned" not in text and "NumExpr" not in text


def test_a_pdf_figure_leaves_no_font_subsetting_lines(tmp_path):
    """The project's style embeds TrueType (pdf.fonttype 42), which fontTools subsets with
    a dozen INFO lines per font: they were two thirds of the job logs."""
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    from evalsci.plots import apply_style, savefig

    apply_style()
    assert plt.rcParams["pdf.fonttype"] == 42
    log = tmp_path / "job.log"
    with logged(_job(log)):
        fig, ax = plt.subplots()
        ax.plot([0, 1], [1, 0])
        ax.set_title("subset me")
        savefig(fig, [tmp_path / "f.pdf"])
    assert (tmp_path / "f.pdf").stat().st_size > 0
    assert "fontTools" not in log.read_text()


def test_progress_in_a_log_file_is_count_lines(tmp_path, monkeypatch):
    monkeypatch.setattr(progress_mod, "LOG_EVERY_S", 0.0)  # a line per step, to see them all
    log = tmp_path / "job.log"
    with logged(_job(log)):
        assert isinstance(progress_bar(range(3), desc="shards"), CountLog)  # not a terminal
        for _ in progress_bar(range(3), desc="shards", unit="shard"):
            pass
        with progress_bar(total=10, desc="maxrandom", unit="row") as bar:
            bar.update(4)
            bar.update(6)
        for _ in progress_bar(range(5), desc="quiet", disable=True):
            pass
    text = log.read_text()
    assert "\r" not in text
    lines = [ln.split(" INFO ", 1)[1] for ln in text.splitlines()]
    assert lines[:3] == [
        "shards: 1/3 shard (33%), after 0 s",
        "shards: 2/3 shard (67%), after 0 s",
        "shards: 3/3 shard (100%), after 0 s",
    ]
    assert lines[3] == "shards: 3/3 shard (100%), done in 0 s"
    assert lines[-1] == "maxrandom: 10/10 row (100%), done in 0 s"
    assert not any(ln.startswith("quiet") for ln in lines)


def test_the_run_summary_says_where_results_logs_and_report_are(tmp_path):
    (tmp_path / "results" / "tapt").mkdir(parents=True)
    text = run_summary(["baselines", "tapt"], ["/x/run.snakemake.log"], root=tmp_path)
    assert f"results in {tmp_path.resolve()}/results/: tapt/ (tables/, figures/)" in text
    assert "baselines/" not in text  # not made: not claimed
    assert "snakemake --report report.html" in text and "/x/run.snakemake.log" in text
    (tmp_path / "report.html").write_text("<html/>")
    assert f"HTML report: {tmp_path.resolve()}/report.html" in run_summary([], None, tmp_path)


def _longest(text: str) -> int:
    return max(len(line) for line in text.splitlines())


@pytest.mark.workflow
def test_the_default_dry_run_prints_a_compact_rule_all(tmp_path, mirror):
    proc = snakemake(tmp_path, "-n", mirror=mirror)
    out = proc.stdout + proc.stderr
    assert "Shell command" not in out
    block = out[out.index("rule all:") :].split("\n\n", 1)[0]
    n = int(re.search(r"input: (\d+) files \(the artefacts; docs/artefacts.md", block).group(1))
    assert n > 100  # every artefact of the default run, counted, not listed
    assert re.search(r"reason: Input files updated by another job: \d+ files", block)
    assert _longest(block) < 120, block


@pytest.mark.workflow
def test_a_run_ends_saying_where_the_results_are_and_logs_counts(tmp_path, mirror):
    proc = snakemake(tmp_path, "baselines_table1", mirror=mirror)
    out = proc.stdout + proc.stderr
    assert "Shell command" not in out
    tail = out[out.index("evalsci: the run finished.") :]
    assert f"results in {tmp_path.resolve()}/results/: baselines/" in tail
    assert "logs/<study>/" in tail and ".snakemake/log/" in tail
    job_log = (tmp_path / "logs" / "baselines" / "maxrandom.log").read_text()
    assert "\r" not in job_log
    assert re.search(r"evalsci.progress INFO maxrandom: (\d+)/\1 row \(100%\), done in", job_log)


def test_a_job_log_has_no_hugging_face_bars(tmp_path):
    """A real model load and embedding inside a job (fresh process, as Snakemake starts one):
    transformers' "Loading weights" and sentence-transformers' "Batches" bars stay out of the
    log file; the embedding step logs its count and time instead."""
    pytest.importorskip("sentence_transformers")
    import subprocess
    import sys

    log = tmp_path / "job.log"
    code = (
        "from types import SimpleNamespace\n"
        "from evalsci.pipeline.jobs import logged\n"
        "from evalsci.studies.assessors.features import embed_sentences\n"
        f"with logged(SimpleNamespace(log=[{str(log)!r}], threads=1)):\n"
        "    assert embed_sentences(['a first text', 'a second one'], batch_size=1).shape[0] == 2\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    text = log.read_text()
    assert "\r" not in text and "Loading weights" not in text and "Batches" not in text, text
    assert re.search(r"INFO embedded 2 texts \(2 batches of up to 1\) in [\d.]+ s", text), text
