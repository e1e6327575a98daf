"""lighteval output (`lighteval ... --output-dir OUT [--save-details]`).

Read without lighteval. Per run it writes `OUT/results/<model>/results_<date>.json`
(`config_general` with `model_name` and `max_samples`, `results` per task key such as
`arith12|0`, `config_tasks` with each task's metrics and their `category`) and, with
`--save-details`, `OUT/details/<model>/<date>/details_<task key>_<date>.parquet`: one row per
document with its `doc` (query, `choices`, `gold_index`, `id`) and its `metric` values.

A task is multiple choice when its metric is scored from log-probabilities (`category`
LOGPROBS: acc, acc_norm, ...) and each document lists two or more `choices`: then n is the
details' row count, each item's options its `choices`, and its 0/1 metric value its outcome.
Without details (or with Git LFS pointers in their place), a task is read only when both its
n and its options are known otherwise: n recovered from the metric's standard error (lighteval,
like lm-eval, reports the sample standard deviation over sqrt(n): se^2 = p(1-p)/(n-1)), and the
options from lm-eval's definition of the task of the same name (the known-task table, and for
tasks whose items differ in options the option-count table: a histogram or bounds); its count
is then `derived`. Otherwise the task is skipped with the reason.

Task keys (`lm_eval_name`): lighteval 0.12 and later write `task|shots` (`arc:challenge|25`,
`truthfulqa:mc|0`: the details files in lighteval's own tests/reference_details since its commit
31433cc, 2025-11-05); earlier versions `suite|task|shots` (`lighteval|arc:challenge|25`,
`leaderboard|hellaswag|10`; the Open LLM Leaderboard v1's `harness|hendrycksTest-anatomy|5`).
lighteval's `a:b` is lm-eval's `a_b` (arc:challenge, mmlu:abstract_algebra). Its
`truthfulqa:mc` scores two metrics: `truthfulqa_mc1` is lm-eval's truthfulqa_mc1 (argmax over
the question's mc1 answers, the first `specific.len_mc1` of the document's choices, which are
the mc1 then the mc2 answers), `truthfulqa_mc2` a probability mass, no accuracy.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..records import (
    EXACT,
    AuditInputError,
    Result,
    Skipped,
    from_accuracy,
    labels_of,
    run_settings,
)
from .fields import field
from .jsonfile import load_json
from .lm_eval import n_from_stderr
from .lm_eval_tasks import lookup
from .option_counts import options_for
from .option_counts import table as option_table

_NAME = re.compile(r"^results_(?P<date>.+)\.json$")
MC_CATEGORY = "LOGPROBS"
#: the category names lighteval has given metrics scored from log-probabilities over a
#: document's choices: LOGPROBS (0.10 and later, `SamplingMethod`); MULTICHOICE,
#: MULTICHOICE_ONE_TOKEN and MULTICHOICE_PMI (`MetricCategory`, 0.3 to 0.9, written by name)
MC_CATEGORIES = frozenset({MC_CATEGORY, "MULTICHOICE", "MULTICHOICE_ONE_TOKEN", "MULTICHOICE_PMI"})
#: lighteval's choice accuracies (0/1 per document, the argmax over its choices), by metric
#: name, in the order they are read by default: `loglikelihood_acc` (and its single-token and
#: recall@1 forms) "acc", `loglikelihood_acc_norm` (and nospace, single-token) "acc_norm",
#: truthfulqa:mc's "truthfulqa_mc1", the Open LLM Leaderboard v1's "mc1". Their names hold
#: across versions, where the category does not: lighteval 0.6 to 0.9 wrote it as the enum's
#: number ("8" for MULTICHOICE), and 0.3 to 0.5 under the config key `metric`, not `metrics`.
ACCURACIES = ("acc", "acc_norm", "truthfulqa_mc1", "mc1")
#: truthfulqa:mc's accuracy over each question's mc1 answers (lighteval >= 0.5; the Open LLM
#: Leaderboard v1 files call it mc1)
MC1 = ("truthfulqa_mc1", "mc1")


#: a group's average over its subtasks (`helm|mmlu:_average|5`), beside the subtasks' own keys
AVERAGE = ":_average"
AVERAGE_WHY = (
    "lighteval's average over the group's subtasks, not a task of its own: each subtask is "
    "judged on its own key"
)


def split_key(task: str) -> tuple[str | None, str, int | None]:
    """(suite, task name, shots) of a lighteval results key: `arc:challenge|25`,
    `lighteval|arc:challenge|25`, `lighteval|arc:challenge|25|0` (the command line's form,
    with the truncate-few-shots flag)."""
    parts = task.split("|")
    numbers = []
    while len(parts) > 1 and parts[-1].isdigit():
        numbers.insert(0, int(parts.pop()))
    suite = parts.pop(0) if len(parts) == 2 else None
    return suite, "|".join(parts), numbers[0] if numbers else None


def lm_eval_name(task: str, metric: str) -> str | None:
    """lm-eval's name for the task a lighteval results key scores with `metric`, or None when
    that metric is no accuracy (truthfulqa:mc's mc2)."""
    name = split_key(task)[1]
    if name == "truthfulqa:mc":
        return "truthfulqa_mc1" if metric in MC1 else None
    return name.replace(":", "_")


def sniff(head: str) -> bool:
    """A lighteval results JSON opens with its `config_general`."""
    text = head.lstrip()
    return text.startswith("{") and '"config_general"' in text[:200]


def details_file(path: Path, model: str, task: str) -> Path | None:
    """The details parquet lighteval wrote for `task` of the results file `path`, or None."""
    m = _NAME.match(path.name)
    if m is None:
        return None
    date = m["date"]
    name = f"details_{task}_{date}.parquet"
    # OUT/results/<model>/results_<date>.json -> OUT/details/<model>/<date>/
    depth = len(Path(model).parts)
    out_dir = path.parents[depth] if len(path.parents) > depth else path.parent
    for d in (out_dir.parent / "details" / model / date, path.parent / date, path.parent):
        if (d / name).is_file():
            return d / name
    return None


def _config_of(configs: dict, task: str):
    """A results key's entry of `config_tasks`: under the same key, or (lighteval 0.9 and
    earlier: `leaderboard|truthfulqa:mc` beside the result `leaderboard|truthfulqa:mc|0`)
    under the key without its shots."""
    if task in configs:
        return configs[task]
    head, _, shots = task.rpartition("|")
    return configs.get(head, {}) if shots.isdigit() else {}


def _metric_names(cfg: dict, where: str) -> list[tuple[str, str | None]]:
    """[(metric name, category)] of one task's config (category None in old files)."""
    out = []
    metrics = cfg.get("metrics") or cfg.get("metric") or []  # `metric`: lighteval <= 0.9
    if not isinstance(metrics, list):
        raise AuditInputError(f"{where}: key 'metrics' must be a list")
    for k, m in enumerate(metrics):
        if isinstance(m, dict):
            name = field(m, "metric_name", (str, list), f"{where}.metrics[{k}]")
            # a metric grouping (truthfulqa:mc's [truthfulqa_mc1, truthfulqa_mc2]) names several
            for one in name if isinstance(name, list) else [name]:
                out.append((str(one), m.get("category")))
        elif isinstance(m, str):
            out.append((m, None))
    return out


def read(path: str | Path, metric: str | None = None) -> tuple[list[Result], list[Skipped]]:
    """Every multiple-choice task of one lighteval results JSON, and the tasks passed over."""
    path = Path(path)
    obj = load_json(path)
    general = field(obj, "config_general", dict, str(path))
    model = str(general.get("model_name") or "unknown")
    res = field(obj, "results", dict, str(path))
    configs = obj.get("config_tasks") if isinstance(obj.get("config_tasks"), dict) else {}
    max_samples = general.get("max_samples")
    tasks = sorted(t for t in res if t != "all")  # all: lighteval's average over the run's tasks
    averages = [t for t in tasks if split_key(t)[1].endswith(AVERAGE)]
    results = []
    skipped = [Skipped(str(path), t, AVERAGE_WHY, no_baseline=True) for t in averages]
    for task in (t for t in tasks if t not in averages):
        entry = res[task]
        at = f"{path}: results.{task}"
        if not isinstance(entry, dict):
            raise AuditInputError(f"{at}: expected an object of metric values")
        cfg = _config_of(configs, task)
        if not isinstance(cfg, dict):
            raise AuditInputError(f"{path}: config_tasks.{task}: expected an object")
        names = _metric_names(cfg, f"{path}: config_tasks.{task}")
        wanted = _pick_metric(entry, names, metric, _letter_metrics(cfg))
        letters = wanted.startswith("letters:")
        wanted = wanted.removeprefix("letters:")
        if wanted.startswith("skip:"):
            why = wanted[5:] + _generative_hint(path, model, task, entry, names)
            skipped.append(Skipped(str(path), task, why, no_baseline=True))
            continue
        acc = entry.get(wanted)
        if not isinstance(acc, (int, float)) or isinstance(acc, bool) or not 0 <= acc <= 1:
            raise AuditInputError(f"{at}: key {wanted!r} = {acc!r} is not an accuracy in [0, 1]")
        details = details_file(path, model, task)
        if details is None and letters:
            why = (
                f"{wanted!r} extracts a letter among each document's choices (letter-extraction "
                "multiple choice), but without its details parquet (run lighteval with "
                "--save-details) the options are unknown"
            )
            skipped.append(Skipped(str(path), task, why, no_baseline=True))
            continue
        if details is None:
            got = _without_details(path, task, entry, wanted, model, max_samples)
            (results if isinstance(got, Result) else skipped).append(got)
            continue
        got = _from_details(details, wanted, task)
        if isinstance(got, str):
            skipped.append(Skipped(str(path), task, got))
            continue
        items, outcomes, choices = got
        n, correct = len(outcomes), sum(outcomes)
        if abs(correct / n - acc) > EXACT:
            raise AuditInputError(
                f"{at}: {wanted} = {acc!r} but {details.name} has {correct} of {n} correct"
            )
        limited = max_samples is not None
        notes = (f"--max-samples {max_samples}",) if limited else ()
        if _category(names, wanted) not in (None, MC_CATEGORY):
            notes += (
                f"{wanted!r} is scored on generated text from a letter among each document's "
                "choices: a random guesser picks one of them",
            )
        results.append(
            Result(
                model=model,
                task=task,
                n=n,
                correct=correct,
                labels=labels_of(choices),
                source=str(path),
                accuracy=float(acc),
                metric=wanted,
                limited=limited,
                notes=notes,
                items=items,
                outcomes=outcomes,
                run=f"{model}@{_NAME.match(path.name)['date']}",
                choices_source="details",
                item_options=tuple(choices),
                settings=_settings(general, task, max_samples),
            )
        )
    return results, skipped


def _letter_metrics(cfg: dict) -> set[str]:
    """The task's metrics that extract a letter among the document's choices from generated
    text: lighteval's extractive match with `IndicesExtractionConfig` (gpqa_instruct_metric
    and the multilingual MCQ metrics), named in the config's `sample_level_fn`."""
    out = set()
    for m in cfg.get("metrics") or []:
        if isinstance(m, dict) and "IndicesExtractionConfig" in str(m.get("sample_level_fn")):
            out.add(str(m.get("metric_name")))
    return out


def _category(names: list, metric: str):
    return dict(names).get(metric)


def _generative_hint(path: Path, model: str, task: str, entry: dict, names: list) -> str:
    """For a task skipped for generative metrics: the metric that would read it as multiple
    choice, where its details list two or more choices per document and score each 0/1."""
    details = details_file(path, model, task)
    if details is None:
        return ""
    for name, category in names:
        # a number (lighteval <= 0.9) is no sign of generation: _custom_hint named the metric
        if category == MC_CATEGORY or str(category).isdigit() or name not in entry:
            continue
        if isinstance(_from_details(details, name, task), tuple):
            return (
                f"; its details list each document's choices and score {name!r} 0/1: if "
                f"{name!r} scores a choice extracted from the text, --metric {name} reads it"
            )
    return ""


def _pick_metric(entry: dict, names: list, metric: str | None, letters: set = frozenset()) -> str:
    """The metric to read ('letters:<name>' for a letter-extraction metric), or
    'skip:<reason>'."""
    have = sorted(k for k in entry if not k.endswith("_stderr"))
    if metric is not None:
        if metric not in entry:
            return f"skip:metric {metric!r} not reported (metrics there: {have})"
        return metric
    categories = {n: c for n, c in names}
    mc = [k for k in have if categories.get(k) in MC_CATEGORIES]
    if mc:  # a choice accuracy first (lighteval >= 0.10 also files mcc, f1, mrr as LOGPROBS)
        return next((a for a in ACCURACIES if a in mc), mc[0])
    extracted = [k for k in have if k in letters]
    if extracted:
        return f"letters:{extracted[0]}"
    # a choice accuracy by name, its category unknown or a number (lighteval <= 0.9), never
    # one named generative; mc2 (truthfulqa:mc's other metric) is no accuracy
    for k in ACCURACIES:
        cat = categories.get(k)
        if k in entry and (cat is None or str(cat).isdigit()):
            return k
    custom = [k for k in have if k not in categories or categories[k] not in MC_CATEGORIES]
    hint = _custom_hint(entry, custom)
    # a category by name says what the metric is scored from; a number (lighteval <= 0.9)
    # says nothing the audit relies on
    if any(c is not None and not str(c).isdigit() for c in categories.values()):
        cats = sorted({str(c) for c in categories.values()})
        why = f"metrics {have} are {cats}, not scored from log-probabilities over options"
        return f"skip:{why}{hint}"
    return f"skip:no multiple-choice metric (metrics there: {have}){hint}"


def _custom_hint(entry: dict, names: list[str]) -> str:
    """For metrics the audit does not know: the `--metric` that reads one as a choice
    accuracy, where its value could be one (a mean of 0/1 scores, in [0, 1])."""
    maybe = [
        k
        for k in names
        if isinstance(entry.get(k), (int, float))
        and not isinstance(entry.get(k), bool)
        and 0 <= entry[k] <= 1
    ]
    if not maybe:
        return ""
    k = maybe[0]
    return (
        f"; if {k!r} is an accuracy over each document's choices (one 0/1 score per "
        f"document), --metric {k} reads it"
    )


def _from_details(details: Path, metric: str, task: str):
    """(item ids, 0/1 outcomes, options per item) from a details parquet, or a skip reason."""
    try:
        import pyarrow.parquet as pq
    except ImportError:  # pragma: no cover (pyarrow comes with the lm extra's datasets)
        raise AuditInputError(f"{details}: reading lighteval details needs pyarrow") from None
    try:
        rows = pq.read_table(details).to_pylist()
    except Exception as e:  # noqa: BLE001 (pyarrow raises several types for a bad file)
        raise AuditInputError(f"{details}: not a readable parquet file ({e})") from None
    items, outcomes, choices = [], [], []
    for i, row in enumerate(rows):
        at = f"{details}: row {i}"
        doc = row.get("doc") if isinstance(row.get("doc"), dict) else row  # old: flat columns
        vals = row.get("metric") if isinstance(row.get("metric"), dict) else row.get("metrics")
        if not isinstance(vals, dict):
            raise AuditInputError(f"{at}: column 'metric' missing or not a struct")
        opts = doc.get("choices")
        if not isinstance(opts, list):
            raise AuditInputError(f"{at}: key 'doc.choices' missing or not a list")
        if metric in MC1:  # scored over the first len_mc1 choices only (the mc1 answers)
            # `doc.specific` since lighteval 0.10; the flat details of 0.9 and earlier call
            # the column `specifics`
            k = (doc.get("specific") or doc.get("specifics") or {}).get("len_mc1")
            if not isinstance(k, int) or not 2 <= k <= len(opts):
                raise AuditInputError(
                    f"{at}: metric {metric!r} needs doc.specific.len_mc1 (specifics.len_mc1 in "
                    f"lighteval 0.9's details: the question's mc1 answers among its "
                    f"{len(opts)} choices), got {k!r}"
                )
            opts = opts[:k]
        if len(opts) < 2:
            return f"documents have {len(opts)} choice(s) (generative task): no options"
        v = vals.get(metric)
        if v not in (0, 1):
            if isinstance(v, (int, float)):
                return f"metric {metric!r} takes values other than 0/1 (row {i}: {v!r})"
            raise AuditInputError(f"{at}: metric.{metric} = {v!r}, expected 0 or 1")
        doc_id = doc.get("id")
        items.append(str(doc_id) if doc_id not in (None, "") else str(i))
        outcomes.append(int(v))
        choices.append(len(opts))
    if not outcomes:
        raise AuditInputError(f"{details}: no rows (task {task!r})")
    return tuple(items), tuple(outcomes), choices


def _without_details(path: Path, task: str, entry: dict, metric: str, model: str, max_samples):
    """A derived Result from the results alone, or the Skipped saying what is missing."""
    name = lm_eval_name(task, metric)
    acc = entry[metric]
    missing = "no details parquet beside it (run lighteval with --save-details)"
    if name is None:
        why = f"{metric!r} is a probability mass over the true answers, not an accuracy"
        return Skipped(str(path), task, why, no_baseline=True)
    known = lookup(name)
    if known is None:
        why = f"{missing}, and {name!r} is not in the known-task table: options unknown"
        return Skipped(str(path), task, why, no_baseline=True)
    if known.output_type != "multiple_choice":
        why = f"{name!r} is {known.output_type} ({known.provenance})"
        return Skipped(str(path), task, why, no_baseline=True)
    per_item = known.options is None and name not in option_table()
    if per_item:
        why = f"{missing}, and {name!r} has per-item options ({known.provenance})"
        return Skipped(str(path), task, why, no_baseline=True)
    n = n_from_stderr(acc, entry.get(f"{metric}_stderr"))
    if n is None:
        return Skipped(
            str(path),
            task,
            f"{missing}, and {metric}_stderr = {entry.get(f'{metric}_stderr')!r} with "
            f"{metric} = {acc!r} gives no whole n",
        )
    notes = ["n recovered from the standard error (se^2 = p(1-p)/(n-1))"]
    if max_samples is not None:
        notes.append(f"--max-samples {max_samples}")
    fields = dict(
        model=model,
        task=task,
        source=str(path),
        metric=metric,
        limited=max_samples is not None,
        run=f"{model}@{_NAME.match(path.name)['date']}" if _NAME.match(path.name) else str(path),
    )
    if known.options is not None:
        return from_accuracy(
            acc,
            n,
            known.options,
            notes=tuple(notes),
            choices_source=known.provenance,
            **fields,
        )
    # options per item: the option-count table's histogram (whole task) or bounds
    counts = options_for(name, n, max_samples is not None)
    notes.extend(counts.pop("notes"))
    return Result(
        n=n,
        correct=round(acc * n),
        accuracy=float(acc),
        derived=True,
        notes=tuple(notes),
        **counts,
        **fields,
    )


def _settings(general: dict, task: str, max_samples) -> dict:
    """A run's settings: shots from the task key (lighteval's `task|shots`), --max-samples,
    the model's configuration and lighteval's commit."""
    sha = general.get("lighteval_sha")
    return run_settings(
        shots=split_key(task)[2],
        limit=max_samples,
        model_args=general.get("model_config"),
        harness=f"lighteval {sha}" if sha and sha != "?" else "lighteval",
    )
