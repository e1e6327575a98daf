"""The 25 text-classification datasets of the tapt paper (002, Table 2), plus SST-2 offline.

Each `DatasetSpec` (one entry of the data file `hf_classification.yaml`, read by
`load_specs`) records how the author (kddubey/pretrain-on-test, `src/pretrain_on_test/
data.py`) turns one Hugging Face dataset into a frame with a `text` (non-empty str) and a
`label` (0..K-1) column: hub path and config, text column(s), label column and mapping,
filters, and the class names and one-line task description used in the zero-shot prompts.
The key of each spec is the results-directory name the author used (the hub name without
its owner, e.g. `SetFit/enron_spam` -> `enron_spam`), so our recompute tree and the
released accuracies share dataset names.

Loading (`load_frame`):
- `data_files=` reads local files through `datasets` (csv/tsv, json/jsonl, parquet) and then
  applies the same processing. This is the offline path: no hub is reachable here.
- `sst2` (the embedded default) reads the GLUE SST-2 train file of the `glue` released
  bundle through `evalsci.data.glue`, parsed as the HF `glue` builder parses it.
- otherwise `datasets.load_dataset(hub, config, split="train")`, falling back to split
  "test" when there is no train split (climate_fever), as the author's `_loader_hf` does.
  No hub repository's code runs: `datasets>=4` (pyproject) removed loading scripts, so
  neither the author's `trust_remote_code=True` nor a script-based repository can run one
  (a repository that still holds only a script fails to load; its parquet conversion,
  `revision="refs/convert/parquet"`, can be named in the spec instead).

The frame keeps the row index of the full (processed) split: it is the authors'
`index_from_full_split`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import yaml

# The author filters some very long texts out: only texts with < 1000 characters are kept.
NUM_CHARACTERS_MAX = 1000


class ClassificationDataError(ValueError):
    """A classification dataset is unknown, unreadable, or does not give valid text/labels."""


@dataclass(frozen=True)
class DatasetSpec:
    key: str  # results-directory name (hub name without owner)
    hub: str  # `datasets.load_dataset` path
    class_names: tuple[str, ...]  # class_names[label] as used in the zero-shot prompt
    task_description: str  # one line, "The text is ... Answer with ..."
    config: str | None = None  # `datasets` config (subset) name
    text: tuple[str, ...] = ("text",)  # column(s); several are joined with `text_sep`
    text_sep: str = "\n"
    label: str = "label"  # label column
    label_map: dict | None = None  # raw label -> 0..K-1 (None: labels are already ints)
    label_shift: int = 0  # added to the (int) label, e.g. star 1..5 -> 0..4
    max_chars: int | None = None  # keep rows with len(text) < max_chars
    drop_empty: bool = False  # drop rows with missing or empty text
    split: str = "train"
    revision: str | None = (
        None  # hub commit/tag/branch; None: the one locked (evalsci.pipeline.hublock)
    )
    paper: bool = True  # one of the 25 tasks of paper Table 2
    source: str = "hub"  # "hub" or "glue" (the offline GLUE bundle)
    tags: tuple[str, ...] = field(default=())

    @property
    def num_classes(self) -> int:
        return len(self.class_names)


SPECS_FILE = Path(__file__).with_name("hf_classification.yaml")
_TUPLE_FIELDS = ("class_names", "text", "tags")


def load_specs(path: Path = SPECS_FILE) -> dict[str, DatasetSpec]:
    """The specs of `path` (a YAML list of DatasetSpec fields), by key, in file order."""
    entries = yaml.safe_load(path.read_text())
    if not isinstance(entries, list):
        raise ClassificationDataError(f"{path}: expected a list of dataset specs")
    specs: dict[str, DatasetSpec] = {}
    for n, entry in enumerate(entries):
        kw = dict(entry)
        for name in _TUPLE_FIELDS:
            if name in kw:
                kw[name] = tuple(kw[name])
        if kw.pop("drop_long", False):
            kw["max_chars"] = NUM_CHARACTERS_MAX
        try:
            spec = DatasetSpec(**kw)
        except TypeError as e:
            raise ClassificationDataError(f"{path}: entry {n} ({entry.get('key')}): {e}") from e
        if spec.key in specs:
            raise ClassificationDataError(f"{path}: entry {n}: duplicate key {spec.key!r}")
        specs[spec.key] = spec
    return specs


SPECS: dict[str, DatasetSpec] = load_specs()
PAPER_DATASETS: tuple[str, ...] = tuple(k for k, s in SPECS.items() if s.paper)


def get_spec(key: str) -> DatasetSpec:
    """The spec of dataset `key` (a results-directory name, or a hub name with owner)."""
    if key in SPECS:
        return SPECS[key]
    by_hub = {s.hub: s for s in SPECS.values()}
    if key in by_hub:
        return by_hub[key]
    raise ClassificationDataError(f"unknown classification dataset {key!r}; known: {sorted(SPECS)}")


def process(spec: DatasetSpec, raw: pd.DataFrame, origin: str = "") -> pd.DataFrame:
    """Turn a raw frame into the canonical (text, label) frame, keeping the row index."""
    where = f" ({origin})" if origin else ""
    missing = [c for c in (*spec.text, spec.label) if c not in raw.columns]
    if missing:
        raise ClassificationDataError(
            f"{spec.key}{where}: missing columns {missing}; has {list(raw.columns)}"
        )
    if len(spec.text) == 1:
        text = raw[spec.text[0]]
    else:  # e.g. yahoo: title + "\n" + content (NaN in any part gives NaN, as pandas does)
        text = raw[spec.text[0]].str.cat([raw[c] for c in spec.text[1:]], sep=spec.text_sep)
    label = raw[spec.label]
    if spec.label_map is not None:
        unknown = set(label.dropna().unique()) - set(spec.label_map)
        if unknown:
            raise ClassificationDataError(
                f"{spec.key}{where}: labels {sorted(map(str, unknown))} not in {spec.label_map}"
            )
        label = label.map(spec.label_map)
    df = pd.DataFrame({"text": text, "label": label}, index=raw.index)
    keep = pd.Series(True, index=df.index)
    if spec.drop_empty:
        keep &= df["text"].fillna("").astype(str).str.len() > 0
    if spec.max_chars is not None:
        keep &= df["text"].fillna("").astype(str).str.len() < spec.max_chars
    df = df[keep]
    bad_text = df["text"].isna() | (df["text"].astype(str).str.len() == 0)
    if bad_text.any():
        raise ClassificationDataError(
            f"{spec.key}{where}: {int(bad_text.sum())} empty or missing texts "
            f"(first row index {df.index[bad_text.to_numpy()][0]})"
        )
    if df["label"].isna().any():
        raise ClassificationDataError(f"{spec.key}{where}: missing labels")
    df["label"] = df["label"].astype(int) + spec.label_shift
    out_of_range = ~df["label"].between(0, spec.num_classes - 1)
    if out_of_range.any():
        raise ClassificationDataError(
            f"{spec.key}{where}: labels {sorted(df.loc[out_of_range, 'label'].unique())} "
            f"outside 0..{spec.num_classes - 1} ({spec.num_classes} class names)"
        )
    df["text"] = df["text"].astype(str)
    df.index.name = "index_from_full_split"
    return df


_BUILDERS = {".csv": "csv", ".tsv": "csv", ".json": "json", ".jsonl": "json", ".parquet": "parquet"}


def _read_local(paths: list[Path]):
    import datasets

    suffixes = {
        p.suffixes[-2] if p.suffix == ".gz" and len(p.suffixes) > 1 else p.suffix for p in paths
    }
    if len(suffixes) != 1 or next(iter(suffixes)) not in _BUILDERS:
        raise ClassificationDataError(
            f"local data files {[str(p) for p in paths]}: need one type among {sorted(_BUILDERS)}"
        )
    for p in paths:
        if not p.is_file():
            raise ClassificationDataError(f"local data file missing: {p}")
    suffix = suffixes.pop()
    kwargs = {"delimiter": "\t"} if suffix == ".tsv" else {}
    ds = datasets.load_dataset(
        _BUILDERS[suffix], data_files=[str(p) for p in paths], split="train", **kwargs
    )
    return ds.to_pandas()


def _read_hub(spec: DatasetSpec):
    import datasets

    from evalsci.pipeline import hublock

    # the commit given in the spec, else the one locked at the first load (evalsci.pipeline.hublock)
    rev = hublock.revision(spec.hub, "dataset", spec.revision)
    kwargs = {"revision": rev} if rev else {}
    try:
        ds = datasets.load_dataset(spec.hub, spec.config, split=spec.split, **kwargs)
    except ValueError as e:  # the author's fallback: no train split -> test
        if spec.split != "train" or "split" not in str(e).lower():
            raise
        ds = datasets.load_dataset(spec.hub, spec.config, split="test", **kwargs)
    except Exception as e:
        offline = (
            os.environ.get("HF_DATASETS_OFFLINE") == "1" or os.environ.get("HF_HUB_OFFLINE") == "1"
        )
        hint = (
            (
                " (HF_DATASETS_OFFLINE/HF_HUB_OFFLINE is set: pass local files through config "
                "tapt.training.data_files)"
            )
            if offline
            else ""
        )
        raise ClassificationDataError(
            f"could not load {spec.key} ({spec.hub}, config {spec.config}) from the hub{hint}: {e}"
        ) from e
    hublock.record(spec.hub, "dataset", rev)
    return ds.to_pandas()


def load_frame(
    key: str,
    data_files: str | os.PathLike | list | None = None,
    glue_root: str | os.PathLike | None = None,
    revision: str | None = None,
) -> pd.DataFrame:
    """The full processed split of dataset `key`: columns `text`, `label`; index
    `index_from_full_split`.

    `data_files`: local file(s) with the hub dataset's columns (read through `datasets`);
    `glue_root`: the `glue` released bundle, for `sst2` (default $EVALSCI_MIRROR/glue);
    `revision`: the hub commit, tag or branch (default: the spec's, else the locked commit).
    """
    spec = get_spec(key)
    if revision:
        import dataclasses

        spec = dataclasses.replace(spec, revision=revision)
    if data_files is not None:
        paths = [
            Path(p) for p in (data_files if isinstance(data_files, list | tuple) else [data_files])
        ]
        return process(spec, _read_local(paths), origin=", ".join(map(str, paths)))
    if spec.source == "glue":
        from evalsci.data.glue import load_glue

        rows = load_glue(spec.config, spec.split, glue_root)
        raw = pd.DataFrame(rows).set_index("idx")
        return process(spec, raw, origin=f"glue {spec.config} {spec.split}")
    return process(spec, _read_hub(spec), origin=f"{spec.hub} {spec.config or ''}".strip())
