#!/usr/bin/env bash
# Reproducibility check at the default scale (issue 17; docs/reproducibility.md). Not run in CI:
# it builds `assessors_table3` and `mc_icl_figure1` twice, in two fresh working directories
# with different --cores, and compares the sha256 of every table (results/<study>/**/tables/*).
# With --other-cpu it builds them a third time with this machine's baseline (SSE4.2-class)
# kernels instead of AVX2/AVX-512 (evalsci.determinism.OTHER_CPU_ENV), imitating another CPU,
# and lists which tables differ from the first run: there bit-identity is not promised, the
# conclusions are (the tests compare them on the tiny configurations).
#
#   scripts/check_reproducible.sh [--other-cpu] [WORKROOT]     (WORKROOT default: a new tmp dir)
#
# Offline, set EVALSCI_MIRROR as for any run; PYTHON names the interpreter (.venv/bin/python).
#
# Cost: about two default runs of both targets (see docs/reproducibility.md for the measured
# CPU time of mc_icl_figure1). Exit status 1 if the two same-machine runs differ.
set -euo pipefail
cd "$(dirname "$0")/.."
other=0
if [[ "${1:-}" == "--other-cpu" ]]; then other=1; shift; fi
root="${1:-$(mktemp -d -t evalsci-repro.XXXXXX)}"
py="${PYTHON:-.venv/bin/python}"
# TARGETS / STUDIES override what is built and compared (e.g. TARGETS=tapt_table1 STUDIES=tapt).
read -r -a targets <<< "${TARGETS:-assessors_table3 mc_icl_figure1}"
read -r -a studies <<< "${STUDIES:-assessors mc_icl}"
mkdir -p "$root"

run() {  # run NAME CORES [ENV...]: build the targets in $root/NAME
  local name=$1 cores=$2; shift 2
  echo "== $name: --cores $cores $*" >&2
  rm -rf "${root:?}/$name"
  env "$@" "$py" -m snakemake -s Snakefile -d "$root/$name" --cores "$cores" "${targets[@]}" \
    > "$root/$name.log" 2>&1 || { echo "snakemake failed, see $root/$name.log" >&2; exit 2; }
}

hashes() {  # hashes NAME: "path sha256" of every table of the studies
  local s
  for s in "${studies[@]}"; do
    (cd "$root/$1/results" && find "$s" -path '*/tables/*' -type f -print0 | sort -z \
      | xargs -0 sha256sum)
  done
}

run a 2
run b 1
hashes a > "$root/a.sha256"
hashes b > "$root/b.sha256"
n=$(wc -l < "$root/a.sha256")
if diff "$root/a.sha256" "$root/b.sha256" > "$root/ab.diff"; then
  echo "same machine, fresh workdirs, --cores 2 vs 1: all $n tables byte-identical"
  status=0
else
  echo "same machine: tables DIFFER (see $root/ab.diff)"; status=1
fi

if [[ $other == 1 ]]; then
  # shellcheck disable=SC2046
  run other 2 $("$py" -c "from evalsci.determinism import OTHER_CPU_ENV as e
print(' '.join(f'{k}={v}' for k, v in e.items()))")
  hashes other > "$root/other.sha256"
  if diff "$root/a.sha256" "$root/other.sha256" > "$root/aother.diff"; then
    echo "another CPU's kernels: all $n tables byte-identical"
  else
    echo "another CPU's kernels: $(grep -c '^<' "$root/aother.diff") of $n tables differ" \
      "(expected where float32 rounding reaches a decision; compare the conclusions):"
    grep '^<' "$root/aother.diff" | awk '{print "  " $3}'
  fi
fi
echo "workdirs and logs: $root"
exit $status
