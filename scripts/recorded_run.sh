#!/usr/bin/env bash
# One study's workflow at one preset, end to end in DIR, a clone of this repository, with the
# run's record (the runs whose blocks the docs print with their record: tapt at the paper's
# scale, mc_icl at CPU scale):
#
#   EVALSCI_MIRROR=/path/to/released scripts/recorded_run.sh STUDY DIR SCALE [CORES]
#
# CORES defaults to 2. TARGETS (a list of words) replaces the study's targets (every target
# the artefact registry builds for STUDY at `default`; tests/test_runrecord.py); CONFIG (more
# `--config` words, e.g. portable=false) is added to the command. RESUME=1 continues a run that
# was stopped (killed, the machine rebooted) in the same DIR: Snakemake redoes only the jobs
# whose outputs are missing or incomplete (mc_icl: the unfinished shards), and started.txt
# keeps the first start and gets a `resumed=` line.
# Writes, in DIR: started.txt (start, commit, command, scale, CPU model, nproc; then rc, end),
# run.log (Snakemake's output and GNU time's -v report), logs/**/*.benchmark.tsv (Snakemake,
# per job) and results/STUDY/run_record.yaml (evalsci.runrecord: all of these in one file).
# RUN_NOTE, if set, is a sentence kept in the record (e.g. that other work shared the cores).
# Then, from the checkout whose docs you update (rule docs_tables never writes these blocks):
#
#   python -m evalsci.pipeline.doctables --root DIR 'tapt_paper_*'
#
# Needs: git, lscpu, GNU time (/usr/bin/time; without it the record has no wall/CPU totals of
# the whole run, only the jobs' own measurements), the snakemake and python of the project's
# environment (SNAKEMAKE, PYTHON override them).
set -euo pipefail

usage="usage: scripts/recorded_run.sh STUDY DIR SCALE [CORES]"
study=${1:?$usage}
dir=${2:?$usage}
scale=${3:?$usage}
cores=${4:-2}
snakemake=${SNAKEMAKE:-snakemake}
python=${PYTHON:-python}
cd "$dir"
[ -f Snakefile ] && git rev-parse --git-dir >/dev/null || {
    echo "$dir: not a clone of evalsci (no Snakefile or no git)" >&2
    exit 2
}
if [ "${RESUME:-0}" = 1 ]; then
    [ -e started.txt ] || {
        echo "$dir/started.txt is missing: nothing to resume (start without RESUME)" >&2
        exit 2
    }
    grep -q '^rc=' started.txt && {
        echo "$dir: the run has finished (rc= in started.txt); nothing to resume" >&2
        exit 2
    }
    echo "resumed=$(date -u +%Y-%m-%dT%H:%M:%SZ)" >>started.txt
else
    [ -e started.txt ] && {
        echo "$dir/started.txt exists: a run was already started here; use a fresh clone (or RESUME=1)" >&2
        exit 2
    }
fi
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
# every target of the study built from the released data (the artefact registry's `default`)
targets=${TARGETS:-$("$python" -c '
import sys
from evalsci.pipeline.artefacts import artefacts
print(" ".join(dict.fromkeys(a.target for a in artefacts("default") if a.study == sys.argv[1])))' "$study")}
config="$study={scale: $scale}"
# shellcheck disable=SC2206  # CONFIG is a list of words
extra=(${CONFIG:-})
# a resumed run redoes the jobs a kill left incomplete (Snakemake refuses to start otherwise)
resume=()
[ "${RESUME:-0}" = 1 ] && resume=(--rerun-incomplete)
command="$snakemake $targets --cores $cores${resume:+ ${resume[*]}} --config '$config'${CONFIG:+ $CONFIG}"
if [ "${RESUME:-0}" != 1 ]; then
    {
        echo "start=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "commit=$(git rev-parse HEAD)"
        echo "command=$command"
        echo "scale=$scale"
        echo "cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)"
        echo "nproc=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)" # the CPUs it may use
    } >started.txt
    [ -n "$(git status --porcelain --untracked-files=no)" ] && echo "dirty=true" >>started.txt
fi

timer=()
[ -x /usr/bin/time ] && timer=(/usr/bin/time -v)
set +e
# shellcheck disable=SC2086  # $targets is a list of words
"${timer[@]}" "$snakemake" $targets --cores "$cores" "${resume[@]}" --config "$config" \
    "${extra[@]}" >>run.log 2>&1
rc=$?
set -e
{
    echo "rc=$rc"
    echo "end=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
} >>started.txt
[ "$rc" -eq 0 ] || {
    echo "the run failed (rc=$rc): see $dir/run.log" >&2
    exit "$rc"
}
"$python" -m evalsci.runrecord . --out "results/$study/run_record.yaml" ${RUN_NOTE:+--note "$RUN_NOTE"}
