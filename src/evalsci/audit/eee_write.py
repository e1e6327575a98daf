"""Write the audit as Every Eval Ever (EEE, schema 0.3.0): `evalsci audit ... --format eee
--out DIR`.

EEE's datastore layout, which its validator (`every_eval_ever validate`) checks:
`DIR/data/<benchmark>/<developer>/<model>/<uuid>.json`, one aggregate per score (one model on
one task), and beside it `<uuid>_samples.jsonl` where the score has per-item outcomes. The
schema has no place for baselines, so each score's audit (the judged row: standard and max
random baselines, tail p-values, verdict, t and its rule, the options per item, notes) goes in
the free-form `score_details.details` (string values, keys `evalsci_*`, numbers as Python's
repr, which reads back to the same float), and everything that is not one score, the whole
table, the skipped inputs with their reasons and the `--compare` tests and groups, goes in the
sidecar `DIR/evalsci_audit.json`.

Same input, same bytes: file names are UUIDs derived from the content (version-4 layout, as
EEE's file-name check requires, from a SHA-256), and `retrieved_timestamp` is
`SOURCE_DATE_EPOCH` (the reproducible-builds convention), else the run's own start where the
input says it (lm-eval's `date`, also written as `evaluation_timestamp`), else "0"; never the
clock. The developer and model come from the model's own name (`model_id`: lm-eval's
`pretrained=EleutherAI/pythia-70m,...` -> EleutherAI, pythia-70m).

What the audit does not know is left out or marked, never made up: a sample's `input.raw` is ""
and its `reference` empty (the readers keep no prompts), its `choices` are the option indices
"0".."k-1" (the audit keeps each item's number of options), `sample_hash` is null (EEE defines
it as a hash of the input and reference), and the model's `deployment_type` and
`model_availability` are "unknown". A model name that is no EEE model id
(`developer/model`, portable path components) is filed under a sanitized id, and the name as
read is kept in `model_info.additional_details.evalsci_model`, which the reader prefers.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import uuid
from pathlib import Path

import numpy as np
import pandas as pd

from .. import __version__
from .frames import frame_labels
from .judge import T1_NOTE
from .models import model_parts
from .readers.eee import DETAILS, SIDECAR_SCHEMA
from .records import Result, Skipped

SCHEMA_VERSION = "0.3.0"
SIDECAR = "evalsci_audit.json"
_UNSAFE = re.compile(r"[^A-Za-z0-9._+=-]+")
_RESERVED = {"CON", "PRN", "AUX", "NUL", *(f"COM{i}" for i in range(1, 10))}
_RESERVED |= {f"LPT{i}" for i in range(1, 10)}


def _component(text: str) -> str:
    """One portable datastore path component (EEE rejects <>:"\\|?*, control characters, a
    trailing dot or space, Windows device names and the reserved name "data")."""
    out = _UNSAFE.sub("_", text).strip("._ ") or "_"
    if out == "data" or out.split(".", 1)[0].upper() in _RESERVED or out.lower() == "unknown":
        out = f"{out}_"
    return out


def model_id(model: str) -> str:
    """An EEE model id (`developer/model`) for a model name as the audit read it: from
    lm-eval's `model_args` its own name (`pretrained=EleutherAI/pythia-70m,dtype=float32` ->
    EleutherAI/pythia-70m); a local path (absolute or relative) -> local/<its last part>."""
    model = model_parts(model)[0]
    if model.startswith((".", "/", "~")):
        return f"local/{_component(model.rstrip('/').rsplit('/', 1)[-1])}"
    parts = [p for p in model.split("/") if p]
    if len(parts) >= 2 and all(_component(p) == p for p in parts):
        return "/".join(parts)
    if len(parts) >= 2:
        return f"{_component(parts[0])}/{_component('_'.join(parts[1:]))}"
    return f"local/{_component(model)}"


def _uuid(*parts: str) -> str:
    """A UUID in version-4 layout from the SHA-256 of `parts`: the same content, the same name."""
    digest = hashlib.sha256("\x1f".join(parts).encode()).digest()
    return str(uuid.UUID(bytes=digest[:16], version=4))


def _num(x) -> str:
    return repr(float(x)) if isinstance(x, float) and math.isfinite(x) else str(x)


def _text(value) -> str:
    """A table cell as the string EEE's details hold: floats as their exact repr, booleans as
    true/false, missing values as ''."""
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return "" if math.isnan(value) else repr(float(value))
    return "" if value is None or value is pd.NA else str(value)


def _details(row: pd.Series, result: Result | None) -> dict[str, str]:
    """The judged row in `score_details.details`: every output column, as strings."""
    c = row["choices"]  # the number of options, or the label counts as JSON when mixed
    labels = (
        result.labels
        if result is not None
        else frame_labels(
            0 if isinstance(c, str) else int(c), c if isinstance(c, str) else "", int(row["n"])
        )
    )
    # the reader's own notes, without the judge's (it adds them again when this is read back)
    notes = "; ".join(result.notes) if result is not None else str(row["note"] or "")
    notes = notes.replace(f"; {T1_NOTE}", "").replace(T1_NOTE, "")
    # every column of the judged row (baselines, p-values, verdicts and their tests), then what
    # reading it back needs: the label counts, the count correct, the reader's notes, the run
    out = {str(col): _text(value) for col, value in row.items() if col not in ("model", "task")}
    out |= {
        "choices": json.dumps({str(k): int(v) for k, v in sorted(labels.items())}),
        "correct": str(round(float(row["accuracy"]) * int(row["n"])))
        if result is None
        else str(result.correct),
        "notes": notes,
        "run": "" if result is None else str(result.run or ""),
        "options_range": ""
        if result is None or result.options_range is None
        else "{}-{}".format(*result.options_range),
        "version": __version__,
    }
    if result is not None:
        out["model"] = result.model
    return {f"{DETAILS}{k}": v for k, v in out.items() if v != ""}


def _samples_text(result: Result, evaluation_id: str, mid: str, result_id: str) -> str:
    lines = []
    for item, outcome, k in zip(result.items, result.outcomes, result.item_options, strict=True):
        rec = {
            "schema_version": SCHEMA_VERSION,
            "evaluation_id": evaluation_id,
            "model_id": mid,
            "evaluation_name": result.task,
            "evaluation_result_id": result_id,
            "sample_id": str(item),
            "sample_hash": None,
            "interaction_type": "single_turn",
            "input": {"raw": "", "reference": [], "choices": [str(i) for i in range(k)]},
            "output": {"raw": []},
            "answer_attribution": [],
            "evaluation": {"score": float(outcome), "is_correct": bool(outcome)},
        }
        lines.append(json.dumps(rec, sort_keys=True, ensure_ascii=False))
    return "\n".join(lines) + "\n"


def _aggregate(row: pd.Series, result: Result | None, when: str) -> tuple[dict, str | None, str]:
    """(aggregate record, samples text or None, uuid) of one judged score."""
    model = str(row["model"]) if result is None else result.model
    task = str(row["task"])
    mid = model_id(model)
    metric = str(row["metric"] or "accuracy")
    per_item = result is not None and result.outcomes is not None and result.item_options
    key = json.dumps(
        [model, task, metric, str(row["source"]), int(row["n"]), _num(float(row["accuracy"]))]
        + ([list(result.items), list(result.outcomes)] if per_item else [])
    )
    evaluation_id = f"evalsci-audit/{_component(task)}/{mid}/{_uuid(key)[:8]}"
    file_uuid = _uuid(key, "aggregate")
    result_id = _component(metric)
    details = _details(row, result)
    details[f"{DETAILS}model"] = model
    entry = {
        "evaluation_result_id": result_id,
        "evaluation_name": task,
        "source_data": {"dataset_name": task, "source_type": "other"},
        "metric_config": {
            "evaluation_description": f"accuracy ({metric}) audited against the standard and "
            "max random baselines (evalsci audit)",
            "metric_id": "accuracy",
            "metric_name": metric,
            "metric_kind": "accuracy",
            "metric_unit": "proportion",
            "lower_is_better": False,
            "score_type": "continuous",
            "min_score": 0.0,
            "max_score": 1.0,
        },
        "score_details": {
            "score": float(row["accuracy"]),
            "details": details,
            "uncertainty": {"num_samples": int(row["n"])},
        },
    }
    developer, name = mid.split("/", 1)
    record = {
        "schema_version": SCHEMA_VERSION,
        "evaluation_id": evaluation_id,
        "retrieved_timestamp": when,
        "source_metadata": {
            "source_name": "evalsci audit",
            "source_type": "evaluation_run",
            "source_organization_name": "evalsci",
            "evaluator_relationship": "other",
            "additional_details": {"read_from": str(row["source"])},
        },
        "eval_library": {"name": "evalsci", "version": __version__},
        "model_info": {
            "name": model,
            "id": mid,
            "developer": developer,
            "additional_details": {
                "deployment_type": "unknown",
                "model_availability": "unknown",
                f"{DETAILS}model": model,
            },
        },
        "evaluation_results": [entry],
    }
    samples = None
    if per_item:
        samples = _samples_text(result, evaluation_id, mid, result_id)
        rel = _repo_dir(task, mid) + f"/{file_uuid}_samples.jsonl"
        record["detailed_evaluation_results"] = {
            "format": "jsonl",
            "file_path": rel,
            "hash_algorithm": "sha256",
            "checksum": hashlib.sha256(samples.encode()).hexdigest(),
            "total_rows": len(result.outcomes),
        }
    return record, samples, file_uuid


def _repo_dir(task: str, mid: str) -> str:
    developer, name = mid.split("/", 1)
    return f"data/{_component(task)}/{_component(developer)}/{_component(name.replace('/', '_'))}"


def _epoch(date: float | None) -> str | None:
    """Unix time as EEE's timestamps hold it: whole seconds, a string."""
    return None if date is None else str(int(date))


def write_eee(
    out: str | Path,
    judged: pd.DataFrame,
    results: list[Result],
    skipped: list[Skipped] = (),
    tests: pd.DataFrame | None = None,
    groups: pd.DataFrame | None = None,
) -> list[Path]:
    """Write every judged score under `out` in EEE's layout, and the sidecar; the files written.
    `results`: the Results behind the first len(results) rows of `judged` (their per-item
    outcomes become the samples files); later rows (a CSV's scores) get an aggregate only."""
    out = Path(out)
    when = os.environ.get("SOURCE_DATE_EPOCH")
    written = []
    files: dict[Path, str] = {}
    for i, row in judged.iterrows():
        result = results[i] if i < len(results) else None
        date = result.date if result is not None else None
        record, samples, file_uuid = _aggregate(row, result, when or _epoch(date) or "0")
        if date is not None:  # the run's own start, as EEE's lm-eval converter writes it
            record["evaluation_timestamp"] = _epoch(date)
        folder = out / _repo_dir(str(row["task"]), record["model_info"]["id"])
        files[folder / f"{file_uuid}.json"] = json.dumps(record, indent=2, sort_keys=True) + "\n"
        if samples is not None:
            files[folder / f"{file_uuid}_samples.jsonl"] = samples
    sidecar = {
        "schema": f"{SIDECAR_SCHEMA}: the rows of the audit table (every column), the inputs "
        "passed over with their reasons, and the --compare tests and groups",
        "version": __version__,
        "scores": json.loads(judged.to_json(orient="records")),
        "skipped": [{"path": s.path, "task": s.task, "reason": s.reason} for s in skipped],
    }
    if tests is not None:
        sidecar["tests"] = json.loads(tests.to_json(orient="records"))
        sidecar["groups"] = json.loads(groups.to_json(orient="records"))
    files[out / SIDECAR] = json.dumps(sidecar, indent=2, sort_keys=True) + "\n"
    for path, text in sorted(files.items()):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
