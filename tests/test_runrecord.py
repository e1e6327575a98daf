"""Run records (evalsci.runrecord) and the blocks rendered from one recorded run: the script
scripts/tapt_paper_scale.sh runs a workflow in a clone and records it; the tapt paper-scale
blocks print that record and come only from it, never from rule docs_tables."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from evalsci import runrecord
from evalsci.pipeline import doctables

from conftest import REPO

SCRIPT = REPO / "scripts" / "tapt_paper_scale.sh"
SNAKEMAKE = Path(sys.executable).with_name("snakemake")
BUSY_S = 1.5  # CPU seconds each job of the tiny workflow burns

# A workflow of three jobs: two with their benchmark files in one directory (one group), one
# alone; each burns BUSY_S of CPU.
SNAKEFILE = f"""
rule all:
    input: "results/x/a.txt", "results/x/b.txt", "results/y.txt"

rule burn:
    output: "results/x/{{n}}.txt"
    benchmark: "logs/x/{{n}}.benchmark.tsv"
    shell: "{sys.executable} burn.py > {{output}}"

rule lone:
    output: "results/y.txt"
    benchmark: "logs/y.benchmark.tsv"
    shell: "{sys.executable} burn.py > {{output}}"
"""
BURN = f"""import time
end = time.process_time() + {BUSY_S}
while time.process_time() < end:
    pass
print("done")
"""


@pytest.fixture(scope="module")
def recorded_run(tmp_path_factory):
    """The script run on a tiny workflow in a fresh git repository, with its wall time as
    measured from outside."""
    if not SNAKEMAKE.is_file():
        pytest.skip(f"no snakemake beside {sys.executable}")
    d = tmp_path_factory.mktemp("run")
    (d / "Snakefile").write_text(SNAKEFILE)
    (d / "burn.py").write_text(BURN)
    git = ["git", "-C", str(d), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git[:3], "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "tiny"], check=True)
    commit = subprocess.run(
        [*git[:3], "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    env = {
        **os.environ,
        "TARGETS": "all",
        "SNAKEMAKE": str(SNAKEMAKE),
        "PYTHON": sys.executable,
        "PYTHONPATH": str(REPO / "src"),
        "RUN_NOTE": "A test run",
    }
    t0 = time.monotonic()
    p = subprocess.run(
        ["bash", str(SCRIPT), str(d), "demo", "2"], env=env, capture_output=True, text=True
    )
    wall = time.monotonic() - t0
    assert p.returncode == 0, p.stderr + (d / "run.log").read_text()
    return d, commit, wall


def test_script_records_the_run(recorded_run):
    d, commit, wall = recorded_run
    rec = runrecord.load(d / "results/tapt/run_record.yaml")
    assert rec["commit"] == commit and rec["rc"] == 0 and rec["dirty"] is False
    assert rec["scale"] == "demo" and rec["note"] == "A test run"
    assert rec["command"] == f"{SNAKEMAKE} all --cores 2 --config 'tapt={{scale: demo}}'"
    assert rec["nproc"] == len(os.sched_getaffinity(0))
    assert rec["cpu"] == runrecord.cpu_model() and rec["cpu_source"] == "started.txt"
    assert rec["start"] <= rec["end"]
    # what the run imported, hashed at its start: this checkout's package (PYTHONPATH)
    state = runrecord.package_state()
    assert rec["package"]["path"] == str(REPO / "src" / "evalsci") == state["path"]
    assert rec["package"]["tree_sha256"] == state["tree_sha256"]
    assert "is unchanged since the run" in runrecord.summary(rec, rests_on=("studies/tapt",))
    # two benchmark files in logs/x are one group, the lone one its own
    jobs = rec["benchmarked_jobs"]
    assert set(jobs) == {"x", "y"} and jobs["x"]["jobs"] == 2 and jobs["y"]["jobs"] == 1
    # each job's wall time covers its own CPU (one thread); Snakemake samples a job's CPU
    # time, so the benchmarked CPU is at most the BUSY_S each job burnt plus its start
    for g in jobs.values():
        assert g["wall_s"] >= g["jobs"] * BUSY_S
        assert 0 < g["cpu_s"] <= g["jobs"] * (BUSY_S + 1.0)
    if shutil.which("/usr/bin/time") is None:
        pytest.skip("no GNU time: the record has no totals of the whole run")
    # GNU time: the whole run's CPU includes the 3 x BUSY_S the jobs burnt, and its wall time
    # lies within what the test measured around the script
    assert rec["cpu_s"] >= 3 * BUSY_S and rec["cpu_s"] >= rec["benchmarked_cpu_s"]
    assert 3 * BUSY_S / 2 <= rec["wall_s"] <= wall
    assert rec["max_rss_mb"] > 10


def test_script_refuses_a_directory_already_run(recorded_run):
    d, _, _ = recorded_run
    p = subprocess.run(["bash", str(SCRIPT), str(d)], capture_output=True, text=True)
    assert p.returncode == 2 and "started.txt exists" in p.stderr


def test_record_reads_bare_lines_and_refuses_an_unfinished_run(tmp_path):
    """started.txt as a hand-started run writes it: an ISO start, the commit, later the rc
    and an ISO end, without keys; the command comes from GNU time's report."""
    sha = "7abb197b8e6025dc5ddef849fb9c43e92d38d00e"
    (tmp_path / "started.txt").write_text(f"2026-11-27T03:03:31Z\n{sha}\n")
    with pytest.raises(ValueError, match="has not finished"):
        runrecord.record(tmp_path)
    (tmp_path / "started.txt").write_text(
        f"2026-11-27T03:03:31Z\n{sha}\nrc=0\n2026-11-27T04:40:00Z\n"
    )
    log = (
        subprocess.run(["/usr/bin/time", "-v", "true"], capture_output=True, text=True)
        if Path("/usr/bin/time").exists()
        else None
    )
    if log is None:
        pytest.skip("no GNU time")
    (tmp_path / "run.log").write_text("Snakemake output\n" + log.stderr)
    rec = runrecord.record(tmp_path, cpu="Some CPU", note="shared", nproc=2)
    assert (rec["start"], rec["end"], rec["commit"], rec["rc"]) == (
        "2026-11-27T03:03:31Z",
        "2026-11-27T04:40:00Z",
        sha,
        0,
    )
    assert rec["command"] == "true" and rec["scale"] is None and rec["cpu_source"] == "given"
    assert rec["nproc"] == 2 and "Some CPU, 2 CPUs." in runrecord.summary(rec)
    assert rec["benchmarked_jobs"] == {} and rec["wall_s"] < 5
    (tmp_path / "started.txt").write_text(f"{sha}\nnonsense\n")
    with pytest.raises(ValueError, match="started.txt, line 2"):
        runrecord.record(tmp_path)


@pytest.mark.parametrize(
    ("command", "scale"),
    [
        ("snakemake a b --cores 2 --config 'tapt={scale: paper}'", "paper"),
        ("snakemake a --config scale=paper recompute=true", "paper"),
        ("snakemake a --config 'tapt={fits: {configs: all}}'", None),
    ],
)
def test_scale_of_a_command_line(command, scale):
    assert runrecord._scale(command) == scale


def _tables(root: Path):
    import pandas as pd

    t = root / "results/tapt/tables"
    t.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(
        dict(config=["m100_n500"], threshold=[0.04], p_outside=[0.46], n_slices=[500])
    ).to_csv(t / "meta_analysis.csv", index=False)
    pd.DataFrame(
        {"beta_true": [0.0], "mean": [0.01], "hdi_5.5": [-0.02], "hdi_94.5": [0.03]}
    ).to_csv(t / "recovery.csv", index=False)
    pd.DataFrame(
        dict(
            effective_rank=[5, 20, 5, 20],
            n=[25, 25, 500, 500],
            bias_mean=[0.001, 0.2, 0.0, 0.01],
            bias_se=[0.01, 0.01, 0.01, 0.01],
        )
    ).to_csv(t / "pca.csv", index=False)
    pd.DataFrame(
        {
            "config": ["m100_n500"],
            "comparison": ["bias"],
            "variant": ["authors"],
            "mean": [0.001],
            "hdi_5.5": [-0.01],
            "hdi_94.5": [0.012],
            "ppd_mean": [0.0001],
            "ppd_hdi_5.5": [-0.001],
            "ppd_hdi_94.5": [0.0012],
            "draws_per_chain": [1000],
            "diagnostics_ok": [True],
        }
    ).to_csv(t / "beta_posteriors.csv", index=False)


def test_paper_blocks_come_only_from_a_paper_scale_record(recorded_run, tmp_path):
    """A record block is the record's summary above the same table its default-scale twin
    gives from the same files; a record of another scale, a failed run or no record is
    refused; rule docs_tables never renders it."""
    d, commit, _ = recorded_run
    blocks = doctables.blocks()
    paper, default = blocks["tapt_paper_comparisons"], blocks["tapt_comparisons"]
    assert paper.inputs == default.inputs and paper.scale == "paper"
    _tables(d)
    with pytest.raises(ValueError, match="at scale 'demo', not 'paper'"):
        doctables.render(paper, d)
    rec = runrecord.load(d / paper.record)
    other = tmp_path / "record.yaml"
    other.write_text(yaml.safe_dump({**rec, "scale": "paper"}))
    text = doctables.render(paper, d, record=other)
    head, _, table = text.partition("\n\n")
    assert head == runrecord.summary({**rec, "scale": "paper"}, rests_on=("studies/tapt", "stats"))
    assert f"commit `{commit[:7]}`" in head and "scale `paper`" in head and "A test run." in head
    assert table == doctables.render(default, d)
    # the row of the meta-analysis, judged by the one rule (its ledger's row)
    row = next(r for r in table.splitlines() if r.startswith("| s10-m100-n500 |"))
    assert "| 0.46 (500 slices) |" in row and row.endswith("| within_noise |")
    other.write_text(yaml.safe_dump({**rec, "scale": "paper", "rc": 1}))
    with pytest.raises(ValueError, match="failed"):
        doctables.render(paper, d, record=other)
    with pytest.raises(FileNotFoundError, match="run_record.yaml"):
        doctables.render(paper, tmp_path)
    every = doctables.buildable(["baselines", "tapt", "assessors"], ["cfi_ground_truth"])
    assert "tapt_comparisons" in every
    assert not [n for n in every if blocks[n].record]


def test_cli_writes_the_blocks_into_a_copy_of_the_docs(recorded_run, tmp_path):
    d, commit, _ = recorded_run
    _tables(d)
    rec = runrecord.load(d / "results/tapt/run_record.yaml")
    other = tmp_path / "record.yaml"
    other.write_text(yaml.safe_dump({**rec, "scale": "paper"}))
    every = doctables.blocks()
    docs = {every[n].doc for n in ("tapt_paper_comparisons", "tapt_paper_run_time")}
    for doc in docs:  # the docs the blocks sit in, wherever the registry puts them
        (tmp_path / doc).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / doc, tmp_path / doc)
    run_time_doc = tmp_path / every["tapt_paper_run_time"].doc
    doctables.main(
        ["--root", str(d), "--record", str(other), "--doc-root", str(tmp_path), "tapt_paper_*"]
    )
    blocks = doctables.blocks()
    for name in ("tapt_paper_comparisons", "tapt_paper_run_time"):
        got = doctables.current(blocks[name], tmp_path)
        assert got.startswith("From the run: commit `" + commit[:7])
    assert "| `logs/x` | 2 |" in doctables.current(blocks["tapt_paper_run_time"], tmp_path)
    with pytest.raises(SystemExit):
        doctables.main(["--root", str(d), "tapt_nonesuch"])
    # a run of another scale: one line naming the record, exit status 2, no doc touched
    before = run_time_doc.read_text()
    with pytest.raises(SystemExit) as e:
        doctables.main(["--root", str(d), "--doc-root", str(tmp_path), "tapt_paper_run_time"])
    assert e.value.code == 2 and run_time_doc.read_text() == before


# ------------------------------------------------------------------ the package tree hash
def _package(root: Path) -> Path:
    pkg = root / "evalsci"
    (pkg / "studies" / "tapt").mkdir(parents=True)
    (pkg / "stats").mkdir()
    (pkg / "__init__.py").write_text('"""a package"""\n')
    (pkg / "studies" / "tapt" / "steps.py").write_text("X = 1\n")
    (pkg / "stats" / "agreement.py").write_text("K = 2\n")
    (pkg / "pipeline.yaml").write_text("a: 1\n")
    (pkg / "__pycache__").mkdir()
    (pkg / "__pycache__" / "x.cpython-312.pyc").write_bytes(b"\0")
    return pkg


def test_tree_hash_is_stable_names_the_package_and_changes_with_a_module(tmp_path):
    pkg = _package(tmp_path)
    a, b = runrecord.package_state(pkg), runrecord.package_state(pkg)
    assert a == b and a["path"] == str(pkg.resolve())
    assert set(a["files"]) == {
        "__init__.py",
        "studies/tapt/steps.py",
        "stats/agreement.py",
        "pipeline.yaml",
    }  # bytecode is not the code
    rec = {"package": a}
    assert runrecord.code_state(rec, ("studies/tapt",), now=b).startswith(
        "The code it rests on (`evalsci/studies/tapt`: 1 files) is unchanged"
    )
    (pkg / "stats" / "agreement.py").write_text("K = 1.96\n")
    c = runrecord.package_state(pkg)
    assert c["tree_sha256"] != a["tree_sha256"]
    assert [k for k in a["files"] if a["files"][k] != c["files"][k]] == ["stats/agreement.py"]
    # a block that rests on tapt only is unaffected; one that rests on stats says so
    assert "is unchanged" in runrecord.code_state(rec, ("studies/tapt",), now=c)
    msg = runrecord.code_state(rec, ("studies/tapt", "stats"), now=c)
    assert msg.startswith("Code changed since the run: 1 of the files") and "agreement.py" in msg
    # a new module counts as a change; the whole package is the default
    (pkg / "stats" / "new.py").write_text("")
    assert "Code changed" in runrecord.code_state(rec, now=runrecord.package_state(pkg))
    # back to the run's bytes: unchanged again
    (pkg / "stats" / "new.py").unlink()
    (pkg / "stats" / "agreement.py").write_text("K = 2\n")
    assert runrecord.package_state(pkg) == a


def test_a_record_without_hashes_says_the_code_state_is_unknown():
    rec = {
        "commit": "7abb197b8e6025dc5ddef849fb9c43e92d38d00e",
        "start": "2026-11-27T03:03:31Z",
        "end": "2026-11-27T05:33:00Z",
        "command": "snakemake tapt_table1 --config 'tapt={scale: paper}'",
        "rc": 0,
        "scale": "paper",
    }
    text = runrecord.summary(rec, rests_on=("studies/tapt", "stats"))
    assert "The code state of the run is unknown" in text and "unchanged" not in text


def test_the_state_names_the_package_a_run_imports_even_from_another_clone(tmp_path):
    """An editable install can make a run in one clone import another clone's package: the
    state records the package as imported (here a copy of src/ first on PYTHONPATH)."""
    other = tmp_path / "other_clone" / "src"
    shutil.copytree(
        REPO / "src" / "evalsci", other / "evalsci", ignore=shutil.ignore_patterns("__pycache__")
    )
    out = tmp_path / "state.yaml"
    subprocess.run(
        [sys.executable, "-m", "evalsci.runrecord", "--state", str(out)],
        env={**os.environ, "PYTHONPATH": str(other)},
        check=True,
        cwd=tmp_path,
    )
    state = yaml.safe_load(out.read_text())
    assert state["path"] == str((other / "evalsci").resolve())
    assert state["tree_sha256"] == runrecord.package_state()["tree_sha256"]  # same files
    (other / "evalsci" / "stats" / "agreement.py").write_text("# edited\n")
    rec = {"package": state, "run_dir": str(tmp_path / "other_clone")}
    assert "Code changed since the run" not in runrecord.code_state(rec, ("stats",))
    assert "Code changed since the run" in runrecord.code_state(
        rec, ("stats",), now=runrecord.package_state(other / "evalsci")
    )


def test_a_stopped_run_resumes_and_its_record_says_so(tmp_path):
    """RESUME=1 continues a run that failed or was stopped: the finished job is not redone
    (its output and benchmark survive), started.txt keeps the first start and commit, and the
    record lists the resumption and sums the GNU time reports of both invocations."""
    if not SNAKEMAKE.is_file():
        pytest.skip(f"no snakemake beside {sys.executable}")
    d = tmp_path / "run"
    d.mkdir()
    # job a always works (and counts its runs); job b fails until the file `ok` exists
    (d / "Snakefile").write_text(
        """
rule all:
    input: "results/a.txt", "results/b.txt"

rule a:
    output: "results/a.txt"
    benchmark: "logs/a.benchmark.tsv"
    shell: "echo run >> runs_of_a.txt; echo a > {output}"

rule b:
    input: "results/a.txt"
    output: "results/b.txt"
    benchmark: "logs/b.benchmark.tsv"
    shell: "test -e ok && echo b > {output}"
"""
    )
    git = ["git", "-C", str(d), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git[:3], "init", "-q"], check=True)
    subprocess.run([*git, "add", "Snakefile"], check=True)
    subprocess.run([*git, "commit", "-qm", "tiny"], check=True)
    env = {
        **os.environ,
        "TARGETS": "all",
        "SNAKEMAKE": str(SNAKEMAKE),
        "PYTHON": sys.executable,
        "PYTHONPATH": str(REPO / "src"),
    }
    run = ["bash", str(REPO / "scripts" / "recorded_run.sh"), "tapt", str(d), "demo", "1"]
    first = subprocess.run(run, env=env, capture_output=True, text=True)
    assert first.returncode != 0 and (d / "results/a.txt").is_file()
    again = subprocess.run(run, env=env, capture_output=True, text=True)
    assert again.returncode == 2 and "RESUME=1" in again.stderr
    (d / "ok").write_text("")
    resumed = subprocess.run(run, env={**env, "RESUME": "1"}, capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr + (d / "run.log").read_text()
    assert (d / "runs_of_a.txt").read_text() == "run\n"  # a was not redone
    rec = runrecord.load(d / "results/tapt/run_record.yaml")
    assert rec["rc"] == 0 and len(rec["resumed"]) == 1
    assert rec["command"].endswith("--cores 1 --config 'tapt={scale: demo}'")
    assert "--rerun-incomplete" in rec["resumed_command"]
    assert rec["benchmarked_jobs"]["."]["jobs"] == 2  # a once, b once (both in logs/)
    assert "Stopped and resumed at" in runrecord.summary(rec)
    if shutil.which("/usr/bin/time") is not None:
        assert rec["invocations"] == 2 and "summed over its 2" in runrecord.summary(rec)
    finished = subprocess.run(run, env={**env, "RESUME": "1"}, capture_output=True, text=True)
    assert finished.returncode == 2 and "nothing to resume" in finished.stderr
