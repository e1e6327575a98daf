"""The cluster path, run for real: workflow/profiles/slurm on a single-node Slurm on localhost.

tests/slurm/local_cluster.sh starts munged, slurmctld and slurmd in a temporary directory
(partitions `cpu` and `gpu`, one `gpu` GRES on the node) and stops exactly those daemons at
the end. Every job below goes through sbatch, the slurm executor plugin and its jobstep plugin
(srun inside the job), as on a real cluster; only the GPU is counted, not used.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from conftest import REPO, seed_outputs, snakemake

SCRIPT = Path(__file__).with_name("local_cluster.sh")
PROFILE = REPO / "workflow" / "profiles" / "slurm"
TINY_MC_ICL = REPO / "tests" / "fixtures" / "mc_icl" / "tiny.yaml"
TABLE1 = [f"results/baselines/tables/table1.{ext}" for ext in ("csv", "md", "tex")]
SHARD = "results/mc_icl/scores/smollm2/sst2/trial0.parquet"


def _missing() -> str | None:
    path = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/sbin"])
    for exe in ("slurmctld", "slurmd", "sbatch", "munged"):
        if shutil.which(exe, path=path) is None:
            return f"{exe} is not installed (apt-get install -y slurm-wlm munge)"
    if os.geteuid() != 0:
        return "the local cluster runs slurmd as root (as CI does); not tried as another user"
    return None


pytestmark = [
    pytest.mark.slurm,
    pytest.mark.workflow,
    pytest.mark.skipif(_missing() is not None, reason=str(_missing())),
]


@pytest.fixture(scope="module")
def cluster():
    """A private cluster for this module; yields the environment that points at it."""
    # Directly under /tmp: munged wants every directory above its socket searchable by all,
    # which pytest's per-user 0700 base directory is not.
    root = Path(tempfile.mkdtemp(prefix="evalsci-slurm-"))
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([env.get("PATH", ""), "/usr/sbin", "/sbin"])
    try:
        out = subprocess.run(
            ["bash", str(SCRIPT), "start", str(root)],
            env=env,
            text=True,
            capture_output=True,
            timeout=180,
        )
        if out.returncode != 0:
            raise AssertionError(f"local cluster did not start:\n{out.stdout}\n{out.stderr}")
        env["SLURM_CONF"] = str(root / "etc" / "slurm.conf")
        env["PATH"] = os.pathsep.join([str(root / "bin"), env["PATH"]])
        yield env
    finally:
        subprocess.run(["bash", str(SCRIPT), "stop", str(root)], env=env, timeout=120)
        status = subprocess.run(
            ["bash", str(SCRIPT), "status", str(root)], env=env, text=True, capture_output=True
        ).stdout
        assert "running" not in status, f"daemons left running:\n{status}"
        shutil.rmtree(root, ignore_errors=True)


def slurm_snakemake(env, workdir: Path, *args: str, mirror: Path, wait: bool = True):
    """snakemake with the user's profile, unchanged, except the first status check after 2 s
    instead of 40, so that short test jobs do not wait."""
    env = dict(env, EVALSCI_MIRROR=str(mirror))
    cmd = [
        sys.executable,
        "-m",
        "snakemake",
        "-s",
        str(REPO / "Snakefile"),
        "-d",
        str(workdir),
        "--profile",
        str(PROFILE),
        "--slurm-init-seconds-before-status-checks",
        "2",
        *args,
    ]
    if not wait:
        return subprocess.Popen(
            cmd, env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
        )
    try:
        return subprocess.run(
            cmd, env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=900
        )
    except subprocess.TimeoutExpired as e:
        raise AssertionError(f"snakemake ran over 900 s:\n{e.output}") from None


def submitted(output: str) -> dict[str, Path]:
    """SLURM job id -> its log, from snakemake's 'submitted with SLURM jobid' lines."""
    pat = r"submitted with SLURM jobid (\d+) \(log: (\S+)\)"
    return {m[1]: Path(m[2]) for m in re.finditer(pat, output)}


def job_stats(output: str) -> list[str]:
    """The rules of snakemake's 'Job stats' table, each repeated by its count."""
    table = output.split("Job stats:", 1)[1].split("total", 1)[0]
    return sorted(
        m[1] for m in re.finditer(r"^(\w+)\s+(\d+)$", table, re.M) for _ in range(int(m[2]))
    )


def rule_of(job: dict[str, str]) -> str:
    """The rule of a job from the plugin's comment `rule_<rule>[_wildcards_<values>]`."""
    return job["Comment"].removeprefix("rule_").split("_wildcards_")[0]


def jobs(env, ids) -> dict[str, dict[str, str]]:
    """`scontrol show job` fields of each job (finished jobs stay for MinJobAge = 300 s)."""
    info = {}
    for jid in ids:
        text = subprocess.run(
            ["scontrol", "-o", "show", "job", jid],
            env=env,
            text=True,
            capture_output=True,
            check=True,
        ).stdout
        info[jid] = dict(kv.split("=", 1) for kv in text.split() if "=" in kv)
    return info


def test_released_target_through_slurm_matches_local(cluster, shared_workdir, mirror, tmp_path):
    snakemake(shared_workdir, "baselines_table1", mirror=mirror)  # the local run
    proc = slurm_snakemake(cluster, tmp_path, "baselines_table1", mirror=mirror)
    assert proc.returncode == 0, proc.stdout
    ids = submitted(proc.stdout)
    info = jobs(cluster, ids)
    # Every job but the target (a localrule) went through sbatch, in the default partition.
    expected = job_stats(proc.stdout)
    expected.remove("baselines_table1")
    assert len(expected) >= 4  # the two bundles, the requests, maxrandom, the table
    assert sorted(rule_of(j) for j in info.values()) == expected
    assert {j["JobState"] for j in info.values()} == {"COMPLETED"}
    assert {j["Partition"] for j in info.values()} == {"cpu"}
    for name in TABLE1:
        assert (tmp_path / name).read_bytes() == (shared_workdir / name).read_bytes(), name


def test_gpu_rule_lands_in_gpu_partition(cluster, shared_workdir, mirror, tmp_path):
    # The local run: the same shard test_mc_icl_workflow builds, so CI pays for it once.
    snakemake(shared_workdir, SHARD, "--configfile", str(TINY_MC_ICL), mirror=mirror)
    # The cluster run starts from the local run's converted model and GLUE bundle, copied with
    # their times, so that only the GPU rule is submitted.
    seed_outputs(shared_workdir, tmp_path, "resources/models", "resources/released")
    proc = slurm_snakemake(
        cluster, tmp_path, SHARD, "--configfile", str(TINY_MC_ICL), mirror=mirror
    )
    assert proc.returncode == 0, proc.stdout
    ids = submitted(proc.stdout)
    assert len(ids) == 1, proc.stdout
    (job,) = jobs(cluster, ids).values()
    assert job["Comment"].startswith("rule_mc_icl_shard")
    assert job["JobState"] == "COMPLETED"
    # The rule's `gpu=1` became `--gpus=1`, and the profile routed it to the gpu partition.
    assert job["Partition"] == "gpu"
    # Slurm starts such a job only where a gpu GRES is free (the allocated count is not in the
    # job's TRES without slurmdbd, which `AccountingStorageTRES=gres/gpu` requires).
    assert job["TresPerJob"] == "gres:gpu:1"
    assert (tmp_path / SHARD).read_bytes() == (shared_workdir / SHARD).read_bytes()


def test_cancelled_job_reported_then_rerun_resumes(cluster, mirror, tmp_path):
    """scancel a running job: with retries 0 the run fails naming the job's Slurm log; the
    rerun submits only what had not finished."""
    proc = slurm_snakemake(
        cluster, tmp_path, "baselines_table1", "--retries", "0", mirror=mirror, wait=False
    )
    victim = None
    deadline = time.time() + 600
    while victim is None and proc.poll() is None and time.time() < deadline:
        q = subprocess.run(
            ["squeue", "-h", "-t", "running", "-o", "%i|%k|%M"],
            env=cluster,
            text=True,
            capture_output=True,
        ).stdout
        for line in q.splitlines():
            jid, comment, elapsed = line.split("|")
            # running for a second: the job's own snakemake has started (on a fast machine
            # the whole job takes a few seconds, so waiting longer risks missing it)
            if comment.startswith("rule_maxrandom") and elapsed != "0:00":
                victim = jid
        time.sleep(0.2)
    assert victim is not None, "the maxrandom job was never seen running"
    subprocess.run(["scancel", victim], env=cluster, check=True)
    out, _ = proc.communicate(timeout=600)
    assert proc.returncode != 0, out
    logs = submitted(out)
    first = jobs(cluster, logs)
    finished = {rule_of(j) for j in first.values() if j["JobState"] == "COMPLETED"}
    assert {"released_bundle", "maxrandom"} & finished == {"released_bundle"}
    assert re.search(rf"SLURM-job '{victim}' failed, SLURM status is: 'CANCELLED'", out), out
    assert str(logs[victim]) in out.split(f"SLURM-job '{victim}' failed")[1], out
    assert "CANCELLED" in logs[victim].read_text()
    assert not (tmp_path / "results/baselines/maxrandom/baselines.csv").exists()

    done = [
        tmp_path / "results/baselines/maxrandom/requests.csv",
        tmp_path / "resources/released/srb_aggregated",
    ]
    before = {p: p.stat().st_mtime_ns for p in done}
    rerun = slurm_snakemake(cluster, tmp_path, "baselines_table1", mirror=mirror)
    assert rerun.returncode == 0, rerun.stdout
    again = {rule_of(j) for j in jobs(cluster, submitted(rerun.stdout)).values()}
    # the cancelled job and what depends on it, nothing that had finished
    assert "maxrandom" in again and not again & finished
    assert {p: p.stat().st_mtime_ns for p in done} == before
    assert (tmp_path / TABLE1[0]).stat().st_size > 0
