"""Every Eval Ever (EEE, github.com/evaleval/every_eval_ever, schema 0.3.0): read its files.

Read without the `every_eval_ever` package. An EEE datastore holds, per evaluation run,
`data/<benchmark>/<developer>/<model>/<uuid>.json` (the aggregate: `model_info`,
`evaluation_results[]` with `evaluation_name`, `metric_config`, `score_details.score`) and,
where instance-level data was kept, `<uuid>_samples.jsonl` beside it (one line per sample and
aggregate result: `sample_id`, `sample_hash`, `evaluation_result_id`, `input.choices`,
`evaluation.is_correct`), named by the aggregate's `detailed_evaluation_results.file_path`.

One score per model and `evaluation_name`: the result named by `--metric` (its metric_name,
evaluation_result_id or metric_id), else the first with EEE's registered `metric_id`
"accuracy", else the first with `metric_kind` "accuracy". With samples, the score is
multiple choice when every sample of that result lists two or more `input.choices`: n is the
samples' count, each item's options its choices, its outcome `is_correct`, checked against the
aggregate score. Items are paired across models on `sample_hash` where every sample of the file
has one (EEE: a hash of the input and reference, for when sample ids differ between runs),
else on `sample_id`. Without samples, the options come from the audit's own details (files
this project wrote, `audit/eee_write.py`) or the known-task table, and n from
`uncertainty.num_samples`; otherwise the score is skipped with the reason.
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

from ..records import EXACT, AuditInputError, Result, Skipped, from_accuracy, labels_of
from .fields import field
from .jsonfile import iter_jsonl, load_json
from .lm_eval_tasks import lookup
from .option_counts import options_for

#: the key prefix of the audit's own entries in `score_details.details` (audit/eee_write.py)
DETAILS = "evalsci_"
#: the opening of the sidecar's `schema` key (audit/eee_write.py): the audit's own summary
SIDECAR_SCHEMA = "evalsci audit sidecar"


def sniff_sidecar(obj) -> bool:
    """The sidecar `--format eee` writes beside `data/` (not results: passed over)."""
    return isinstance(obj, dict) and str(obj.get("schema", "")).startswith(SIDECAR_SCHEMA)


def sniff_aggregate(obj) -> bool:
    """An EEE aggregate: an object with `schema_version`, `model_info` and
    `evaluation_results`."""
    return isinstance(obj, dict) and {"schema_version", "model_info", "evaluation_results"} <= set(
        obj
    )


def sniff_samples(rec) -> bool:
    """One line of an EEE `_samples.jsonl`."""
    return isinstance(rec, dict) and {"schema_version", "evaluation_id", "sample_id"} <= set(rec)


def samples_path(path: Path, agg: dict) -> Path | None:
    """The aggregate's samples file: `detailed_evaluation_results.file_path` is relative to the
    datastore root (`data/...`); the file sits beside the aggregate."""
    detail = agg.get("detailed_evaluation_results")
    if not isinstance(detail, dict):
        return None
    rel = field(detail, "file_path", str, f"{path}: detailed_evaluation_results")
    for candidate in (path.parent / Path(rel).name, *(a / rel for a in path.parents)):
        if candidate.is_file():
            return candidate
    return None


def _pick(results: list, metric: str | None) -> dict | str:
    """The evaluation result to read among one evaluation_name's, or 'skip:<reason>'."""

    def ids(r):
        m = r.get("metric_config") if isinstance(r.get("metric_config"), dict) else {}
        return {r.get("evaluation_result_id"), m.get("metric_name"), m.get("metric_id")}

    if metric is not None:
        for r in results:
            if metric in ids(r):
                return r
        have = sorted({str(i) for r in results for i in ids(r) if i})
        return f"skip:metric {metric!r} not reported (there: {have})"
    for test in (
        lambda m: m.get("metric_id") == "accuracy",
        lambda m: m.get("metric_kind") == "accuracy",
    ):
        for r in results:
            if test(r.get("metric_config") if isinstance(r.get("metric_config"), dict) else {}):
                return r
    names = sorted({str(i) for r in results for i in ids(r) if i})
    return f"skip:no accuracy metric (metric_id or metric_kind 'accuracy'; there: {names})"


def _model(agg: dict, where: str) -> str:
    info = field(agg, "model_info", dict, where)
    extra = (
        info.get("additional_details") if isinstance(info.get("additional_details"), dict) else {}
    )
    return str(extra.get(f"{DETAILS}model") or field(info, "id", str, f"{where}: model_info"))


def read(path: str | Path, metric: str | None = None) -> tuple[list[Result], list[Skipped]]:
    """Every multiple-choice score of one EEE aggregate file, and the scores passed over."""
    path = Path(path)
    agg = load_json(path)
    where = str(path)
    model = _model(agg, where)
    entries = field(agg, "evaluation_results", list, where)
    by_name: dict[str, list] = {}
    for k, e in enumerate(entries):
        at = f"{where}: evaluation_results[{k}]"
        name = str(field(e, "evaluation_name", str, at))
        field(field(e, "score_details", dict, at), "score", (int, float), f"{at}.score_details")
        by_name.setdefault(name, []).append(e)
    spath = samples_path(path, agg)
    rows, kinds = _samples(spath, agg) if spath is not None else (None, {})
    results, skipped = [], []
    for name, group in by_name.items():
        chosen = _pick(group, metric)
        if isinstance(chosen, str):  # no accuracy: documented unless --metric named one
            skipped.append(Skipped(where, name, chosen[5:], no_baseline=metric is None))
            continue
        why = _generation(chosen, name, kinds, spath)
        if why is not None:
            skipped.append(Skipped(where, name, why, no_baseline=True))
            continue
        got = _score(path, agg, model, name, chosen, rows, spath)
        (results if isinstance(got, Result) else skipped).append(got)
    return results, skipped


#: a choice's label as a model may answer it: A, B, ... or 1, 2, ...
def _labels(k: int) -> set[str]:
    return {chr(ord("A") + i) for i in range(min(k, 26))} | {str(i + 1) for i in range(k)}


def _line_kind(rec: dict, choices) -> tuple[bool, bool]:
    """(every listed choice is a correct answer, the output is free text and no reference
    says which choice is right): the two signs of a generation task in EEE's multiple-choice
    fields. HELM's generation scenarios (NarrativeQA) come out of EEE's HELM converter with
    their reference answers as `input.choices`, all correct; a multiple-choice item has a
    choice that is wrong, whatever the model wrote (HELM's multiple_choice_joint keeps a
    model's unparsable "Answer:" as its output). Free text: the answer (the attributed
    extraction, else the raw output) is no choice and no choice label."""
    if not choices:
        return False, False
    inp = rec.get("input") if isinstance(rec.get("input"), dict) else {}
    refs = inp.get("reference")
    refs = [refs] if isinstance(refs, str) else refs if isinstance(refs, list) else []
    all_correct = bool(refs) and {str(c) for c in choices} <= {str(r) for r in refs}
    att = rec.get("answer_attribution")
    answer = None
    if isinstance(att, list) and att and isinstance(att[-1], dict):
        answer = att[-1].get("extracted_value")
    if answer is None:
        out = rec.get("output") if isinstance(rec.get("output"), dict) else {}
        raw = out.get("raw")
        answer = raw[-1] if isinstance(raw, list) and raw else raw
    text = str(answer).strip() if answer is not None else ""
    free = not refs and text not in {str(c).strip() for c in choices} | _labels(len(choices))
    return all_correct, free


def _generation(entry: dict, name: str, kinds: dict, spath) -> str | None:
    """Why a result's samples are generation, not multiple choice, or None: some sample
    lists only correct answers as its choices (nothing to guess among), or every sample's
    output is free text, none says which choice is right, and the result has a generation
    config."""
    key = entry.get("evaluation_result_id") or name
    got = kinds.get(str(key), kinds.get(name))
    if not got:
        return None
    all_correct, free, lines = got
    where = spath.name if spath is not None else "its samples"
    if all_correct:
        return (
            f"generation, not multiple choice: in {all_correct} of {lines} samples of "
            f"{where} every listed input.choices is a correct answer (the references of a "
            "generation task), so there are no options to guess among"
        )
    if free == lines and entry.get("generation_config"):
        return (
            f"generation, not multiple choice: every output in {where} is free text (no "
            "listed choice or its label) beside a generation config"
        )
    return None


def _samples(spath: Path, agg: dict) -> tuple[dict, dict]:
    """({evaluation_result_id or evaluation_name: [(item, options or None, 0/1)]}, items keyed
    on sample_hash where every line has one, else on sample_id; {the same key: (samples whose
    choices are all correct, samples with free-text output, samples)})."""
    detail = agg["detailed_evaluation_results"]
    raw = spath.read_bytes()
    want = detail.get("checksum")
    if isinstance(want, str) and detail.get("hash_algorithm", "sha256") in ("sha256", "md5"):
        got = hashlib.new(detail.get("hash_algorithm", "sha256"), raw).hexdigest()
        if got != want:
            raise AuditInputError(
                f"{spath}: {detail.get('hash_algorithm', 'sha256')} {got} differs from the "
                f"aggregate's detailed_evaluation_results.checksum {want}"
            )
    lines, kinds = [], {}
    # the shared JSONL reader: a line that is not UTF-8 or not a JSON object names its line
    for i, rec in iter_jsonl(spath):
        at = f"{spath}:{i}"
        sid = str(field(rec, "sample_id", str, at))
        ev = field(rec, "evaluation", dict, at)
        ok = field(ev, "is_correct", bool, f"{at}: evaluation")
        inp = rec.get("input") if isinstance(rec.get("input"), dict) else {}
        choices = inp.get("choices")
        if choices is not None and not isinstance(choices, list):
            raise AuditInputError(f"{at}: input.choices must be a list or null")
        score = ev.get("score")
        value = float(score) if _number(score) else float(ok)
        key = rec.get("evaluation_result_id") or field(rec, "evaluation_name", str, at)
        lines.append((str(key), sid, rec.get("sample_hash"), choices, int(ok), value))
        a, f = _line_kind(rec, choices)
        k = kinds.setdefault(str(key), [0, 0, 0])
        k[0], k[1], k[2] = k[0] + a, k[1] + f, k[2] + 1
    by_hash = bool(lines) and all(isinstance(x[2], str) and x[2] for x in lines)
    out: dict[str, list] = {}
    for key, sid, shash, choices, ok, value in lines:
        out.setdefault(key, []).append(
            (shash if by_hash else sid, None if choices is None else len(choices), ok, value)
        )
    return out, {k: tuple(v) for k, v in kinds.items()}


def _number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


#: why a result whose samples repeat with one 0/1 value each is skipped
AMBIGUOUS_EPOCHS = (
    "{spath}: each sample occurs {epochs} times (epochs) with one 0/1 value on all its lines: "
    "EEE (0.3.0's inspect converter) writes a sample's value reduced over its epochs on every "
    "epoch's line, so this is either the mean of epochs that all agreed or a per-item reduction "
    "(at_least_1, max, mode: a best-of per item, which has no random baseline), and the file "
    "does not say which; audit the inspect log itself"
)


def _epochs(where, name, spath, mine, acc, flags, common) -> Result | Skipped:
    """A result whose sample ids repeat (inspect epochs). Each sample's lines carry one value per
    epoch: EEE 0.3.0 writes the sample's value reduced over its epochs (inspect's `mean`:
    right answers / epochs) on every line, a converter that kept each epoch's answer its 0/1.
    Either way the right answers of a sample are the sum of its lines' values, so the score is
    counted as inspect's own log is (`readers/inspect_ai.py`): n = items x epochs answers, each
    a random guess under the null, t not set. Only where every sample's lines agree on a 0/1
    value is that undecidable (AMBIGUOUS_EPOCHS). Not paired: the epochs' own answers are not
    in the file."""
    per: dict[str, list] = {}
    for item, opts, _, value in mine:
        per.setdefault(item, []).append((opts, value))
    epochs = sorted({len(v) for v in per.values()})
    if all(len({x for _, x in v}) == 1 and v[0][1] in (0.0, 1.0) for v in per.values()):
        what = "/".join(map(str, epochs))
        why = AMBIGUOUS_EPOCHS.format(spath=spath.name, epochs=what)
        return Skipped(where, name, why, no_baseline=True)
    right = [sum(x for _, x in v) for v in per.values()]
    if any(abs(r - round(r)) > 1e-9 * len(v) for r, v in zip(right, per.values(), strict=True)):
        return Skipped(
            where,
            name,
            f"{spath.name}: a sample's values over its epochs do not add up to a number of "
            "right answers (no mean over epochs): no count to audit",
            no_baseline=True,
        )
    n, correct = len(mine), int(sum(round(r) for r in right))
    if abs(correct / n - acc) > EXACT:
        return Skipped(
            where,
            name,
            f"{spath.name}: score {acc!r} is not the mean of the {n} answers (items x epochs, "
            f"{correct} right): a per-item reduction over epochs (at_least_1, max, ...) has no "
            "random baseline",
            no_baseline=True,
        )
    note = (
        f"{len(per)} items x {'/'.join(map(str, epochs))} epochs: each epoch's answer counted "
        f"as one of n = {n} (the score is their mean); not paired (the file keeps each sample's "
        "value reduced over its epochs)"
    )
    flags = flags | {"notes": (*flags["notes"], note)}
    return Result(
        n=n,
        correct=correct,
        labels=labels_of(o for _, o, _, _ in mine),
        accuracy=acc,
        choices_source=common["choices_source"],
        derived=common["derived"],
        **{k: common[k] for k in ("model", "task", "source")},
        **flags,
    )


def _details(entry: dict) -> dict:
    d = entry["score_details"].get("details")
    return d if isinstance(d, dict) else {}


def _score(path, agg, model, name, entry, rows, spath) -> Result | Skipped:
    where = str(path)
    acc = float(entry["score_details"]["score"])
    m = entry.get("metric_config") if isinstance(entry.get("metric_config"), dict) else {}
    metric = str(entry.get("evaluation_result_id") or m.get("metric_name") or "accuracy")
    details = _details(entry)
    own = {k.removeprefix(DETAILS): v for k, v in details.items() if k.startswith(DETAILS)}
    t = int(own["t"]) if own.get("t_rule") == "stated" and own.get("t") else None
    flags = {
        "metric": own.get("metric") if own else metric,  # the audit's own, even none
        "limited": own.get("limited") == "true",
        "notes": tuple(x for x in own.get("notes", "").split("; ") if x),
        "run": own.get("run") or str(agg.get("evaluation_id") or path),
        "t": t,
    }
    key = entry.get("evaluation_result_id") or name
    mine = None if rows is None else rows.get(str(key), rows.get(name))
    if mine:
        opts = [o for _, o, _, _ in mine]
        if any(o is None or o < 2 for o in opts):
            why = "samples without two or more input.choices: not multiple choice"
            return Skipped(where, name, why, no_baseline=True)
        items = tuple(i for i, _, _, _ in mine)
        if len(set(items)) != len(items):
            common = {
                "model": model,
                "task": name,
                "source": where,
                "derived": own.get("derived") == "true",
                "choices_source": own.get("choices_source") or "samples",
            }
            return _epochs(where, name, spath, mine, acc, flags, common)
        outcomes = tuple(o for _, _, o, _ in mine)
        n, correct = len(outcomes), sum(outcomes)
        if abs(correct / n - acc) > EXACT:
            raise AuditInputError(
                f"{where}: {name} score {acc!r} but {spath.name} has {correct} of {n} correct"
            )
        return Result(
            model=model,
            task=name,
            n=n,
            correct=correct,
            labels=labels_of(opts),
            source=where,
            accuracy=acc,
            derived=own.get("derived") == "true",
            items=items,
            outcomes=outcomes,
            item_options=tuple(opts),
            choices_source=own.get("choices_source") or "samples",
            **flags,
        )
    n = (entry["score_details"].get("uncertainty") or {}).get("num_samples")
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        return Skipped(where, name, "no samples file and no uncertainty.num_samples: n unknown")
    if own.get("choices"):
        labels = {int(k): int(v) for k, v in json.loads(own["choices"]).items()}
        counted = int(own["correct"]) if own.get("correct") else round(acc * n)
        span = own.get("options_range")
        return Result(
            model=model,
            task=name,
            n=n,
            correct=counted,
            labels=labels,
            options_range=tuple(int(x) for x in span.split("-")) if span else None,
            source=where,
            accuracy=acc,
            derived=own.get("derived") == "true",
            choices_source=own.get("choices_source") or "evalsci details",
            **flags,
        )
    counts = options_for(name, n, flags["limited"])
    if counts is not None and abs(round(acc * n) / n - acc) <= EXACT:
        notes = flags.pop("notes") + counts.pop("notes")
        return Result(
            model=model,
            task=name,
            n=n,
            correct=round(acc * n),
            source=where,
            accuracy=acc,
            derived=True,
            notes=notes,
            **counts,
            **flags,
        )
    known = lookup(name)
    if known is None or known.output_type != "multiple_choice" or known.options is None:
        why = "no samples file, and the options are unknown (not in the known-task table"
        why += f": {known.provenance})" if known else ")"
        return Skipped(where, name, why, no_baseline=True)
    if abs(round(acc * n) / n - acc) > EXACT:
        return Skipped(where, name, f"score {acc!r} is no count out of n = {n}")
    return from_accuracy(
        acc,
        n,
        known.options,
        model=model,
        task=name,
        source=where,
        choices_source=known.provenance,
        **flags,
    )
