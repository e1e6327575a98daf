"""Build src/evalsci/audit/readers/option_counts.csv: tasks whose items have different numbers
of options, with the histogram of those numbers where the authors' released prompts give it,
or the known least and most options where only those are known.

`evalsci audit` uses it for results without per-item records (lm-eval without --log_samples,
EEE aggregates without samples): a histogram gives the exact baselines when n is the whole task;
otherwise the least and most options bound them (docs/notes/audit.md, "Options per item unknown").

    EVALSCI_MIRROR=/work/shared/released EVALSCI_TRUTHFULQA_MC_TASK=PATH/mc_task.json \
        python scripts/build_option_counts.py

Histograms: the Open LLM Leaderboard v2 prompts that PredictaBoard released
(kinds-of-intelligence-cfi/PredictaBoard, `train_and_evaluate_assessors/data/
open-llm-leaderboard-v2/<task>_prompts.csv`, the commit in the mirror's COMMIT file), options
counted by `evalsci.audit.choices.item_choices`, as the audit study counts them; and
truthfulqa_mc1's from the TruthfulQA authors' multiple-choice file (TRUTHFULQA below: which
file, why that version, and where a copy with that sha256 is published). Ranges: the rows of
RANGES below, each with its primary source.
"""

from __future__ import annotations

import csv
import hashlib
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


# lm-eval's truthfulqa_mc1 (tasks/truthfulqa/truthfulqa_mc1.yaml: doc_to_choice
# "{{mc1_targets.choices}}", validation split of the HF dataset truthful_qa, multiple_choice)
# scores every mc1 answer of each question. The HF loading script builds that split from
# sylinrl/TruthfulQA at commit 013686a data/mc_task.json, mc1_targets' keys in order; the
# authors keep that first release as data/v0/mc_task.json since their 10-10-2021 update (their
# README, "Updates"). The authors' repository could not be fetched here; the same file is
# vendored whole in SimarBhatiaSB7/TruthX (TRUTHFULQA_COPY). Checked against lm-eval's own
# output: the 28 documents of samples_truthfulqa_mc2_*.jsonl that
# haguirrezabalb/ll-hallucination-pipeline b1ab10b docs/qualitative_cases_*truthfulqa*.md
# lists (doc_id 0-66) have v0's question and mc2 answers at the same doc_id, in order; the
# current mc_task.json has them elsewhere and with other answers (e.g. doc 5: 8 vs 9).
TRUTHFULQA_SHA256 = "131e6f4156297bee09b38279e2fa847e4359c200504eca99ea3fab4b2d3a6144"
TRUTHFULQA_COPY = (
    "SimarBhatiaSB7/TruthX c59fd4bf117c6742d059ee6f975e4d72d4d171c3 TruthfulQA/data/v0/mc_task.json"
)


def truthfulqa_histogram(path: Path) -> tuple[dict[int, int], str]:
    """{options: questions} of TruthfulQA's v0 mc_task.json (each question's mc1_targets, one
    true answer), and the row's source. The file must be the one named, byte for byte."""
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != TRUTHFULQA_SHA256:
        raise SystemExit(f"{path}: sha256 {digest}, expected {TRUTHFULQA_SHA256}")
    items = json.loads(data)
    if any(
        sorted(q["mc1_targets"].values()) != [0] * (len(q["mc1_targets"]) - 1) + [1] for q in items
    ):
        raise SystemExit(f"{path}: an mc1_targets without exactly one true answer")
    hist = dict(sorted(Counter(len(q["mc1_targets"]) for q in items).items()))
    source = (
        f"TruthfulQA v0 data/mc_task.json (Lin et al., 2022; the file HF truthful_qa "
        f"multiple_choice is built from, sylinrl/TruthfulQA 013686a), {len(items)} questions' "
        f"mc1_targets counted; copy {TRUTHFULQA_COPY}, sha256 {TRUTHFULQA_SHA256}"
    )
    return hist, source


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
    rows = histograms(mirror)
    rows.append(
        ("truthfulqa_mc1", *truthfulqa_histogram(Path(os.environ["EVALSCI_TRUTHFULQA_MC_TASK"])))
    )
    for task, hist, source in rows:
        w.writerow(
            [task, min(hist), max(hist), json.dumps({str(a): b for a, b in hist.items()}), source]
        )
    for task, lo, hi, source in RANGES:
        w.writerow([task, lo, hi, "", source])
    OUT.write_text(buf.getvalue())
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
