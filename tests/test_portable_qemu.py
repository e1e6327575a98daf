"""Portable arithmetic (config `portable`, default true): every study's tiny configuration gives
byte-identical result files natively (this CPU: AVX-512 on the project machines) and with its
jobs on two emulated CPUs, Nehalem (SSE4.2, no AVX) and Haswell (AVX2 + FMA), through Debian's
qemu-user (tests/emulated_cpu.py). Under each CPU, torch, oneDNN, MKL, OpenBLAS, numpy, numba and
glibc pick that CPU's kernels unless pinned (evalsci.pipeline.determinism.PORTABLE_ENV).

Marker `qemu` (README "Test"). Without qemu-x86_64 these tests skip, saying so; CI installs
qemu-user and sets EVALSCI_REQUIRE_QEMU=1, which turns the skip into a failure.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import re
import signal
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import yaml

from evalsci.pipeline.determinism import apply_portable

from conftest import SMOLLM2_MODEL, seed_outputs, snakemake
from emulated_cpu import CPUS, emulated_python, qemu_path

pytestmark = [pytest.mark.qemu, pytest.mark.workflow, pytest.mark.slow]

# float32 SmolLM2 inference (torch, MKL, oneDNN) and the GGUF conversion (numpy): the scores'
# log-likelihoods must be the same bits, not only the predictions. The workflow test's tiny
# configuration cut down, since its inference costs ~68x its native CPU time emulated (about
# 4,000 CPU-s; byte-identical on an emulated Haswell, docs/reproducibility.md): one dataset,
# one trial, k = 0 and 1, one validation example (113 forward tokens, at ~1.4 tokens/s
# emulated; two examples were 209 tokens and 148 s of an emulated Nehalem's run).
MC_ICL = yaml.safe_load((Path(__file__).parent / "fixtures" / "mc_icl" / "tiny.yaml").read_text())
MC_ICL["mc_icl"].update(
    datasets=["sst2"],
    num_demos=1,
    num_permutations=1,
    num_trials=1,
    num_eval=1,
    figure3_dataset="sst2",
)

# Each study's targets on a configuration small enough to run under emulation (9-10x the
# native CPU time). Together they pass the CPU-dispatching libraries: numpy/scipy float64 and
# glibc's libm (baselines' maxrandom rule, which audit shares; tapt Table 1), OpenBLAS and
# scikit-learn (tapt PCA), PyTensor's C code and PyMC's NUTS (a tapt fit, both comparisons,
# draws included), torch float32 and float64 (assessors embeddings and IRT), scikit-learn
# and XGBoost (assessors classifiers), and a causal LM's float32 inference (mc_icl).
STUDIES = {
    "baselines": (["baselines_table1"], {}),
    # The fit: the default backend (auto = PyMC's NUTS under portable arithmetic), a few draws
    # (bit-identity is the question here, not convergence: on_failure warn).
    "tapt": (
        ["tapt_table1", "tapt_pca", "results/tapt/fits/zero_shot_n100/bias_authors.json"],
        {
            "tapt": {
                "pca": {"n_trials": 3},
                "fits": {"configs": ["zero_shot_n100"], "eq2_configs": []},
                "bayes": {
                    "chains": 2,
                    "draws": 15,
                    "tune": 15,
                    "max_draws": 15,
                    "on_failure": "warn",
                },
            }
        },
    ),
    "assessors": (
        ["assessors_table3"],
        {
            "assessors": {
                "classifiers": ["logreg_l2_C1", "xgboost_bins64"],
                "n_ref": 10,
                "n_ref_sweep": [10],
                "max_train_rows": 0,
                "selectors": ["random", "clustering_embeddings", "clustering_irt"],
                "generic_features": ["similarity"],
                "specific_features": ["embeddings"],
                "random_best_of_draws": 2,
                "irt": {"dims": 2, "max_iter": 20},
                # 16 tokens a prompt: the 20 prompts' one batch took 44 s of an emulated
                # Nehalem at 32 (the same kernels; the cost is linear in tokens)
                "embedding": {"max_seq_length": 16, "batch_size": 64},
                "collections": {
                    "cfi_ground_truth": {"enabled": False},
                    "predictaboard": {"enabled": False},
                    "tiny": {
                        "bundle": "cfi_ground_truth",
                        "subdir": "raw_results",
                        "loader": "evals_logs",
                        # 20 prompts: one embedding batch, as 60 were (the same kernels),
                        # at a third of the emulated cost (60 took 207 CPU-s on Haswell)
                        "max_instances": 20,
                        "nref_figure": "figure8",
                        "llms": {
                            "train": ["text-ada-001", "text-curie-001", "text-davinci-002"],
                            "validation": ["text-davinci-003"],
                            "test": ["gpt-4-0613"],
                        },
                        "ood_splits": {},
                    },
                },
            }
        },
    ),
    "mc_icl": (["mc_icl_figure1"], MC_ICL),
}


# The emulated CPUs each study runs on in CI. Every study on Nehalem, the baseline ISA (SSE4.2,
# no AVX: the farthest from the AVX2/AVX-512 machines that run the workflow). Haswell (AVX2 +
# FMA) for the studies whose libraries' AVX2 kernels no other emulated run reaches: baselines
# (numpy/scipy float64, glibc's libm: the shared maxrandom rule) and mc_icl (torch float32
# through MKL and oneDNN); tests/test_compare_portable.py runs the numpy sampler on both. tapt
# (PyTensor's C code, compiled for x86-64-v2 by the portable pins whatever the CPU; numpy and
# OpenBLAS as above) and assessors (torch, scikit-learn, XGBoost) on Haswell cost ~300 CPU-s
# more per CI run, which CI's 30 minutes do not hold: EVALSCI_QEMU_CPUS=all runs every study
# on every CPU (as scripts/check_reproducible.sh --qemu Haswell does for the default run).
STUDY_CPUS = {
    study: CPUS
    if study in ("baselines", "mc_icl") or os.environ.get("EVALSCI_QEMU_CPUS") == "all"
    else ("Nehalem",)
    for study in STUDIES
}


@pytest.fixture(scope="module")
def qemu():
    if qemu_path() is None:
        reason = "qemu-x86_64 not installed (Debian package qemu-user): no emulated CPU"
        if os.environ.get("EVALSCI_REQUIRE_QEMU") == "1":
            pytest.fail(reason)
        pytest.skip(reason)


def result_hashes(workdir: Path, study: str) -> dict[str, str]:
    """sha256 of every file under results/<study>/ (tables, result CSV/JSON, arrays, figures);
    gzip files after decompression, since their header carries the time they were written."""
    root = workdir / "results" / study
    return {
        str(p.relative_to(root)): hashlib.sha256(
            gzip.decompress(p.read_bytes()) if p.suffix == ".gz" else p.read_bytes()
        ).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


# Inputs an emulated run takes from the native run instead of rebuilding them: the SmolLM2
# checkpoint converted from its GGUF. The conversion is mostly Python parsing the GGUF (about
# 200 CPU-s emulated per CPU, 18 natively) around numpy's elementwise dequantisation, which is
# exactly rounded on any CPU; the emulated runs test the float32 inference that reads it.
# scripts/check_reproducible.sh --qemu CPU runs the conversion emulated too (docs/
# reproducibility.md).
# The jobs that only parse the released results into tables of counts (Python, pandas, and
# chance rates 1 / options, a correctly rounded division on any CPU), with the released
# bundles they read, which must not be newer: baselines' request list (35 s of an emulated
# Nehalem's 66 s, mostly pandas' import and per-row checks), assessors' instances, splits
# (numpy's PCG64 integers) and request list, tapt's accuracies. The emulated runs test every
# job that reads them.
# {study: {rule: the paths it writes}}
SHARED_FROM_NATIVE = {
    "baselines": {
        "released_bundle": ["resources/released/srb_aggregated", "resources/released/multi_prompt"],
        "baselines_maxrandom_requests": ["results/baselines/maxrandom/requests.csv"],
    },
    "tapt": {
        "released_bundle": ["resources/released/pretrain_on_test"],
        "tapt_accuracies": ["results/tapt/data/accuracies.csv"],
    },
    "assessors": {
        "released_bundle": ["resources/released/cfi_ground_truth"],
        "assessors_data": [
            f"results/assessors/tiny/data/{name}"
            for name in ("instances.csv.gz", "success.csv.gz", "coverage.csv")
        ],
        "assessors_splits": ["results/assessors/tiny/data/splits.csv"],
        "assessors_maxrandom_requests": ["results/assessors/maxrandom/requests.csv"],
    },
    "mc_icl": {"lm_convert_smollm2": [SMOLLM2_MODEL]},
}


def _run(tmp_path_factory, mirror, study: str, python: Path | None, name: str, native=None):
    targets, cfg = STUDIES[study]
    wd = tmp_path_factory.mktemp(f"{study}_{name}")
    shared = SHARED_FROM_NATIVE.get(study, {}) if native is not None else {}
    seed_outputs(native, wd, *(rel for paths in shared.values() for rel in paths))
    args = list(targets)
    if cfg:
        path = wd.parent / f"{wd.name}.yaml"
        path.write_text(yaml.safe_dump(cfg))
        args += ["--configfile", str(path)]
    # one job at a time: the three runs of a study share the machine's cores
    proc = snakemake(wd, *args, mirror=mirror, python=python, cores=1)
    # taken, not rebuilt: Snakemake ran none of the rules whose outputs were handed over
    log = proc.stdout + proc.stderr
    rebuilt = [rule for rule in shared if re.search(rf"^(local)?rule {rule}:", log, re.M)]
    assert not rebuilt, f"{study} on {name}: ran {rebuilt} instead of using the native run's"
    return wd


@pytest.fixture(scope="module")
def study_runs(qemu, tmp_path_factory, mirror):
    """Each study's result hashes natively and on every emulated CPU: {cpu or "native": ...}.
    The three runs of a study go at once (the emulated ones are single-threaded and take
    minutes each: in turn they were half of CI's time), once per worker (one xdist group per
    study); where the emulated runs take inputs from the native one (SHARED_FROM_NATIVE), it
    goes first."""
    pythons = {cpu: emulated_python(tmp_path_factory.mktemp(f"venv_{cpu}"), cpu) for cpu in CPUS}
    runs: dict[str, dict[str, dict[str, str]]] = {}

    def get(study: str) -> dict[str, dict[str, str]]:
        if study not in runs:
            # the native run first where the emulated runs take inputs from it, else all at once
            wds = {}
            if study in SHARED_FROM_NATIVE:
                wds["native"] = _run(tmp_path_factory, mirror, study, None, "native")
            names = {"native": None, **{cpu: pythons[cpu] for cpu in STUDY_CPUS[study]}}
            todo = [n for n in names if n not in wds]
            with ThreadPoolExecutor(max_workers=len(todo)) as pool:
                runs_ = pool.map(
                    lambda n: _run(
                        tmp_path_factory, mirror, study, names[n], n, native=wds.get("native")
                    ),
                    todo,
                )
                wds.update(zip(todo, runs_, strict=True))
            runs[study] = {n: result_hashes(wd, study) for n, wd in wds.items()}
            assert runs[study]["native"], f"{study}: no result files"
        return runs[study]

    return get


@pytest.mark.parametrize(
    # one xdist group per study (.ci/run: --dist loadgroup): its native and emulated runs on
    # one worker, once; the studies spread over the workers
    ("study", "cpu"),
    [
        pytest.param(s, cpu, marks=pytest.mark.xdist_group(f"qemu_{s}"))
        for s in STUDIES
        for cpu in STUDY_CPUS[s]
    ],
)
def test_results_are_byte_identical_on_emulated_cpus(study, cpu, study_runs):
    runs = study_runs(study)
    native, emulated = runs["native"], runs[cpu]
    assert emulated.keys() == native.keys(), f"{study} on {cpu}: other files"
    differ = sorted(k for k in native if emulated[k] != native[k])
    assert not differ, f"{study}: files differ between this CPU and an emulated {cpu}: {differ}"


def test_bitsandbytes_cannot_load_without_avx(qemu, tmp_path):
    """Why the embedding job blocks bitsandbytes (evalsci.pipeline.determinism.block_bitsandbytes):
    importing it (a dependency for 4-bit models on CUDA) loads its CPU library, which executes
    AVX instructions at once, and sentence-transformers imports it through transformers and
    peft. When a bitsandbytes release stops doing so, this fails: then the block can go. That
    the block works, sentence-transformers imported on the emulated Nehalem, is the assessors
    study's run above (its embedding job)."""
    python = emulated_python(tmp_path / "venv", "Nehalem")
    # Under the portable pins the embedding job runs with, so that only bitsandbytes can
    # SIGILL: some machines set OPENBLAS_CORETYPE=Haswell in the environment, which makes
    # numpy's OpenBLAS execute AVX2 on the emulated Nehalem (seen in CI on an AVX-512 EPYC).
    env = dict(os.environ)
    apply_portable(True, env)
    proc = subprocess.run([str(python), "-c", "import bitsandbytes"], capture_output=True, env=env)
    assert proc.returncode == -signal.SIGILL or proc.returncode == 128 + signal.SIGILL, proc.stderr


def test_blocked_bitsandbytes_is_no_4bit_support():
    """The block as sentence-transformers' importers see it, natively in a fresh process: peft
    (which transformers and sentence-transformers load) takes bitsandbytes as not installed."""
    blocked = (
        "from evalsci.pipeline.determinism import block_bitsandbytes; block_bitsandbytes(); "
        "import sentence_transformers, peft.helpers; print(peft.helpers.bnb)"
    )
    proc = subprocess.run([sys.executable, "-c", blocked], capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout.strip() == "None", proc.stderr[-2000:]
