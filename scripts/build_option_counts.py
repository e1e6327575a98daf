"""Build src/evalsci/audit/readers/option_counts.csv: tasks whose items have different numbers
of options, with the histogram of those numbers where the authors' released prompts give it,
or the known least and most options where only those are known.

`evalsci audit` uses it for results without per-item records (lm-eval without --log_samples,
EEE aggregates without samples): a histogram gives the exact baselines when n is the whole task;
otherwise the least and most options bound them (docs/audit.md, "Options per item unknown").

    EVALSCI_MIRROR=/work/shared/released python scripts/build_option_counts.py

Histograms: the Open LLM Leaderboard v2 prompts that PredictaBoard released
(kinds-of-intelligence-cfi/PredictaBoard, `train_and_evaluate_assessors/data/
open-llm-leaderboard-v2/<task>_prompts.csv`, the commit in the mirror's COMMIT file), options
counted by `evalsci.audit.choices.item_choices`, as the audit study counts them. Ranges: the
rows of RANGES below, each with its primary source.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections import Counter
from pathlib import Path

from evalsci.audit.choices import item_choices
from evalsci.data.checked import read_csv

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "src" / "evalsci" / "audit" / "readers" / "option_counts.csv"
BUNDLE = "kinds-of-intelligence-cfi-PredictaBoard"
PROMPTS = "train_and_evaluate_assessors/data/open-llm-leaderboard-v2"

# (lm-eval task, least options, most options, source): where no released prompts give each
# item's count
ARC = (
    "ARC (Clark et al., 2018, arXiv:1803.05457): most questions have 4 answer choices and fewer "
    "than 1% have 3 or 5 (Yadav, Bethard and Surdeanu, 2019, arXiv:1911.07176, as quoted by "
    "Papers with Code's ARC dataset page); the counts of the test split are not known here"
)
RANGES = [
    ("arc_challenge", 3, 5, ARC),
    ("arc_easy", 3, 5, ARC),
    (
        "leaderboard_mmlu_pro",
        2,
        10,
        "MMLU-Pro (Wang et al., 2024, arXiv:2406.01574): up to ten options per question, fewer "
        "for some; a multiple-choice item has at least two",
    ),
]


def histograms(mirror: Path) -> list[tuple[str, dict, str]]:
    root = mirror / BUNDLE
    commit = (root / "COMMIT").read_text().split()[0]
    rows = []
    for f in sorted((root / PROMPTS).glob("*_prompts.csv")):
        stem = f.name.removesuffix("_prompts.csv")  # bbh_date_understanding, musr_team_allocation
        bench = {"bbh": "BBH", "musr": "MuSR"}.get(stem.split("_", 1)[0])
        if bench is None:
            continue
        sub = stem.split("_", 1)[1]
        prompts = read_csv(f)
        k = item_choices(bench, sub, prompts["prompt"].astype(str).tolist(), list(prompts["id"]))
        hist = dict(sorted(Counter(k).items()))
        source = (
            f"PredictaBoard {commit[:7]} {PROMPTS}/{f.name} ({len(k)} prompts), options counted "
            "by evalsci.audit.choices.item_choices"
        )
        rows.append((f"leaderboard_{stem}", hist, source))
    return rows


def main() -> None:
    mirror = Path(os.environ["EVALSCI_MIRROR"])
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    buf.write("# built by scripts/build_option_counts.py; histogram: {options: items}\n")
    w.writerow(["task", "min", "max", "histogram", "source"])
    for task, hist, source in histograms(mirror):
        w.writerow(
            [task, min(hist), max(hist), json.dumps({str(a): b for a, b in hist.items()}), source]
        )
    for task, lo, hi, source in RANGES:
        w.writerow([task, lo, hi, "", source])
    OUT.write_text(buf.getvalue())
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
