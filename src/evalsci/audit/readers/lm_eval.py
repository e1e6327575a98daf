"""lm-evaluation-harness 0.4 results (`lm_eval ... --output_path DIR [--log_samples]`).

lm-eval 0.4.3 and later write, per run, `DIR/<model>/results_<timestamp>.json` (metrics keyed
`<metric>,<filter>`, plus `configs`, `n-samples`, `group_subtasks`, ...) and, with
`--log_samples`, one `samples_<task>_<timestamp>.jsonl` per task beside it, one sample per
line. lm-eval 0.4.0 to 0.4.2 wrote `DIR/results.json` (or the `.json` path given) and, per task,
`<model_args>_<task>.jsonl` beside it, `model_args` with `/` and `=` replaced by `__`
(`pretrained__gpt2_arc_challenge.jsonl`), holding ONE indented JSON array of the samples (their
`__main__.py`, tags v0.4.0-v0.4.2). Both are found from the results file (`samples_path`).

Each task is read or skipped with its reason, never the whole file:
- groups (aggregates of subtasks) are skipped: each subtask is read on its own;
- a task whose `output_type` is not `multiple_choice` (generated text: gsm8k, MATH, IFEval,
  ...; perplexities) has no options to guess among, so no random baseline: skipped;
- a multiple-choice task is read from its samples when they exist: each sample's `arguments`
  holds one loglikelihood request per option (the item's number of options), and its 0/1
  metric value counts it correct or not; their sum must equal the results' accuracy x n;
- without samples (no `--log_samples`, or a Git LFS pointer in their place), n is the task's
  `n-samples` `effective` count (else, where the file has none, recovered from the stderr),
  the number of correct items is accuracy x n (`derived`), and the number of options comes
  from the task's own `doc_to_choice` in `configs` when that fixes it, else from the
  known-task table (`lm_eval_tasks`), else the task is skipped with the reason.
A `--limit` run (config `limit`, or `effective` below `original`) is flagged `limited`.

Which metric: `metric` if given, else the Open LLM Leaderboard's own for its tasks
(`leaderboard.default_metric`), else `acc`.
"""

from __future__ import annotations

import math
import re
from dataclasses import replace
from pathlib import Path

from ..records import EXACT, AuditInputError, Result, Skipped, labels_of, run_settings
from . import leaderboard
from .jsonfile import is_lfs_pointer, iter_jsonl, load_json
from .lm_eval_tasks import lookup, options_of
from .option_counts import options_for

_TS = re.compile(r"^results_(?P<ts>.+)\.json$")
#: lm-eval 0.4.0-0.4.2's samples file name: re.sub("/|=", "__", model_args) + f"_{task}.jsonl"
_OLD_NAME = re.compile(r"/|=")


def sniff(obj: object) -> bool:
    """An lm-eval 0.4 results object: `results` entries keyed `<metric>,<filter>`."""
    if not isinstance(obj, dict) or not isinstance(obj.get("results"), dict):
        return False
    if "configs" in obj or "n-samples" in obj or "lm_eval_version" in obj:
        return True
    return any(isinstance(e, dict) and any("," in k for k in e) for e in obj["results"].values())


def _object(value: object, path: Path, key: str) -> dict:
    if not isinstance(value, dict):
        raise AuditInputError(
            f"{path}: key {key!r}: expected a JSON object, got {type(value).__name__}"
        )
    return value


def samples_path(results: Path, task: str, model_args: object = None) -> Path | None:
    """The samples file lm-eval wrote for `task` beside `results`, or None: 0.4.3 and later
    `samples_<task>_<timestamp>.jsonl` (the Open LLM Leaderboard's older details use `.json`
    for the same JSON Lines); 0.4.0-0.4.2 `<model_args, / and = as __>_<task>.jsonl`."""
    m = _TS.match(results.name)
    if m is not None:
        for ext in (".jsonl", ".json"):
            p = results.with_name(f"samples_{task}_{m['ts']}{ext}")
            if p.is_file():
                return p
    if isinstance(model_args, str):
        p = results.with_name(f"{_OLD_NAME.sub('__', model_args)}_{task}.jsonl")
        if p.is_file():
            return p
    return None


def is_sample_array(head: str) -> bool:
    """lm-eval 0.4.0-0.4.2's samples file: one JSON array of objects opening with `doc_id`."""
    return re.match(r'\[\s*\{\s*"doc_id"\s*:', head) is not None


def _samples_records(path: Path):
    """(line or index, record) of a samples file: JSON Lines, or 0.4.0-0.4.2's one array
    (whose records are named by their index: `path: [i]`)."""
    with open(path, "rb") as fh:
        head = fh.read(64).decode("utf-8", "replace")
    if not is_sample_array(head.lstrip("\ufeff")):
        return iter_jsonl(path), lambda i: f"{path}:{i}" if i is not None else str(path)
    arr = load_json(path)
    if not isinstance(arr, list):  # pragma: no cover (is_sample_array saw a '[')
        raise AuditInputError(f"{path}: expected a JSON array of samples")
    return enumerate(arr), lambda i: f"{path}: [{i}]" if i is not None else str(path)


def metric_key(entry: dict, metric: str) -> tuple[str | None, str | None]:
    """(the entry's key for `metric`, None) or (None, why not)."""
    keys = sorted(
        k for k in entry if k.split(",")[0] == metric and not k.split(",")[0].endswith("_stderr")
    )
    if not keys:
        have = sorted(
            {k.split(",")[0] for k in entry if "," in k and "_stderr" not in k.split(",")[0]}
        )
        return None, f"metric {metric!r} not in the results (metrics there: {have})"
    if len(keys) > 1:
        return None, f"metric {metric!r} has several filters {keys}; give one with --metric"
    return keys[0], None


def n_from_stderr(p: float, se: object) -> int | None:
    """n recovered from a mean's standard error as lm-eval computes it (`mean_stderr`: the
    sample standard deviation over sqrt(n), so se^2 = p(1-p)/(n-1) for 0/1 scores), or None
    when that does not give one whole n that reproduces both p and se."""
    if isinstance(se, bool) or not isinstance(se, (int, float)) or not se > 0 or not 0 < p < 1:
        return None
    n = round(p * (1 - p) / se**2 + 1)
    if n < 2:
        return None
    k = round(p * n)
    q = k / n
    if abs(q - p) > EXACT or abs(math.sqrt(q * (1 - q) / (n - 1)) - se) > 1e-9 * se:
        return None
    return n


def count_samples(records, where, metric: str):
    """(n, correct, per-item options, item ids, outcomes) from lm-eval sample records:
    `records` yields (line or index, record); `where(i)` names one for an error."""
    choices, items, outcomes = [], [], []
    for i, rec in records:
        if not isinstance(rec, dict):
            raise AuditInputError(f"{where(i)}: expected a JSON object, got {type(rec).__name__}")
        args = rec.get("arguments")
        if not isinstance(args, (dict, list)) or not args:
            raise AuditInputError(f"{where(i)}: key 'arguments' missing or empty")
        if metric not in rec:
            raise AuditInputError(f"{where(i)}: key {metric!r} missing")
        v = rec[metric]
        if isinstance(v, bool) or v not in (0, 1):
            raise AuditInputError(f"{where(i)}: key {metric!r} must be 0 or 1, got {v!r}")
        choices.append(len(args))
        items.append(str(rec.get("doc_id", i)))
        outcomes.append(int(v))
    if not items:
        raise AuditInputError(f"{where(None)}: no samples (n = 0)")
    return len(items), sum(outcomes), choices, tuple(items), tuple(outcomes)


def read_samples(path: Path, metric: str):
    """`count_samples` of one samples file (JSON Lines, or 0.4.0-0.4.2's JSON array)."""
    records, where = _samples_records(path)
    return count_samples(records, where, metric)


def read(path: str | Path, metric: str | None = None) -> tuple[list[Result], list[Skipped]]:
    got, skipped, _ = read_results(path, metric)
    return got, skipped


def read_results(
    path: str | Path, metric: str | None = None
) -> tuple[list[Result], list[Skipped], set[Path]]:
    """Every task of one lm-eval 0.4 results JSON: the results, the tasks skipped with their
    reasons, and the samples files used (or noted as LFS pointers)."""
    path = Path(path)
    obj = _object(load_json(path), path, "(top level)")
    res = _object(obj.get("results"), path, "results")
    configs = _object(obj.get("configs", {}), path, "configs")
    nsamples = _object(obj.get("n-samples", {}), path, "n-samples")
    run_cfg = _object(obj.get("config") or {}, path, "config")
    groups = set(_object(obj.get("group_subtasks") or {}, path, "group_subtasks"))
    groups |= set(_object(obj.get("groups") or {}, path, "groups"))
    model = str(obj.get("model_name") or run_cfg.get("model_args") or "unknown")
    # lm-eval's Python API (`simple_evaluate(..., log_samples=True)`) returns the samples in
    # the results object itself, and users often save that object as it is
    inline = _object(obj.get("samples") or {}, path, "samples")
    out: list[Result] = []
    skipped: list[Skipped] = []
    used: set[Path] = set()
    for task, entry in sorted(res.items()):
        entry = _object(entry, path, f"results.{task}")
        cfg = _object(configs[task], path, f"configs.{task}") if task in configs else None
        if task in groups and cfg is None:
            subs = obj.get("group_subtasks", {}).get(task)
            why = "a group: the aggregate of its subtasks" + (f" {subs}" if subs else "")
            why += ", each read on its own"
            skipped.append(Skipped(str(path), task, why, no_baseline=True))
            continue
        got = _read_task(
            path, task, entry, cfg, nsamples.get(task), run_cfg, model, metric, inline.get(task)
        )
        if isinstance(got, Skipped):
            skipped.append(got)
            spath = samples_path(path, task, run_cfg.get("model_args"))
            if spath is not None:  # passed over with its task, not on its own
                used.add(spath.resolve())
            continue
        result, spath = got
        shots = _object(obj.get("n-shot") or {}, path, "n-shot").get(task)
        version = obj.get("lm_eval_version") or obj.get("git_hash")
        settings = run_settings(
            shots, run_cfg.get("limit"), run_cfg.get("model_args"), version and f"lm-eval {version}"
        )
        date = obj.get("date")  # lm-eval >= 0.4.2: time.time() when the run started
        date = (
            float(date) if isinstance(date, (int, float)) and not isinstance(date, bool) else None
        )
        out.append(replace(result, settings=settings, date=date))
        if spath is not None:
            used.add(spath.resolve())
    return out, skipped, used


def _counts(path: Path, task: str, ns: object) -> tuple[int | None, int | None]:
    """(effective, original) of a task's `n-samples` entry."""
    if ns is None:
        return None, None
    ns = _object(ns, path, f"n-samples.{task}")
    vals = []
    for k in ("effective", "original"):
        v = ns.get(k)
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 0):
            raise AuditInputError(
                f"{path}: key 'n-samples.{task}.{k}': expected a count, got {v!r}"
            )
        vals.append(v)
    return vals[0], vals[1]


def _not_multiple_choice(task: str, cfg: dict | None, known) -> str | None:
    """Why `task` has no random baseline (its output type), or None for multiple choice."""
    otype = cfg.get("output_type") if cfg is not None else None
    src = "its config"
    if otype is None and known is not None:
        otype, src = known.output_type, known.provenance
    if otype is None:
        return (
            "output type unknown: no `configs` entry and not in the known-task table "
            "(lm-eval's task definitions)"
        )
    if otype != "multiple_choice":
        return (
            f"output_type {otype} ({src}): scored on generated text or likelihoods, "
            "no options to guess among, so no random baseline"
        )
    return None


def _read_task(path, task, entry, cfg, ns, run_cfg, model, metric, inline=None):
    """(Result, samples path or None) or Skipped."""
    known = lookup(task)
    why = _not_multiple_choice(task, cfg, known)
    if why is not None:
        return Skipped(str(path), task, why, no_baseline=True)
    m = metric or leaderboard.default_metric(task) or "acc"
    key, why = metric_key(entry, m)
    if why is not None:
        return Skipped(str(path), task, why)
    acc = entry[key]
    if isinstance(acc, bool) or not isinstance(acc, (int, float)) or not 0 <= acc <= 1:
        raise AuditInputError(
            f"{path}: key 'results.{task}.{key}': expected an accuracy in [0, 1], got {acc!r}"
        )
    effective, original = _counts(path, task, ns)
    limited = run_cfg.get("limit") is not None or (
        effective is not None and original is not None and effective < original
    )
    notes: list[str] = []
    if limited:
        show = lambda v: "?" if v is None else v  # noqa: E731
        notes.append(f"--limit run: {show(effective)} of {show(original)} items")
    common = dict(
        model=model,
        task=task,
        source=str(path),
        accuracy=float(acc),
        metric=m,
        limited=limited,
        run=str(path),
    )
    if inline is not None:
        if not isinstance(inline, list):
            raise AuditInputError(f"{path}: key 'samples.{task}': expected a list of samples")
        where = lambda i: f"{path}: key 'samples.{task}'" + ("" if i is None else f"[{i}]")  # noqa: E731
        counts = count_samples(enumerate(inline), where, common["metric"])
        return _from_samples(
            path, key, effective, counts, "samples in the results", notes, common
        ), None
    spath = samples_path(path, task, run_cfg.get("model_args"))
    if spath is not None and not is_lfs_pointer(spath):
        counts = read_samples(spath, common["metric"])
        return _from_samples(path, key, effective, counts, spath.name, notes, common), spath
    if spath is not None:
        notes.append(f"samples file {spath.name} is a Git LFS pointer: counts from the results")
    got = _from_results(path, key, entry, effective, cfg, known, notes, common)
    return got if isinstance(got, Skipped) else (got, spath)


def _from_samples(path, key, effective, counts, what, notes, common) -> Result:
    """Counted item by item; the samples (`what`) must agree with the results JSON."""
    task, acc = common["task"], common["accuracy"]
    n, correct, choices, items, outcomes = counts
    if abs(correct / n - acc) > EXACT:
        raise AuditInputError(
            f"{path}: key 'results.{task}.{key}' = {acc!r} but its samples "
            f"({what}) have {correct} of {n} correct"
        )
    if effective is not None and effective != n:
        raise AuditInputError(
            f"{path}: key 'n-samples.{task}.effective' = {effective} but its samples "
            f"({what}) have {n} items"
        )
    return Result(
        n=n,
        correct=correct,
        labels=labels_of(choices),
        items=items,
        outcomes=outcomes,
        choices_source="samples",
        item_options=tuple(choices),
        notes=tuple(notes),
        **common,
    )


def _from_results(path, key, entry, effective, cfg, known, notes, common) -> Result | Skipped:
    """No samples: n and the options from the results, correct derived from the accuracy."""
    task, acc = common["task"], common["accuracy"]

    def skip(why: str) -> Skipped:
        return Skipped(str(path), task, why)

    n = effective
    if n is None:
        n = n_from_stderr(acc, entry.get(f"{common['metric']}_stderr,{key.split(',', 1)[1]}"))
        if n is None:
            return skip(
                "n unknown: no samples, no n-samples entry, and no standard error that "
                "gives a whole n"
            )
        notes.append("n recovered from the standard error (lm-eval: se^2 = p(1-p)/(n-1))")
    if n == 0:
        return skip("n = 0 (no items evaluated)")
    k, basis = options_of(cfg.get("doc_to_choice")) if cfg is not None else (None, "none")
    if k is not None:
        source = f"doc_to_choice ({basis} in its config)"
    elif known is not None and known.options is not None:
        k, source = known.options, known.provenance
    elif (counts := options_for(task, n, common.get("limited", False))) is not None:
        correct = round(acc * n)
        if abs(acc * n - correct) > 1e-6:
            return skip(f"{key} = {acc!r} is no whole number of n = {n} items")
        notes.extend(counts.pop("notes"))
        return Result(n=n, correct=correct, derived=True, notes=tuple(notes), **counts, **common)
    else:
        shown = repr(cfg.get("doc_to_choice"))[:60] if cfg is not None else "not in the file"
        return Skipped(
            str(path),
            task,
            f"number of options unknown without samples (doc_to_choice {shown}: per item); "
            "run lm_eval with --log_samples",
            no_baseline=True,
        )
    correct = round(acc * n)
    if abs(acc * n - correct) > 1e-6:
        return skip(f"{key} = {acc!r} is no whole number of n = {n} items")
    return Result(
        n=n,
        correct=correct,
        labels={int(k): n},
        derived=True,
        choices_source=source,
        notes=tuple(notes),
        **common,
    )
