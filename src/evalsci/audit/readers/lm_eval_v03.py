"""lm-evaluation-harness 0.3 results: `{"results": {task: {metric: value, metric_stderr:
value}}, "versions": {...}, "config": {...}}` (e.g. EleutherAI/pythia's `evals/`).

0.3 wrote neither samples, n nor options. Per task:
- the number of options comes from the known-task table (`lm_eval_tasks`: lm-eval 0.4's
  definition of the same task; 0.3 names mapped to 0.4's); where it varies per item, from the
  option-count table (`option_counts`: a histogram, or exact bounds such as ARC's 3 to 5),
  else the task is skipped;
- n is recovered from the metric's standard error, which 0.3 computes as 0.4 does (the sample
  standard deviation over sqrt(n): se^2 = p(1-p)/(n-1) for 0/1 scores); the n kept must
  reproduce both the accuracy and the stderr, else the task is skipped with the reason
  (p = 0 or 1 has se = 0 and no n);
- the number correct is accuracy x n (`derived`).
Tasks whose definition is not multiple choice (perplexities, generated text, bias scores
such as crows_pairs) are skipped with the reason.
"""

from __future__ import annotations

from pathlib import Path

from ..records import AuditInputError, Result, Skipped, from_accuracy
from . import option_counts
from .jsonfile import load_json
from .lm_eval import n_from_stderr
from .lm_eval_tasks import lookup


def sniff(obj: object) -> bool:
    """`results` of per-task metric objects with plain metric names, and `versions`; not a
    lighteval file (its `config_general` and `suite|task|shots` names)."""
    if not isinstance(obj, dict) or "config_general" in obj:
        return False
    res = obj.get("results")
    if not isinstance(res, dict) or not isinstance(obj.get("versions"), dict) or not res:
        return False
    return all(
        isinstance(e, dict) and "|" not in t and not any("," in k for k in e)
        for t, e in res.items()
    )


def read(path: str | Path, metric: str | None = None) -> tuple[list[Result], list[Skipped]]:
    path = Path(path)
    obj = load_json(path)
    if not isinstance(obj, dict) or not isinstance(obj.get("results"), dict):
        raise AuditInputError(f"{path}: key 'results': expected a JSON object")
    cfg = obj.get("config") or {}
    if not isinstance(cfg, dict):
        raise AuditInputError(f"{path}: key 'config': expected a JSON object")
    model = str(cfg.get("model_args") or cfg.get("model") or "unknown")
    limit = cfg.get("limit")
    m = metric or "acc"
    out: list[Result] = []
    skipped: list[Skipped] = []
    for task, entry in sorted(obj["results"].items()):
        if not isinstance(entry, dict):
            raise AuditInputError(f"{path}: key 'results.{task}': expected a JSON object")

        def skip(why: str, task=task, no_baseline: bool = True) -> None:
            skipped.append(Skipped(str(path), task, why, no_baseline))

        known = lookup(task)
        why = _unreadable(known, entry, m)
        if why is not None:
            skip(why[0], task, why[1])
            continue
        acc = entry[m]
        if isinstance(acc, bool) or not isinstance(acc, (int, float)) or not 0 <= acc <= 1:
            raise AuditInputError(
                f"{path}: key 'results.{task}.{m}': expected an accuracy in [0, 1], got {acc!r}"
            )
        if known.options is None and task not in option_counts.table():
            skip(
                f"number of options per item not fixed by the task definition "
                f"({known.provenance}, doc_to_choice is a {known.basis}); 0.3 wrote no samples"
            )
            continue
        n = n_from_stderr(acc, entry.get(f"{m}_stderr"))
        if n is None:
            skip(
                no_baseline=False,
                why=f"n unknown: 0.3 states none, and {m}_stderr = {entry.get(f'{m}_stderr')!r} "
                f"with {m} = {acc!r} gives no whole n",
            )
            continue
        stderr_note = "n recovered from the standard error (lm-eval: se^2 = p(1-p)/(n-1))"
        if known.options is None:  # options per item vary: the option-count table's bounds
            got = _varying(path, model, task, m, acc, n, limit is not None, stderr_note)
            (skipped if isinstance(got, Skipped) else out).append(got)
            continue
        out.append(
            from_accuracy(
                acc,
                n,
                known.options,
                model=model,
                task=task,
                source=str(path),
                metric=m,
                limited=limit is not None,
                notes=(stderr_note,),
                run=str(path),
                choices_source=known.provenance,
            )
        )
    return out, skipped


def _unreadable(known, entry: dict, metric: str) -> tuple[str, bool] | None:
    """(why, no_baseline) for a task that cannot be read at all, or None."""
    if known is None:
        return "not in the known-task table (lm-eval's task definitions): options unknown", True
    if known.output_type != "multiple_choice":
        why = (
            f"output_type {known.output_type} ({known.provenance}): no options to guess "
            "among, so no random baseline"
        )
        return why, True
    if metric not in entry:
        return f"metric {metric!r} not in the results (metrics there: {sorted(entry)})", False
    return None


def _varying(path, model, task, metric, acc, n, limited, note) -> Result | Skipped:
    """A task whose items have different numbers of options, read with the option-count
    table's histogram or bounds (`option_counts.options_for`), or why not."""
    counts = option_counts.options_for(task, n, limited)
    correct = round(acc * n)
    if abs(acc * n - correct) > 1e-6:
        why = f"{metric} = {acc!r} is no whole number of n = {n} items"
        return Skipped(str(path), task, why, False)
    return Result(
        model=model,
        task=task,
        n=n,
        correct=correct,
        source=str(path),
        accuracy=acc,
        metric=metric,
        derived=True,
        limited=limited,
        notes=(note, *counts.pop("notes")),
        run=str(path),
        **counts,
    )
