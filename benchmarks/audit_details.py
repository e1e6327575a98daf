"""Time `evalsci audit` on Open LLM Leaderboard details dumps of growing size.

A leaderboard details dump is lm-eval 0.4 output with `--log_samples`: one
`results_<ts>.json` and one `samples_<task>_<ts>.jsonl` per task, one JSON line per item,
each holding every option's full few-shot prompt (a few KB to ~35 KB a line). The dumps
here are built from REAL leaderboard sample lines: the one line per task of a published
`--tasks leaderboard` run (tests/fixtures/audit/lm_eval/published/leaderboard_details/, five
multiple-choice tasks: BBH navigate (2 options) and reasoning_about_colored_objects (18),
GPQA main (4), MuSR team_allocation (3), MMLU-Pro (9)). Each task's line is repeated
LINES / 5 times with `doc_id` rewritten (so items are distinct) and its 0/1 leaderboard
metric drawn with a fixed seed; the results JSON (the published one, cut to those five
tasks, `limit` removed) gets each task's accuracy and `n-samples` computed from the samples
written, so the reader's cross-check (accuracy = correct / n) holds.

The audit runs in a child process (`python -m evalsci.cli audit DIR --format csv`) under
`/usr/bin/time -v` (`audit_csv.run_audit`); time and memory per sample line show whether
they grow linearly with the dump:

    .venv/bin/python benchmarks/audit_details.py 10000 30000 100000 300000
    .venv/bin/python benchmarks/audit_details.py 10000 --keep /tmp/details_10k   # keep it
    .venv/bin/python benchmarks/audit_details.py --smoke      # one 50-line dump (CI)

Disk: ~17 KB a line (100,000 lines: ~1.7 GB), in a temporary directory.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path

import numpy as np
from audit_csv import run_audit  # benchmarks/ is the script's directory, so on sys.path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "tests/fixtures/audit/lm_eval/published/leaderboard_details"
TS = "2025-07-11T11-37-49.552951"
#: task -> its leaderboard metric (readers/leaderboard.py)
TASKS = {
    "leaderboard_bbh_navigate": "acc_norm",
    "leaderboard_bbh_reasoning_about_colored_objects": "acc_norm",
    "leaderboard_gpqa_main": "acc_norm",
    "leaderboard_musr_team_allocation": "acc_norm",
    "leaderboard_mmlu_pro": "acc",
}
ID, VALUE = "@@doc_id@@", "@@value@@"


def line_template(task: str, metric: str) -> tuple[str, str, str]:
    """The task's real sample line split around its doc_id and metric value, so that
    millions of lines are written without re-serialising the record."""
    (line,) = (SOURCE / f"samples_{task}_{TS}.jsonl").read_text("utf-8").splitlines()
    rec = json.loads(line)
    rec["doc_id"], rec[metric] = ID, VALUE
    text = json.dumps(rec, ensure_ascii=False)  # as lm-eval writes its samples
    head, rest = text.split(json.dumps(ID), 1)
    mid, tail = rest.split(json.dumps(VALUE), 1)
    return head, mid, tail


def write_dump(out: Path, lines: int, seed: int = 0) -> None:
    """`lines` sample lines over the five tasks (the rest in the last) and their results."""
    rng = np.random.default_rng(seed)
    obj = json.loads((SOURCE / f"results_{TS}.json").read_text("utf-8"))
    for key in ("results", "configs", "n-samples", "versions", "n-shot", "higher_is_better"):
        obj[key] = {t: v for t, v in obj.get(key, {}).items() if t in TASKS}
    obj.pop("group_subtasks", None)
    obj["config"]["limit"] = None
    per = lines // len(TASKS)
    for i, (task, metric) in enumerate(TASKS.items()):
        n = per if i < len(TASKS) - 1 else lines - per * (len(TASKS) - 1)
        # each task its own accuracy, from chance-like to well above it
        ok = rng.random(n) < 0.3 + 0.1 * i
        head, mid, tail = line_template(task, metric)
        with open(out / f"samples_{task}_{TS}.jsonl", "w", encoding="utf-8") as fh:
            step = 10_000
            for s in range(0, n, step):
                fh.writelines(
                    f"{head}{d}{mid}{1.0 if ok[d] else 0.0}{tail}\n"
                    for d in range(s, min(n, s + step))
                )
        acc = int(ok.sum()) / n
        obj["results"][task] = {
            "alias": obj["results"][task].get("alias", task),
            f"{metric},none": acc,
            # lm-eval's mean_stderr; "N/A" for one item, as the published run has it
            f"{metric}_stderr,none": float(np.sqrt(acc * (1 - acc) / (n - 1))) if n > 1 else "N/A",
        }
        obj["n-samples"][task] = {"original": n, "effective": n}
    (out / f"results_{TS}.json").write_text(json.dumps(obj, indent=2, ensure_ascii=False))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("lines", type=int, nargs="*", help="dump sizes to time (sample lines)")
    ap.add_argument("--keep", type=Path, help="write the (last) dump into this directory")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--smoke", action="store_true", help="one 50-line dump: seconds (CI)")
    args = ap.parse_args()
    if args.smoke:
        args.lines = [50]
    elif not args.lines:
        ap.error("give at least one dump size (LINES), or --smoke")
    print(f"{len(TASKS)} tasks, real leaderboard lines from {SOURCE.name}; cpus: {os.cpu_count()}")
    fixed = None  # the audit's cost on a 5-line dump: start-up, imports, the results JSON
    with tempfile.TemporaryDirectory() as tmp:
        for lines in [len(TASKS), *args.lines]:
            out = args.keep if args.keep else Path(tmp) / f"details_{lines}"
            out.mkdir(parents=True, exist_ok=True)
            write_dump(out, lines, args.seed)
            mb = sum(f.stat().st_size for f in out.iterdir()) / 1e6
            r = run_audit(out)
            fixed = fixed or r
            # per line beyond the fixed cost: flat when the audit is linear in the dump
            extra = max(1, lines - len(TASKS))
            per = {k: (r[k] - fixed[k]) / extra for k in r}
            print(
                f"lines={lines:>9,d} dump={mb:8.1f} MB  wall={r['wall_s']:7.2f} s  "
                f"cpu={r['cpu_s']:7.2f} s  peak_rss={r['rss_mb']:7.1f} MB  "
                f"cpu/line={1e6 * per['cpu_s']:6.1f} us  wall/line={1e6 * per['wall_s']:6.1f} us  "
                f"rss/line={1e6 * per['rss_mb']:7.1f} B",
                flush=True,
            )
            if not args.keep:
                for f in out.iterdir():
                    f.unlink()


if __name__ == "__main__":
    main()
