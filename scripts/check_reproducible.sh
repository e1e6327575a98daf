#!/usr/bin/env bash
# Reproducibility check at the default scale (issue 17; docs/reproducibility.md). Not run in CI:
# it builds `assessors_table3` and `mc_icl_figure1` twice, in two fresh working directories
# with different --cores, and compares the sha256 of every table (results/<study>/**/tables/*).
# With --qemu CPU (e.g. Nehalem, Haswell; repeatable) it builds them once more with every job
# on that emulated CPU (Debian's qemu-user; tests/emulated_cpu.py): with portable arithmetic
# (config `portable`, the default) every table must be byte-identical to the first run, and
# exit status 1 says one differs. --not-portable adds a run with `portable=false` on this CPU
# and lists the tables that differ (there bit-identity is not promised; the tests compare the
# conclusions on the tiny configurations).
#
#   scripts/check_reproducible.sh [--qemu CPU]... [--not-portable] [--no-same] [WORKROOT]
#
# --no-same skips run b (--cores 1), when only the other CPUs are in question. WORKROOT
# default: a new tmp dir.
#
# Offline, set EVALSCI_MIRROR as for any run; PYTHON names the interpreter (.venv/bin/python).
#
# Cost: about two default runs of both targets (see docs/reproducibility.md for the measured
# CPU time of mc_icl_figure1); an emulated CPU runs the jobs 5-10x slower (measured in
# docs/reproducibility.md). Exit status 1 if a run that must be byte-identical differs.
set -euo pipefail
cd "$(dirname "$0")/.."
cpus=()
notportable=0
same=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --qemu) cpus+=("$2"); shift 2 ;;
    --not-portable) notportable=1; shift ;;
    --no-same) same=0; shift ;;
    --other-cpu) echo "--other-cpu is gone: use --qemu CPU (another CPU, emulated)" >&2; exit 2 ;;
    *) break ;;
  esac
done
root="${1:-$(mktemp -d -t evalsci-repro.XXXXXX)}"
py="${PYTHON:-.venv/bin/python}"
# TARGETS / STUDIES override what is built and compared (e.g. TARGETS=tapt_table1 STUDIES=tapt;
# targets may be files); FILES=all compares every file under results/<study>/, not only tables;
# CONFIGFILE adds a --configfile to every run.
read -r -a targets <<< "${TARGETS:-assessors_table3 mc_icl_figure1}"
read -r -a studies <<< "${STUDIES:-assessors mc_icl}"
mkdir -p "$root"

run() {  # run NAME CORES PYTHON [SNAKEMAKE ARGS...]: build the targets in $root/NAME
  local name=$1 cores=$2 python=$3; shift 3
  echo "== $name: --cores $cores $python $*" >&2
  rm -rf "${root:?}/$name"
  local t0=$SECONDS
  "$python" -m snakemake -s Snakefile -d "$root/$name" --cores "$cores" "${targets[@]}" \
    ${CONFIGFILE:+--configfile "$CONFIGFILE"} "$@" \
    > "$root/$name.log" 2>&1 || { echo "snakemake failed, see $root/$name.log" >&2; exit 2; }
  echo "   $name: $((SECONDS - t0)) s wall" >&2
}

hashes() {  # hashes NAME: "sha256 path" of every table of the studies (FILES=all: every file)
  local s f
  for s in "${studies[@]}"; do
    if [[ ${FILES:-tables} == all ]]; then
      # every result file (arrays, fits, draws); gzip files decompressed, since their header
      # carries the time they were written
      (cd "$root/$1/results" && find "$s" -type f | sort | while read -r f; do
        if [[ $f == *.gz ]]; then echo "$(gzip -dc "$f" | sha256sum | cut -d' ' -f1)  $f"
        else sha256sum "$f"; fi
      done)
    else
      (cd "$root/$1/results" && find "$s" -path '*/tables/*' -type f -print0 | sort -z \
        | xargs -0 sha256sum)
    fi
  done
}

status=0
run a 2 "$py"
hashes a > "$root/a.sha256"
n=$(wc -l < "$root/a.sha256")
if [[ $same == 1 ]]; then
  run b 1 "$py"
  hashes b > "$root/b.sha256"
  if diff "$root/a.sha256" "$root/b.sha256" > "$root/ab.diff"; then
    echo "same machine, fresh workdirs, --cores 2 vs 1: all $n tables byte-identical"
  else
    echo "same machine: tables DIFFER (see $root/ab.diff)"; status=1
  fi
fi

for cpu in "${cpus[@]}"; do
  qpy=$("$py" tests/emulated_cpu.py "$root/venv-$cpu" "$cpu")
  run "$cpu" 2 "$qpy"
  hashes "$cpu" > "$root/$cpu.sha256"
  if diff "$root/a.sha256" "$root/$cpu.sha256" > "$root/a$cpu.diff"; then
    echo "emulated $cpu: all $n compared files (FILES=${FILES:-tables}) byte-identical"
  else
    echo "emulated $cpu: files DIFFER (see $root/a$cpu.diff)"; status=1
  fi
done

if [[ $notportable == 1 ]]; then
  run notportable 2 "$py" --config portable=false
  hashes notportable > "$root/notportable.sha256"
  if diff "$root/a.sha256" "$root/notportable.sha256" > "$root/anotportable.diff"; then
    echo "portable=false: all $n tables byte-identical"
  else
    echo "portable=false: $(grep -c '^<' "$root/anotportable.diff") of $n tables differ" \
      "(expected where float32 rounding reaches a decision; compare the conclusions):"
    grep '^<' "$root/anotportable.diff" | awk '{print "  " $3}'
  fi
fi
echo "workdirs and logs: $root"
exit $status
