"""lm-evaluation-harness output (`lm_eval ... --output_path DIR --log_samples`).

lm-eval 0.4 writes, per run, `DIR/<model>/results_<timestamp>.json` and one
`samples_<task>_<timestamp>.jsonl` per task beside it. A multiple-choice task sends one
loglikelihood request per choice, so each sample's `arguments` has one entry per choice:
that is the item's number of choices. Each sample also carries its own 0/1 metric values
(`acc`, `acc_norm`); their sum is the exact count of correct items, which must agree with
the results JSON's `<metric>,<filter>` value.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from ..records import AuditInputError, Result, labels_of

_TS = re.compile(r"^results_(?P<ts>.+)\.json$")


def _load_json(path: Path) -> dict:
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, json.JSONDecodeError) as e:
        raise AuditInputError(f"{path}: cannot read JSON ({e})") from None


def samples_file(results: Path, task: str) -> Path:
    """The samples JSONL that lm-eval wrote for `task` beside `results`."""
    m = _TS.match(results.name)
    if m is None:
        raise AuditInputError(
            f"{results}: expected lm-eval's name results_<timestamp>.json, to "
            "find its samples files"
        )
    path = results.with_name(f"samples_{task}_{m['ts']}.jsonl")
    if not path.is_file():
        raise AuditInputError(
            f"{results}: task {task!r}: samples file missing: {path} "
            "(run lm_eval with --log_samples)"
        )
    return path


def _metric_key(entry: dict, metric: str, results: Path, task: str) -> str:
    keys = sorted(k for k in entry if k.split(",")[0] == metric and "_stderr" not in k)
    if not keys:
        have = sorted({k.split(",")[0] for k in entry if "," in k and "_stderr" not in k})
        raise AuditInputError(
            f"{results}: task {task!r}: metric {metric!r} not found (metrics there: {have})"
        )
    if len(keys) > 1:
        raise AuditInputError(
            f"{results}: task {task!r}: metric {metric!r} has several "
            f"filters {keys}; the audit needs one"
        )
    return keys[0]


def read_samples(path: Path, metric: str, task: str) -> tuple[int, int, dict]:
    """(n, correct, labels) from one samples JSONL."""
    n = correct = 0
    choices = []
    try:
        fh = open(path, encoding="utf-8")
    except OSError as e:
        raise AuditInputError(f"{path}: cannot read ({e})") from None
    with fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as e:
                raise AuditInputError(f"{path}:{lineno}: not JSON ({e})") from None
            args = rec.get("arguments")
            if not isinstance(args, (dict, list)) or not args:
                raise AuditInputError(f"{path}:{lineno}: field 'arguments' missing or empty")
            if metric not in rec:
                raise AuditInputError(f"{path}:{lineno}: field {metric!r} missing (task {task!r})")
            v = rec[metric]
            if v not in (0, 1) or isinstance(v, str):
                raise AuditInputError(
                    f"{path}:{lineno}: field {metric!r} must be 0 or 1, got {v!r}"
                )
            n += 1
            correct += int(v)
            choices.append(len(args))
    if n == 0:
        raise AuditInputError(f"{path}: n = 0 (no samples)")
    return n, correct, labels_of(choices)


def read_results(path: str | Path, metric: str = "acc") -> tuple[list[Result], set[Path]]:
    """Results of every multiple-choice task of one lm-eval results JSON, and the samples
    files used. Group entries (aggregates of subtasks) are skipped."""
    path = Path(path)
    obj = _load_json(path)
    res, configs = obj.get("results"), obj.get("configs")
    if not isinstance(res, dict) or not isinstance(configs, dict):
        raise AuditInputError(f"{path}: fields 'results' and 'configs' must be objects")
    model = obj.get("model_name") or (obj.get("config") or {}).get("model_args") or "unknown"
    groups = set(obj.get("group_subtasks") or {}) - set(configs)
    out, used = [], set()
    for task, entry in sorted(res.items()):
        if task in groups or task not in configs:
            continue
        otype = configs[task].get("output_type")
        if otype != "multiple_choice":
            raise AuditInputError(
                f"{path}: task {task!r}: output_type {otype!r} has no random "
                "baseline (the audit needs output_type multiple_choice)"
            )
        key = _metric_key(entry, metric, path, task)
        acc = entry[key]
        if not isinstance(acc, (int, float)) or not 0 <= acc <= 1:
            raise AuditInputError(
                f"{path}: task {task!r}: field {key!r} = {acc!r} is not an accuracy in [0, 1]"
            )
        spath = samples_file(path, task)
        n, correct, labels = read_samples(spath, metric, task)
        if abs(correct / n - acc) > 1e-9:
            raise AuditInputError(
                f"{path}: task {task!r}: {key} = {acc!r} but its samples file "
                f"{spath.name} has {correct} of {n} correct"
            )
        out.append(
            Result(
                model=str(model),
                task=task,
                n=n,
                correct=correct,
                labels=labels,
                source=str(path),
                accuracy=float(acc),
            )
        )
        used.add(spath.resolve())
    if not out:
        raise AuditInputError(f"{path}: no task results in field 'results'")
    return out, used
