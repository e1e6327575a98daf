"""GLUE (and HellaSwag) examples, parsed the way the Hugging Face `glue` builder parses them.

Offline tasks (SST-2, RTE, WNLI, MRPC) are read from the raw GLUE files of the `glue`
released bundle (`resources/released/glue`, laid out like `download_glue_data.py` writes
them). The parsing follows the legacy HF `glue` dataset script, so rows, `idx` and integer
`label`s equal `datasets.load_dataset("nyu-mll/glue", task)`:

- every TSV is read with `csv.DictReader(delimiter="\\t", quoting=csv.QUOTE_NONE)` (quotes are
  literal characters, SST-2 sentences keep their trailing space); `idx` is the row number;
- string labels map through the task's ClassLabel names (RTE "entailment" -> 0), numeric
  ones are cast to int (SST-2, WNLI);
- MRPC is built from the original `msr_paraphrase_train.txt`: a row belongs to validation
  when its (#1 ID, #2 ID) pair is in `dev_ids.tsv`, otherwise to train; `idx` is the row
  number in that file and `label` the `Quality` column.

MNLI, QNLI, QQP and HellaSwag are not in the bundle; they load from the hub through
`datasets.load_dataset` when online and fail with a clear message offline.
"""

from __future__ import annotations

import contextlib
import csv
import os
from pathlib import Path

from evalsci.data.released import MIRROR_ENV, ReleasedDataError, verify_file

# HF ClassLabel names per task (index = label id), from the HF `glue` builder.
LABEL_NAMES: dict[str, tuple[str, ...]] = {
    "sst2": ("negative", "positive"),
    "rte": ("entailment", "not_entailment"),
    "wnli": ("not_entailment", "entailment"),
    "mrpc": ("not_equivalent", "equivalent"),
    "mnli": ("entailment", "neutral", "contradiction"),
    "qnli": ("entailment", "not_entailment"),
    "qqp": ("not_duplicate", "duplicate"),
    "hellaswag": ("0", "1", "2", "3"),
}

# Offline tasks: folder in the bundle, {split: file}, {feature: TSV column}.
_OFFLINE = {
    "sst2": ("SST-2", {"sentence": "sentence"}),
    "rte": ("RTE", {"sentence1": "sentence1", "sentence2": "sentence2"}),
    "wnli": ("WNLI", {"sentence1": "sentence1", "sentence2": "sentence2"}),
}
_SPLIT_FILE = {"train": "train.tsv", "validation": "dev.tsv"}

# Hub tasks: (dataset path, config name) as lm-evaluation-harness loads them.
_HUB = {
    "mnli": ("nyu-mll/glue", "mnli"),
    "qnli": ("nyu-mll/glue", "qnli"),
    "qqp": ("nyu-mll/glue", "qqp"),
    "hellaswag": ("Rowan/hellaswag", None),
}

OFFLINE_TASKS = ("sst2", "rte", "wnli", "mrpc")
# Split sizes of the HF datasets (paper Table 2; HF dataset cards). Checked against the
# offline files by tests/test_glue.py; used where only the size is needed (no download).
SPLIT_SIZES: dict[tuple[str, str], int] = {
    ("sst2", "train"): 67349,
    ("sst2", "validation"): 872,
    ("rte", "train"): 2490,
    ("rte", "validation"): 277,
    ("wnli", "train"): 635,
    ("wnli", "validation"): 71,
    ("mrpc", "train"): 3668,
    ("mrpc", "validation"): 408,
    ("mnli", "train"): 392702,
    ("mnli", "validation_matched"): 9815,
    ("qnli", "train"): 104743,
    ("qnli", "validation"): 5463,
    ("qqp", "train"): 363846,
    ("qqp", "validation"): 40430,
    ("hellaswag", "train"): 39905,
    ("hellaswag", "validation"): 10042,
}
# The evaluation split of each task (lm-evaluation-harness `validation_split`).
EVAL_SPLIT = {t: "validation_matched" if t == "mnli" else "validation" for t in LABEL_NAMES}
TASKS = OFFLINE_TASKS + tuple(_HUB)


class GlueDataError(RuntimeError):
    """A GLUE file is missing or malformed, or a hub-only task was requested offline."""


def default_root() -> Path:
    """The glue bundle of the released-data mirror ($EVALSCI_MIRROR/glue)."""
    mirror = os.environ.get(MIRROR_ENV)
    if not mirror:
        raise GlueDataError(
            f"no GLUE directory given and {MIRROR_ENV} is unset: pass root= (the `glue` released "
            "bundle, resources/released/glue) or set the mirror"
        )
    return Path(mirror) / "glue"


def load_glue(task: str, split: str, root: str | os.PathLike | None = None) -> list[dict]:
    """Examples of `task` (`sst2`, `rte`, `wnli`, `mrpc`, `mnli`, `qnli`, `qqp`, `hellaswag`)
    and `split` (`train`, `validation`; `validation_matched` etc. for hub tasks) as a list of
    dicts with the HF features, `idx` and an int `label`.

    `root` is the `glue` released bundle directory (default $EVALSCI_MIRROR/glue).
    """
    if task in _HUB:
        return _load_hub(task, split)
    if task not in OFFLINE_TASKS:
        raise GlueDataError(f"unknown task {task!r}; known: {list(TASKS)}")
    if split not in _SPLIT_FILE:
        raise GlueDataError(
            f"split {split!r} of {task} is not available offline; use one of {list(_SPLIT_FILE)}"
        )
    root = Path(root) if root is not None else default_root()
    if task == "mrpc":
        return _load_mrpc(root, split)
    folder, features = _OFFLINE[task]
    return _load_tsv(root / folder / _SPLIT_FILE[split], features, LABEL_NAMES[task])


def label_counts(examples: list[dict], task: str) -> dict[str, int]:
    """{label name: count}, in label-id order."""
    names = LABEL_NAMES[task]
    return {name: sum(e["label"] == i for e in examples) for i, name in enumerate(names)}


@contextlib.contextmanager
def _open(path: Path):
    """The file for reading; any failure while it is read names it (and a file of a fetched
    bundle is first checked against the bundle's SHA256SUMS)."""
    if not path.is_file():
        raise GlueDataError(f"GLUE file missing: {path}")
    try:
        verify_file(path)
    except ReleasedDataError as e:
        raise GlueDataError(str(e)) from None
    try:
        # utf-8-sig drops the BOM that MRPC's file starts with (the HF builder seeks past it).
        with open(path, encoding="utf-8-sig", newline="") as fh:
            yield fh
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise GlueDataError(f"cannot read {path}: {type(e).__name__}: {e}") from e


def _load_tsv(path: Path, features: dict[str, str], names: tuple[str, ...]) -> list[dict]:
    out = []
    with _open(path) as fh:
        reader = csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
        missing = {*features.values(), "label"} - set(reader.fieldnames or ())
        if missing:
            raise GlueDataError(f"{path}: missing columns {sorted(missing)}")
        for n, row in enumerate(reader):
            example = {feat: row[col] for feat, col in features.items()}
            example["label"] = _label(row["label"], names, path, n)
            example["idx"] = n
            # The HF builder drops rows with a missing field (None from DictReader).
            if all(v is not None for v in example.values()):
                out.append(example)
    return out


def _label(value: str | None, names: tuple[str, ...], path: Path, n: int) -> int | None:
    if value is None or value == "":
        return None
    if value in names:
        return names.index(value)
    try:
        label = int(value)
    except ValueError:
        raise GlueDataError(f"{path} row {n}: label {value!r} is not one of {names}") from None
    if not 0 <= label < len(names):
        raise GlueDataError(f"{path} row {n}: label {label} out of range for {names}")
    return label


def _load_mrpc(root: Path, split: str) -> list[dict]:
    dev_path, train_path = root / "MRPC" / "dev_ids.tsv", root / "MRPC" / "msr_paraphrase_train.txt"
    with _open(dev_path) as fh:
        dev_ids = {
            (row[0], row[1]) for row in csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
        }
    out = []
    with _open(train_path) as fh:
        reader = csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
        need = {"Quality", "#1 ID", "#2 ID", "#1 String", "#2 String"}
        if not need <= set(reader.fieldnames or ()):
            raise GlueDataError(
                f"{train_path}: missing columns {sorted(need - set(reader.fieldnames or ()))}"
            )
        for n, row in enumerate(reader):
            if ((row["#1 ID"], row["#2 ID"]) in dev_ids) == (split == "validation"):
                out.append(
                    {
                        "sentence1": row["#1 String"],
                        "sentence2": row["#2 String"],
                        "label": _label(row["Quality"], LABEL_NAMES["mrpc"], train_path, n),
                        "idx": n,
                    }
                )
    return out


def _load_hub(task: str, split: str) -> list[dict]:
    path, name = _HUB[task]
    offline = (
        os.environ.get("HF_DATASETS_OFFLINE") == "1" or os.environ.get("HF_HUB_OFFLINE") == "1"
    )
    if offline:
        raise GlueDataError(
            f"{task} is not in the offline GLUE bundle and loads from the Hugging Face hub "
            f"({path}{'/' + name if name else ''}), but HF_DATASETS_OFFLINE/HF_HUB_OFFLINE is set. "
            "Run online (unset them) or restrict the study to the offline tasks "
            f"{list(OFFLINE_TASKS)}."
        )
    try:
        import datasets
    except ImportError as e:  # pragma: no cover - the lm extra installs it
        raise GlueDataError(f"{task} needs the `datasets` package (pip install evalsci[lm])") from e
    try:
        from evalsci.pipeline import hublock

        rev = hublock.revision(path, "dataset")  # the commit locked at the first load
        ds = datasets.load_dataset(path, name, split=split, **({"revision": rev} if rev else {}))
        hublock.record(path, "dataset", rev)
    except Exception as e:
        raise GlueDataError(
            f"could not load {task} ({path}, {name}, split {split!r}) from the hub: {e}"
        ) from e
    rows = [dict(r) for r in ds]
    for n, r in enumerate(rows):
        r.setdefault("idx", n)
        r["label"] = int(r["label"])
    return rows
