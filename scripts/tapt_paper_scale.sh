#!/usr/bin/env bash
# tapt's analysis at the paper's scale (preset paper: both model variants on all 16
# configurations, 500 meta-analysis slices, 2,000 PCA trials, the 50-subsample recovery
# design; no GPU), end to end in DIR, a clone of this repository, with the run's record:
#
#   EVALSCI_MIRROR=/path/to/released scripts/tapt_paper_scale.sh DIR [SCALE] [CORES]
#
# SCALE defaults to paper (another preset, e.g. demo, tries the wiring in minutes), CORES to 2.
# What it writes and its other settings (TARGETS, RUN_NOTE, RESUME): scripts/recorded_run.sh.
set -euo pipefail
dir=${1:?usage: scripts/tapt_paper_scale.sh DIR [SCALE] [CORES]}
exec "$(dirname "$0")/recorded_run.sh" tapt "$dir" "${2:-paper}" "${3:-2}"
