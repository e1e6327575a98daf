"""inspect-ai logs: `.eval` (a zip, inspect's default) and `.json` (`--log-format json`).

Read without inspect-ai. A `.eval` holds `header.json` (the `eval` spec, `status`, `results`),
`summaries.json` (one summary per sample and epoch: id, epoch, choices, scores) and
`samples/<id>_epoch_<k>.json`; before about 0.3.155 the summaries lack `choices`, and the
samples are read instead. inspect 0.3.285 compresses the members with zstd (zip method
93), older versions with deflate. A `.json` log holds the same header fields and `samples`.

Only inspect's `choice` scorer (the `multiple_choice()` solver's scorer) is multiple choice:
its value is 'C' or 'I' per sample and epoch, and each sample lists its `choices`. Epochs:
- reducer `mean` (inspect's default): the reported accuracy is the mean over all sample x epoch
  scores, so n counts those scores (a random guesser answers each epoch independently);
  this is not a best-of, so `t` is left to the judge;
- any other reducer (`at_least_k`, `max`, `pass_at_k`, `mode`, `median`, ...) reduces each
  sample's epochs first, e.g. at_least_1 is a per-item best-of: a random guesser gets an item
  with 1 - (1 - 1/k)^epochs, which neither the standard nor the max random baseline (the best
  of t whole runs) describes, so such a score is skipped with that reason.
Other scorers (match, includes, model-graded, ...) have no options and are skipped.
"""

from __future__ import annotations

import io
import json
import re
import struct
import zipfile
import zlib
from pathlib import Path

from ..records import EXACT, AuditInputError, Result, Skipped, labels_of, run_settings
from .fields import field
from .jsonfile import load_json

ZIP_MAGIC = b"PK\x03\x04"
_JSON_LOG = re.compile(r'^\{\s*"version"\s*:\s*\d+\s*,\s*"status"\s*:')
_ZSTD = 93  # zip compression method number of zstandard
CHOICE_SCORER = "choice"
SCORE_VALUES = {"C": 1, "I": 0}


def sniff(head: str) -> bool:
    """A `.json` inspect log: it opens with its `version` and `status` keys."""
    return bool(_JSON_LOG.match(head.lstrip()))


def sniff_bytes(raw: bytes) -> bool:
    """A `.eval` log is a zip (the member names are checked when it is read)."""
    return raw.startswith(ZIP_MAGIC)


#: the most bytes one member of a `.eval` zip may inflate to (docs/audit.md): a 78 KB log
#: whose zstd header.json inflated to 1.5 GiB took 3.2 GB of memory
MAX_MEMBER_BYTES = 256 * 1024 * 1024


def _zstd_decompress(data: bytes, limit: int = MAX_MEMBER_BYTES) -> bytes:
    """At most `limit` + 1 bytes of the zstd frames in `data` (the caller refuses more)."""
    try:
        from compression import zstd  # Python 3.14+

        d = zstd.ZstdDecompressor()
        return d.decompress(data, max_length=limit + 1)
    except ImportError:
        import zstandard

        reader = zstandard.ZstdDecompressor().stream_reader(
            io.BytesIO(data), read_across_frames=True
        )
        return reader.read(limit + 1)


def _too_big(path: Path, name: str, size: int) -> None:
    if size > MAX_MEMBER_BYTES:
        raise AuditInputError(
            f"{path}: member {name!r} inflates to more than {MAX_MEMBER_BYTES:,} bytes, the most "
            "a member of an inspect log is read to (a zip bomb?)"
        )


def _member(path: Path, zf: zipfile.ZipFile, name: str):
    """One JSON member of a `.eval` zip, parsed; zstd members are decompressed here because
    `zipfile` reads them only from Python 3.14."""
    try:
        info = zf.getinfo(name)
    except KeyError:
        raise AuditInputError(f"{path}: member {name!r} missing from the .eval zip") from None
    _too_big(path, name, info.file_size)  # what the zip declares, before reading
    try:
        if info.compress_type != _ZSTD:
            with zf.open(name) as member:  # declared sizes can lie: read at most the cap
                data = member.read(MAX_MEMBER_BYTES + 1)
            _too_big(path, name, len(data))
        else:
            with open(path, "rb") as fh:
                fh.seek(info.header_offset)
                local = fh.read(30)
                if len(local) < 30 or not local.startswith(ZIP_MAGIC):
                    raise zipfile.BadZipFile(f"bad local header for {name}")
                skip = sum(struct.unpack("<HH", local[26:30]))
                fh.seek(info.header_offset + 30 + skip)
                raw = fh.read(info.compress_size)
            if len(raw) != info.compress_size:
                raise zipfile.BadZipFile(f"{name} is cut short")
            try:
                data = _zstd_decompress(raw)
            except Exception as e:  # noqa: BLE001 (zstandard.ZstdError, compression.zstd.ZstdError)
                raise zipfile.BadZipFile(f"{name}: zstd data corrupt ({e})") from None
            _too_big(path, name, len(data))
            if zlib.crc32(data) != info.CRC:
                raise zipfile.BadZipFile(f"{name} fails its CRC check")
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as e:
        if isinstance(e, (json.JSONDecodeError, AuditInputError)):
            raise
        raise AuditInputError(f"{path}: member {name!r} unreadable ({e})") from None
    try:
        return json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise AuditInputError(f"{path}: member {name!r} is not JSON ({e})") from None


def _load(path: Path) -> tuple[dict, list | None, str]:
    """(header, samples or None when the log has none, where samples came from)."""
    if path.suffix != ".json":
        try:
            zf = zipfile.ZipFile(path)
        except (zipfile.BadZipFile, OSError) as e:
            raise AuditInputError(f"{path}: not a readable .eval log ({e})") from None
        with zf:
            names = set(zf.namelist())
            if "header.json" not in names:
                start = (
                    _member(path, zf, "_journal/start.json")
                    if "_journal/start.json" in names
                    else {}
                )
                return {"status": "started", "eval": _dig(start, "eval") or {}}, None, ""
            header = _member(path, zf, "header.json")
            if not isinstance(header, dict):
                raise AuditInputError(f"{path}: member 'header.json' must be a JSON object")
            sample_names = sorted(
                n for n in names if n.startswith("samples/") and n.endswith(".json")
            )
            if "summaries.json" in names:
                summaries = _member(path, zf, "summaries.json")
                if not (sample_names and _needs_samples(header, summaries)):
                    return header, summaries, "summaries.json"
            if not sample_names:
                return header, None, ""
            return header, [_member(path, zf, n) for n in sample_names], "samples/"
    obj = load_json(path)
    if not isinstance(obj, dict):
        raise AuditInputError(f"{path}: an inspect log is a JSON object")
    samples = obj.get("samples")
    if samples is not None and not isinstance(samples, list):
        raise AuditInputError(f"{path}: key 'samples' must be a list")
    return obj, samples, "samples"


def _needs_samples(header: dict, summaries) -> bool:
    """The summaries lack the options that a choice score needs: inspect before about 0.3.155
    wrote summaries without `choices`, though each `samples/<id>_epoch_<k>.json` lists them."""
    scores = _dig(header, "results", "scores")
    if not isinstance(scores, list) or not isinstance(summaries, list):
        return False
    if not any(
        isinstance(e, dict) and e.get("scorer", e.get("name")) == CHOICE_SCORER for e in scores
    ):
        return False  # a generative log: its summaries have no choices, and need none
    return any(isinstance(s, dict) and "choices" not in s for s in summaries)


def _dig(obj, *keys):
    """obj[k1][k2]...: optional metadata, None where a level is missing or not an object."""
    for k in keys:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(k)
    return obj


def _config(spec: dict) -> dict:
    """The eval's `config` (epochs, limit, ...); {} when absent."""
    config = spec.get("config")
    return config if isinstance(config, dict) else {}


def _status_reason(header: dict) -> str:
    status = header.get("status")
    reason = f"inspect log status {status!r}, not 'success'"
    err = header.get("error")
    if isinstance(err, dict) and isinstance(err.get("message"), str):
        reason += f" (error: {err['message'].splitlines()[0][:160]})"
    return reason


def read(path: str | Path) -> tuple[list[Result], list[Skipped]]:
    """Every choice-scored score of one inspect log, and the scores and logs passed over."""
    path = Path(path)
    header, samples, where = _load(path)
    if header.get("status") != "success":
        return [], [Skipped(str(path), None, _status_reason(header))]
    spec = field(header, "eval", dict, f"{path}")
    task = str(field(spec, "task", str, f"{path}: eval"))
    model = str(field(spec, "model", str, f"{path}: eval"))
    epochs = _config(spec).get("epochs") or 1
    if not isinstance(epochs, int) or isinstance(epochs, bool) or epochs < 1:
        raise AuditInputError(f"{path}: eval.config key 'epochs' must be a positive integer")
    scores = field(field(header, "results", dict, f"{path}"), "scores", list, f"{path}: results")
    results, skipped = [], []
    for i, entry in enumerate(scores):
        at = f"{path}: results.scores[{i}]"
        name = str(field(entry, "name", str, at))
        label = task if len(scores) == 1 else f"{task}/{name}"
        if entry.get("scorer", name) != CHOICE_SCORER:
            skipped.append(
                Skipped(
                    str(path),
                    label,
                    f"scorer {entry.get('scorer', name)!r} is not multiple choice (the audit "
                    "reads inspect's choice scorer, used with the multiple_choice solver)",
                    no_baseline=True,
                )
            )
            continue
        reducer = entry.get("reducer")
        if epochs > 1 and reducer not in (None, "mean"):
            skipped.append(
                Skipped(
                    str(path),
                    label,
                    f"{epochs} epochs reduced by {reducer!r}: a per-item reduction (e.g. "
                    "at_least_1, a best-of per item) has no random baseline here: a random "
                    f"guesser gets an item with 1 - (1 - 1/k)^{epochs}, not 1/k, and the max "
                    "random baseline is the best of t whole runs; re-score with "
                    "epochs_reducer='mean' to audit it",
                    no_baseline=True,
                )
            )
            continue
        if samples is None:
            skipped.append(
                Skipped(
                    str(path),
                    label,
                    "the log holds no samples (inspect eval ran without log_samples): the "
                    "items' options and scores are unknown",
                )
            )
            continue
        results.append(_result(path, spec, entry, name, label, model, samples, where, epochs))
    return results, skipped


def _result(path, spec, entry, name, label, model, samples, where, epochs) -> Result:
    items, outcomes, choices, unscored = [], [], [], 0
    for j, s in enumerate(samples):
        at = f"{path}: {where}[{j}]"
        sid = s.get("id") if isinstance(s, dict) else None
        if not isinstance(sid, (str, int)) or isinstance(sid, bool):
            raise AuditInputError(f"{at}: key 'id' missing or not a string/integer")
        at = f"{path}: {where}[{j}] (id {sid!r})"
        scores = s.get("scores")
        if scores is not None and not isinstance(scores, dict):
            raise AuditInputError(f"{at}: key 'scores' must be an object")
        score = (scores or {}).get(name)
        if score is None:  # an errored sample has no score; inspect leaves it out too
            unscored += 1
            continue
        value = field(score, "value", (str, int, float), f"{at}: scores.{name}")
        if value not in SCORE_VALUES and value not in (0, 1):
            raise AuditInputError(
                f"{at}: scores.{name}.value {value!r}: the choice scorer gives 'C' or 'I' "
                "(or 1 / 0 once converted to numbers)"
            )
        opts = s.get("choices")
        if not isinstance(opts, list) or len(opts) < 2:
            raise AuditInputError(
                f"{at}: key 'choices' must list the options (2 or more) of a multiple-choice "
                f"sample, got {opts!r:.60}"
            )
        epoch = s.get("epoch", 1)
        items.append(f"{sid}#{epoch}" if epochs > 1 else str(sid))
        outcomes.append(int(SCORE_VALUES.get(value, value)))
        choices.append(len(opts))
    if not outcomes:
        raise AuditInputError(f"{path}: score {name!r}: no sample has a score")
    if len(set(items)) != len(items):
        raise AuditInputError(f"{path}: {where}: a sample id and epoch occur twice")
    n, correct = len(outcomes), sum(outcomes)
    acc = _dig(entry, "metrics", "accuracy", "value")
    # `not <=`: a NaN accuracy (JSON allows it) agrees with no count and is rejected too
    if isinstance(acc, (int, float)) and not abs(correct / n - acc) <= EXACT:
        raise AuditInputError(
            f"{path}: results.scores {name!r}: accuracy {acc!r} but the samples have "
            f"{correct} of {n} correct"
        )
    limited, notes = _notes(spec, name, epochs, unscored, {i.split("#")[0] for i in items})
    return Result(
        model=model,
        task=label,
        n=n,
        correct=correct,
        labels=labels_of(choices),
        source=str(path),
        accuracy=float(acc) if isinstance(acc, (int, float)) else None,
        t=None,
        metric=f"{name}/accuracy",
        limited=limited,
        notes=tuple(notes),
        items=tuple(items),
        outcomes=tuple(outcomes),
        run=str(spec.get("eval_id") or spec.get("run_id") or path),
        choices_source="log",
        item_options=tuple(choices),
        settings=run_settings(
            limit=_config(spec).get("limit"),
            model_args={**(spec.get("model_args") or {}), **(spec.get("task_args") or {})},
            harness=_dig(spec, "packages", "inspect_ai")
            and f"inspect_ai {spec['packages']['inspect_ai']}",
        ),
    )


def _notes(spec: dict, name: str, epochs: int, unscored: int, ids: set) -> tuple[bool, list]:
    """(limited, notes) of one score: epochs averaged, errored samples, a --limit run."""
    config = _config(spec)
    notes = []
    if epochs > 1:
        notes.append(
            f"{epochs} epochs averaged (reducer mean): n counts sample x epoch scores; "
            "a mean is not a best-of, so the epochs are not tries"
        )
    if unscored:
        notes.append(f"{unscored} samples without a {name!r} score (errors) left out")
    total = _dig(spec, "dataset", "samples")
    limited = config.get("limit") is not None or config.get("sample_id") is not None
    if isinstance(total, int) and len(ids) < total:
        limited = True
    if limited:
        notes.append(f"{len(ids)} of the dataset's {total} samples (--limit / --sample-id)")
    return limited, notes
