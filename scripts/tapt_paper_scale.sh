#!/usr/bin/env bash
# tapt's analysis at the paper's scale (preset paper: both model variants on all 16
# configurations, 500 meta-analysis slices, 2,000 PCA trials, the 50-subsample recovery
# design; no GPU), end to end in DIR, a clone of this repository, with the run's record:
#
#   EVALSCI_MIRROR=/path/to/released scripts/tapt_paper_scale.sh DIR [SCALE] [CORES]
#
# SCALE defaults to paper (another preset, e.g. demo, tries the wiring in minutes), CORES to 2;
# TARGETS (a list of words) replaces the tapt targets (tests/test_runrecord.py).
# Writes, in DIR: started.txt (start, commit, command, scale, CPU model, nproc; then rc, end),
# package_state.yaml (the evalsci package the run imports: its path and file hashes),
# run.log (Snakemake's output and GNU time's -v report), logs/**/*.benchmark.tsv (Snakemake,
# per job) and results/tapt/run_record.yaml (evalsci.runrecord: all of these in one file).
# RUN_NOTE, if set, is a sentence kept in the record (e.g. that other work shared the cores).
# Then, from the checkout whose docs you update (rule docs_tables never writes these blocks):
#
#   python -m evalsci.pipeline.doctables --root DIR 'tapt_paper_*'
#
# Needs: git, lscpu, GNU time (/usr/bin/time; without it the record has no wall/CPU totals of
# the whole run, only the jobs' own measurements), the snakemake and python of the project's
# environment (SNAKEMAKE, PYTHON override them).
set -euo pipefail

dir=${1:?usage: scripts/tapt_paper_scale.sh DIR [SCALE] [CORES]}
scale=${2:-paper}
cores=${3:-2}
snakemake=${SNAKEMAKE:-snakemake}
python=${PYTHON:-python}
cd "$dir"
[ -f Snakefile ] && git rev-parse --git-dir >/dev/null || {
    echo "$dir: not a clone of evalsci (no Snakefile or no git)" >&2
    exit 2
}
[ -e started.txt ] && {
    echo "$dir/started.txt exists: a run was already started here; use a fresh clone" >&2
    exit 2
}
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
# every tapt target built from the released data (the artefact registry's `default` build)
targets=${TARGETS:-$("$python" -c '
from evalsci.pipeline.artefacts import artefacts
print(" ".join(dict.fromkeys(a.target for a in artefacts("default") if a.study == "tapt")))')}
config="tapt={scale: $scale}"
command="$snakemake $targets --cores $cores --config '$config'"
{
    echo "start=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "commit=$(git rev-parse HEAD)"
    echo "command=$command"
    echo "scale=$scale"
    echo "cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)"
    echo "nproc=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)"  # the CPUs it may use
} >started.txt
[ -n "$(git status --porcelain --untracked-files=no)" ] && echo "dirty=true" >>started.txt
# what the run imports (the evalsci package's path and file hashes), before it starts
"$python" -m evalsci.runrecord --state package_state.yaml

timer=()
[ -x /usr/bin/time ] && timer=(/usr/bin/time -v)
set +e
# shellcheck disable=SC2086  # $targets is a list of words
"${timer[@]}" "$snakemake" $targets --cores "$cores" --config "$config" >run.log 2>&1
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
"$python" -m evalsci.runrecord . --out results/tapt/run_record.yaml ${RUN_NOTE:+--note "$RUN_NOTE"}
