"""HELM run directories (`helm-run ... -o benchmark_output`: `runs/<suite>/<run name>/`).

Read without HELM. A run directory holds `run_spec.json` (the adapter: `method`, `model`,
`num_train_trials`, `max_eval_instances`), `stats.json` (the run's aggregate statistics),
`per_instance_stats.json` (one entry per instance and train trial, with its `exact_match`) and,
when written, `scenario_state.json` (each request's instance with its references).

Multiple-choice runs are those whose adapter method is `multiple_choice_joint` (options shown
as letters, one generated letter) or `multiple_choice_separate_*` (one scored request per
option); each instance's number of options is its number of references (`scenario_state.json`,
else the `num_references` statistic). Other methods (generation, language modelling, ranking)
are skipped, and so is a separate-method run where options tied (HELM scores a tie as the
share of correct options among the tied ones, not 0/1).

Train trials: HELM runs each instance once per train trial (a different sample of in-context
examples) and reports the *mean* over trials (`stats.json` exact_match: count = trials). That
is not a best-of, so the audit counts every instance x trial outcome (n = instances x trials;
a random guesser answers each trial independently) and leaves t to the judge; the best trial
(`stats.json` max) is noted, since choosing it would be a best-of-trials.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ..records import EXACT, AuditInputError, Result, Skipped, labels_of, run_settings
from .fields import field
from .jsonfile import load_json

RUN_SPEC = "run_spec.json"
MC_METHODS = ("multiple_choice_joint", "multiple_choice_separate_")
METRIC = "exact_match"
TEST_LEVEL = 0.05  # a split where even all correct is not below this is marked too small


def sniff(head: str) -> bool:
    """A HELM `run_spec.json`: an object with the scenario and adapter specs."""
    text = head.lstrip()
    return text.startswith("{") and '"scenario_spec"' in text and '"adapter_spec"' in text


def run_files(run_spec: Path) -> set[Path]:
    """The files of the run directory that `read` accounts for (not listed as skipped)."""
    return {p.resolve() for p in run_spec.parent.glob("*.json")}


def task_name(run_name: str) -> str:
    """The run's name without its model arguments, so that runs of two models on one
    scenario share a task: "mmlu:subject=anatomy,model=openai_gpt2" -> "mmlu:subject=anatomy"."""
    scenario, _, args = run_name.partition(":")
    kept = [
        a for a in args.split(",") if a and a.split("=")[0] not in ("model", "model_deployment")
    ]
    return f"{scenario}:{','.join(kept)}" if kept else scenario


def _is_mc(method: str) -> bool:
    return method == MC_METHODS[0] or method.startswith(MC_METHODS[1])


def _stat(stats: list, name: str, split: str | None, where: str) -> dict | None:
    """The unperturbed statistic `name` (on `split` when given) of a HELM stats list."""
    for k, s in enumerate(stats):
        sname = field(s, "name", dict, f"{where}[{k}]")
        if not isinstance(s.get("mean", 0), (int, float)):
            raise AuditInputError(f"{where}[{k}]: key 'mean' must be a number")
        if sname.get("name") == name and sname.get("perturbation") is None:
            if split is None or sname.get("split") == split:
                return s
    return None


def _trial(entry: dict, where: str) -> int:
    """The entry's train trial (0 when absent)."""
    trial = entry.get("train_trial_index", 0)
    if not isinstance(trial, int) or isinstance(trial, bool):
        raise AuditInputError(f"{where}: key 'train_trial_index' must be an integer")
    return trial


def _options(run_dir: Path, per_instance: list, where: str) -> tuple[dict, str]:
    """{(instance id, train trial): number of options}, and where that came from."""
    state_path = run_dir / "scenario_state.json"
    if state_path.is_file():
        state = load_json(state_path)
        states = field(state, "request_states", list, str(state_path))
        opts = {}
        for k, rs in enumerate(states):
            at = f"{state_path}: request_states[{k}]"
            if not isinstance(rs, dict):
                raise AuditInputError(f"{at}: expected an object")
            inst = field(rs, "instance", dict, at)
            refs = field(inst, "references", list, f"{at}.instance")
            key = (str(field(inst, "id", str, f"{at}.instance")), _trial(rs, at))
            opts[key] = len(refs)
        return opts, "scenario_state"
    opts = {}
    for k, entry in enumerate(per_instance):
        s = _stat(field(entry, "stats", list, f"{where}[{k}]"), "num_references", None, where)
        field(entry, "instance_id", str, f"{where}[{k}]")
        if s is None:
            raise AuditInputError(
                f"{where}[{k}]: statistic 'num_references' missing and no scenario_state.json "
                "beside it: the number of options is unknown"
            )
        opts[(str(entry["instance_id"]), _trial(entry, f"{where}[{k}]"))] = int(s["mean"])
    return opts, "per_instance_stats"


def read(path: str | Path) -> tuple[list[Result], list[Skipped]]:
    """The run in the directory of `path` (its `run_spec.json`), or the reason it is skipped."""
    path = Path(path)
    run_dir = path.parent if path.is_file() else path
    spec_path = run_dir / RUN_SPEC
    spec = load_json(spec_path)
    name = task_name(str(field(spec, "name", str, str(spec_path))))
    adapter = field(spec, "adapter_spec", dict, str(spec_path))
    method = str(field(adapter, "method", str, f"{spec_path}: adapter_spec"))
    if not _is_mc(method):
        reason = f"adapter method {method!r} is not multiple choice (no options to guess among)"
        return [], [Skipped(str(run_dir), name, reason, no_baseline=True)]
    model = str(adapter.get("model") or adapter.get("model_deployment") or "unknown")
    trials = adapter.get("num_train_trials", 1)
    pis_path = run_dir / "per_instance_stats.json"
    if not pis_path.is_file():
        reason = "per_instance_stats.json missing: per-instance outcomes are needed"
        return [], [Skipped(str(run_dir), name, reason)]
    per_instance = load_json(pis_path)
    if not isinstance(per_instance, list):
        raise AuditInputError(f"{pis_path}: expected a list of per-instance entries")
    opts, choices_source = _options(run_dir, per_instance, str(pis_path))

    by_split = _outcomes(pis_path, per_instance, opts, choices_source)
    if isinstance(by_split, str):
        return [], [Skipped(str(run_dir), name, by_split)]

    stats_path = run_dir / "stats.json"
    stats = load_json(stats_path) if stats_path.is_file() else None
    if stats is not None and not isinstance(stats, list):
        raise AuditInputError(f"{stats_path}: expected a list of statistics")
    # HELM samples max_eval_instances from all the run's evaluation splits together, so the
    # cap is compared with the run's instances, not each split's
    cap = adapter.get("max_eval_instances")
    total = len({r[0] for rows in by_split.values() for r in rows})
    limited = isinstance(cap, int) and not isinstance(cap, bool) and total >= cap
    results = []
    for split, rows in sorted(by_split.items()):
        task = name if len(by_split) == 1 else f"{name} ({split})"
        notes = [f"max_eval_instances = {cap}: a sample of the scenario's instances"] * limited
        small = _too_small(rows, split)
        if small:
            notes.append(small)
        results.append(
            _result(
                run_dir, task, model, rows, split, trials, stats, choices_source, limited, notes
            )
        )
    if not results:
        raise AuditInputError(f"{pis_path}: no unperturbed instance has {METRIC!r}")
    settings = run_settings(shots=adapter.get("max_train_instances"), limit=cap, harness="HELM")
    return [replace(r, settings=settings) for r in results], []


def _outcomes(pis_path: Path, per_instance: list, opts: dict, choices_source: str):
    """{split: [(instance id, train trial, 0/1, options)]} of the unperturbed instances, or the
    reason the run has no 0/1 outcomes."""
    by_split: dict[str, list] = {}
    for k, entry in enumerate(per_instance):
        at = f"{pis_path}[{k}]"
        if not isinstance(entry, dict):
            raise AuditInputError(f"{at}: expected an object")
        if entry.get("perturbation") is not None:  # robustness/fairness variants of an instance
            continue
        iid = str(field(entry, "instance_id", str, at))
        trial = _trial(entry, at)
        s = _stat(field(entry, "stats", list, at), METRIC, None, f"{at}.stats")
        if s is None:
            raise AuditInputError(f"{at}: statistic {METRIC!r} missing")
        value = s.get("mean", s.get("sum"))
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 <= value <= 1:
            raise AuditInputError(f"{at}: {METRIC} = {value!r}, expected 0 or 1 per instance")
        if value not in (0, 1):  # multiple_choice_separate_*: a tie scores 1 / (tied options)
            return (
                f"{METRIC} of instance {iid!r} is {value!r}: options tied for the best score "
                "(HELM then scores the share of correct ones), so there is no 0/1 outcome"
            )
        if (iid, trial) not in opts:
            raise AuditInputError(
                f"{at}: instance {iid!r} (train trial {trial}) has no references in "
                f"{choices_source}"
            )
        split = s["name"].get("split", "test")
        by_split.setdefault(split, []).append((iid, trial, int(value), opts[(iid, trial)]))

    return by_split


def _too_small(rows: list, split: str) -> str | None:
    """A note when no score on this split could be significant at the 5% level: even all its
    outcomes correct have chance probability prod(1/k) above 0.05 (e.g. a 1-instance `valid`
    split beside the `test` split)."""
    chance = 1.0
    for r in rows:
        chance /= r[3]
    if chance <= TEST_LEVEL:
        return None
    return (
        f"split {split!r} too small to test: {len(rows)} outcomes, and even all correct has "
        f"chance probability {chance:.3g} > {TEST_LEVEL}"
    )


def _result(
    run_dir, task, model, rows, split, trials, stats, choices_source, limited, notes
) -> Result:
    stats_path = run_dir / "stats.json"
    n, correct = len(rows), sum(r[2] for r in rows)
    multi = len({r[1] for r in rows}) > 1
    items = tuple(f"{r[0]}#{r[1]}" if multi else r[0] for r in rows)
    notes, acc = list(notes), None
    agg = _stat(stats, METRIC, split, str(stats_path)) if stats is not None else None
    if agg is not None:
        acc = float(agg["mean"])
        # the reported mean is over trials of per-trial means; with the same instances in every
        # trial it equals the pooled count
        if abs(acc - correct / n) > EXACT:
            raise AuditInputError(
                f"{stats_path}: {METRIC} ({split}) mean {acc!r} but per_instance_stats.json has "
                f"{correct} of {n} correct"
            )
        if multi and agg.get("max") is not None:
            notes.append(
                f"HELM's score is the mean over {trials} train trials: n counts instance x "
                f"trial outcomes; the best trial ({float(agg['max']):.4g}) would be a "
                f"best-of-{trials}"
            )
    return Result(
        model=model,
        task=task,
        n=n,
        correct=correct,
        labels=labels_of(r[3] for r in rows),
        source=str(run_dir),
        accuracy=acc,
        t=None,
        metric=METRIC,
        limited=limited,
        notes=tuple(notes),
        items=items,
        outcomes=tuple(r[2] for r in rows),
        run=str(run_dir),
        choices_source=choices_source,
        item_options=tuple(r[3] for r in rows),
    )
