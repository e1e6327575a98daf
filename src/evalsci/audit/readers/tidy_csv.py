"""The tidy CSV: one row per score (model, task[, run]), read in streamed blocks.

Columns (names case-sensitive; spaces around names and values are ignored; a UTF-8 byte-order
mark is allowed):

    model, task, n            required
    accuracy | correct        one of them: an accuracy in [0, 1], or the count of correct items
    choices | labels          one of them: the number of options of every item, or JSON label
                              counts {"options": items} summing to n
    t                         optional: the number of tries the score was selected from
    run                       optional: which run of (model, task) the row is (prompt, seed, ...)
    metric                    optional: the metric's name, passed to the output

Rules, each an error naming the file, the line and the reason:
  - one row per (model, task, run): a second row with the same key is a duplicate, conflicting or
    not (a duplicate would otherwise raise t by one); the error names both lines;
  - an accuracy must be k/n for an integer k, to the precision it is written with: with d
    decimals shown (0.333: d = 3), |k/n - accuracy| <= 0.5 * 10^-d for k = round(accuracy * n).
    0.333 with n = 3 is 1/3; 0.5 with n = 3 is no count (1/3 = 0.333, 2/3 = 0.667). The bound
    is inclusive (a tie rounds either way). Where several counts give the value (0.33 with
    n = 1000: 325 to 335), the nearest is used and the note gives the range. Every row with an
    accuracy is marked `derived` (its count comes from the accuracy);
  - n, correct, choices, t are integers (t >= 1, n >= 1, 0 <= correct <= n); labels sum to n.

The file is parsed by pyarrow in blocks of 4 MB (rows are converted block by block and only
their numeric columns kept), so memory grows with the number of rows, not with the text. Each
block's columns come dictionary-encoded (`_Col`): a field is trimmed, parsed and checked once
per distinct text of its block (a million rows hold a hundred tasks and a few thousand
accuracies), and only the results are gathered to the rows.
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd

from ..columns import FRAME_COLUMNS
from ..frames import labels_json
from ..records import AuditInputError

REQUIRED = (("model",), ("task",), ("n",), ("accuracy", "correct"), ("choices", "labels"))
OPTIONAL = ("t", "run", "metric")
BLOCK = 4 << 20


def _header(path: Path) -> list[str]:
    try:
        with open(path, encoding="utf-8-sig", newline="") as fh:
            first = fh.readline()
    except UnicodeDecodeError as e:
        raise AuditInputError(f"{path}:1: not UTF-8 ({e.reason} at byte {e.start})") from None
    except OSError as e:
        raise AuditInputError(f"{path}: cannot read ({e})") from None
    row = next(csv.reader([first]), [])
    return [c.strip() for c in row]


def check_columns(path: Path, cols: list[str]) -> None:
    dup = sorted({c for c in cols if cols.count(c) > 1 and c})
    if dup:
        raise AuditInputError(f"{path}:1: column(s) {dup} appear twice in the header")
    have = set(cols)
    for alts in REQUIRED:
        got = [a for a in alts if a in have]
        if not got:
            raise AuditInputError(f"{path}:1: missing column {' or '.join(alts)}")
        if len(got) > 1:
            raise AuditInputError(f"{path}:1: give only one of columns {' and '.join(got)}")


def _physical_lines(path: Path):
    """(line number, fields) of every row, by Python's csv module: the slow, exact reading
    used only to name the line of a problem pyarrow reports without one."""
    with open(path, encoding="utf-8-sig", newline="") as fh:
        reader = csv.reader(fh)
        start = 1
        for row in reader:
            yield start, row
            start = reader.line_num + 1


def _locate_bad_row(path: Path, ncols: int) -> None:
    for line, row in _physical_lines(path):
        if row and len(row) != ncols:
            raise AuditInputError(
                f"{path}:{line}: {len(row)} fields, the header has {ncols}: {','.join(row)!r}"
            )
        if any("\n" in v or "\r" in v for v in row):
            raise AuditInputError(f"{path}:{line}: a quoted value spans lines")


def _locate_bad_utf8(path: Path) -> None:
    with open(path, "rb") as fh:
        for line, raw in enumerate(fh, 1):
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError as e:
                raise AuditInputError(
                    f"{path}:{line}: not UTF-8 ({e.reason} at byte {e.start} of the line)"
                ) from None


def _scan(path: Path) -> tuple[int, int | None]:
    """(an upper bound on the number of data rows, the number of physical lines if no line
    ends in a carriage return, else None), in 8 MB pieces."""
    newlines, returns, last = 0, 0, b""
    piece = bytearray(8 << 20)  # one buffer read into: no fresh 8 MB (and its pages) a read
    with open(path, "rb", buffering=0) as fh:
        while got := fh.readinto(piece):
            newlines += piece.count(b"\n", 0, got)
            returns += piece.count(b"\r", 0, got)
            last = piece[got - 1 : got]
    lines = None if returns else newlines + (last not in (b"\n", b""))
    return newlines + returns + 1, lines


def _blank_lines(path: Path) -> list[int]:
    """The line numbers of empty lines: pyarrow skips them; the line numbers of the rows after
    one must count it. Looked for only when the rows read fall short of the lines (`_Where`),
    and then first by a search for a newline pair."""
    found, last = False, b"\n"
    with open(path, "rb") as fh:
        while piece := fh.read(8 << 20):
            data = last + piece
            found = found or any(p in data for p in (b"\n\n", b"\n\r\n", b"\r\r"))
            last = piece[-1:]
    if not found:
        return []
    with open(path, "rb") as fh:
        return [i for i, raw in enumerate(fh, 1) if not raw.strip()]


def _lines(nrows: int, blanks: list[int]) -> np.ndarray:
    """Physical line of each data row (the header is line 1)."""
    line = np.arange(2, nrows + 2, dtype=np.int64)
    for b in blanks:  # increasing: each blank line pushes every row at or after it down one
        line[line >= b] += 1
    return line


class _Where:
    """Names the line of a row from its index in the file. The blank lines are looked for
    when a line is first named, or when the rows read are fewer than the lines (`settle`)."""

    def __init__(self, path: Path):
        self.path, self._blanks = path, None

    @property
    def blanks(self) -> list[int]:
        if self._blanks is None:
            self._blanks = _blank_lines(self.path)
        return self._blanks

    def settle(self, rows: int, lines: int | None) -> list[int]:
        """The blank lines, given `rows` read of a file of `lines` physical lines: none when
        every line after the header was a row (no empty line, no value spanning lines)."""
        if self._blanks is None and lines is not None and rows == lines - 1:
            self._blanks = []
        return self.blanks

    def __call__(self, row: int) -> str:
        return f"{self.path}:{int(_lines(row + 1, self.blanks)[row])}"


class _Col:
    """One block's text column as (a code per row, its distinct texts as Arrow strings)."""

    def __init__(self, arr, trim: bool):
        import pyarrow as pa
        import pyarrow.compute as pc

        if not pa.types.is_dictionary(arr.type):
            arr = pc.dictionary_encode(arr)
        codes, words = arr.indices.to_numpy(zero_copy_only=False), arr.dictionary
        if trim:
            words = pc.utf8_trim_whitespace(words)
            enc = pc.dictionary_encode(words)  # ' a' and 'a' are one text once trimmed
            if len(enc.dictionary) < len(words):
                codes = enc.indices.to_numpy(zero_copy_only=False)[codes]
                words = enc.dictionary
        self.codes, self.words = codes, words

    def __len__(self) -> int:
        return len(self.codes)

    def rows(self, per_word: np.ndarray) -> np.ndarray:
        """A value per distinct text -> the value of each row."""
        return per_word[self.codes]

    def first(self, per_word: np.ndarray) -> int:
        """The first row whose text is flagged (`per_word`: a bool per distinct text)."""
        return int(np.flatnonzero(per_word[self.codes])[0])

    def text(self, row: int) -> str:
        return self.words[int(self.codes[row])].as_py()


def _numbers(col: _Col, field: str, where, offset: int) -> np.ndarray:
    """A column's distinct texts (trimmed) -> float64, one per text, '' -> NaN. Arrow parses;
    only when it fails are the texts looked at one by one, to name the line."""
    import pyarrow as pa
    import pyarrow.compute as pc

    words = col.words
    nulled = pc.if_else(pc.equal(words, ""), pa.scalar(None, pa.string()), words)
    try:
        return pc.cast(nulled, pa.float64()).to_numpy(zero_copy_only=False)
    except pa.ArrowInvalid:
        pass
    bad = np.zeros(len(words), dtype=bool)
    for j, v in enumerate(words.to_pylist()):
        if v == "":
            continue
        try:
            float(v)
        except ValueError:
            bad[j] = True
    if bad.any():
        i = col.first(bad)
        raise AuditInputError(
            f"{where(offset + i)}: field {field!r} is not a number: {col.text(i)!r}"
        )
    raise AuditInputError(f"{where(offset)}: field {field!r}: cannot read numbers")


#: the largest n and number of options read (docs/audit.md): the exact baselines of a larger n
#: sum more terms than evalsci.maxrandom evaluates (n = 10^12 took 171 s before it was
#: refused), and a count read as float64 is exact only below 2^53 (choices >= 2^63 wrapped
#: to a negative number in an error message)
MAX_COUNT = {"n": 10**10, "correct": 10**10, "choices": 10**9}


def _integers(num, col: _Col, field, where, offset, minimum, allow_empty=False) -> np.ndarray:
    """`num` (one per distinct text of `col`) checked as whole numbers >= minimum."""
    empty = np.isnan(num)
    bad = (~np.isfinite(num) | (num != np.floor(num)) | (num < minimum)) & ~(empty & allow_empty)
    if bad.any():
        i = col.first(bad)
        raise AuditInputError(
            f"{where(offset + i)}: field {field!r} must be an integer >= {minimum}, "
            f"got {_shown(col.text(i))}"
        )
    big = num > MAX_COUNT.get(field, 2**53)
    if big.any():
        i = col.first(big)
        raise AuditInputError(
            f"{where(offset + i)}: field {field!r} = {_shown(col.text(i))} is more than "
            f"{MAX_COUNT.get(field, 2**53):,}, the largest {field} the audit reads (docs/audit.md)"
        )
    return num


def _shown(text) -> str:
    """A cell as the message shows it: repr, cut to 40 characters (a 5,000-digit number)."""
    r = repr(text)
    return r if len(r) <= 40 else f"{r[:30]}...({len(str(text))} characters)"


def _int_column(col: dict, field: str, where, offset: int, minimum: int, allow_empty=False):
    """A block's column of whole numbers >= minimum, at most MAX_COUNT[field] (float64 per
    row; NaN where empty and allowed)."""
    c = col[field]
    num = _numbers(c, field, where, offset)
    return c.rows(_integers(num, c, field, where, offset, minimum, allow_empty=allow_empty))


def _decimals(text: str) -> int:
    """Decimals an accuracy is written with: '0.333' -> 3, '1' -> 0, '3.3e-01' -> 2."""
    t = text.lower()
    mant, _, exp = t.partition("e")
    d = len(mant.split(".", 1)[1]) if "." in mant else 0
    return max(0, d - int(exp)) if exp else d


def _from_accuracy(col: _Col, n, where, offset):
    """(correct, accuracy, notes) for a block of accuracies, by the module docstring's rule;
    notes: {row: text} for the rows that have one (few: a million rows do not carry a million
    empty strings)."""
    import pyarrow.compute as pc

    acc_w = _numbers(col, "accuracy", where, offset)
    bad = np.isnan(acc_w) | (acc_w < 0) | (acc_w > 1)
    if bad.any():
        i = col.first(bad)
        raise AuditInputError(
            f"{where(offset + i)}: field 'accuracy' must be a number in [0, 1], got {col.text(i)!r}"
        )
    words = col.words
    dot = pc.find_substring(words, ".").to_numpy(zero_copy_only=False)
    length = pc.utf8_length(words).to_numpy(zero_copy_only=False)
    d_w = np.where(dot >= 0, length - dot - 1, 0)
    sci = pc.match_substring(words, "e", ignore_case=True).to_numpy(zero_copy_only=False)
    for j in np.flatnonzero(sci):
        d_w[j] = _decimals(words[int(j)].as_py())
    acc, d = col.rows(acc_w), col.rows(d_w)
    k = np.floor(acc * n + 0.5)
    tol = 0.5 * np.power(10.0, -d.astype(float)) + 1e-12
    off = np.abs(k / n - acc)
    bad = off > tol
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise AuditInputError(
            f"{where(offset + i)}: accuracy {col.text(i)} is no count of n = {int(n[i])} "
            f"items (to the {int(d[i])} decimals given: the nearest, {int(k[i])}/{int(n[i])} = "
            f"{k[i] / n[i]:.6g}, is off by {off[i]:.3g})"
        )
    kmin = np.ceil((acc - tol) * n - 1e-9)
    kmax = np.floor((acc + tol) * n + 1e-9)
    notes = {}
    for i in map(int, np.flatnonzero(kmax > kmin)):
        notes[i] = (
            f"accuracy {col.text(i)} is written with {int(d[i])} decimals: {int(kmin[i])} "
            f"to {int(kmax[i])} correct of {int(n[i])} all give it; judged at {int(k[i])}"
        )
    return k.astype(np.int64), acc, notes


def _labels_block(col: _Col, n, where, offset):
    """(choices, labels) columns from a block of JSON label counts (each distinct text parsed
    once)."""
    codes, uniq = col.codes, col.words.to_pylist()
    parsed = []
    for j, text in enumerate(uniq):
        try:
            obj = json.loads(text)
            if not isinstance(obj, dict) or not obj:
                raise TypeError
            lab = {}
            for key, v in obj.items():
                kk, vv = float(key), float(v)
                if not (kk.is_integer() and kk >= 1 and vv.is_integer() and vv >= 0):
                    raise TypeError
                if vv:
                    lab[int(kk)] = lab.get(int(kk), 0) + int(vv)
            if not lab:
                raise TypeError
        except (TypeError, ValueError):
            i = int(np.flatnonzero(codes == j)[0])
            raise AuditInputError(
                f"{where(offset + i)}: field 'labels' must be a JSON object "
                f'{{"options": items}} of integers, got {text!r}'
            ) from None
        parsed.append(
            (
                sum(lab.values()),
                *((next(iter(lab)), "") if len(lab) == 1 else (0, labels_json(lab))),
            )
        )
    total = np.array([p[0] for p in parsed], dtype=float)[codes]
    bad = total != n
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise AuditInputError(
            f"{where(offset + i)}: field 'labels' counts {int(total[i])} items but n = {int(n[i])}"
        )
    choices = np.array([p[1] for p in parsed], dtype=np.int64)[codes]
    labels = np.array([p[2] for p in parsed], dtype=object)[codes]
    return choices, labels


def _convert_block(col: dict, have: set, where, offset: int) -> dict:
    """One block's text columns (`_Col`s, trimmed) -> its columns of a results frame,
    checked; model, task, run and metric stay `_Col`s."""
    import pyarrow.compute as pc

    size = len(col["model"])
    for key in ("model", "task"):
        empty = pc.equal(col[key].words, "").to_numpy(zero_copy_only=False)
        if empty.any():
            i = col[key].first(empty)
            raise AuditInputError(f"{where(offset + i)}: field {key!r} is empty")
    for key in ("model", "task", "run", "metric"):  # a NUL or an escape code in a name would
        if key not in have:  # go on to every table and terminal that shows it
            continue
        control = pc.match_substring_regex(col[key].words, r"[\x00-\x1f\x7f]")
        control = control.to_numpy(zero_copy_only=False)
        if control.any():
            i = col[key].first(control)
            raise AuditInputError(
                f"{where(offset + i)}: field {key!r} holds a control character: "
                f"{col[key].text(i)!r}"
            )
    out = {key: col.get(key) for key in ("model", "task", "run", "metric")}
    n = _int_column(col, "n", where, offset, 1)
    if "accuracy" in have:
        correct, acc, notes = _from_accuracy(col["accuracy"], n, where, offset)
    else:
        correct = _int_column(col, "correct", where, offset, 0)
        over = correct > n
        if over.any():
            i = int(np.flatnonzero(over)[0])
            raise AuditInputError(
                f"{where(offset + i)}: field 'correct' = {int(correct[i])} exceeds n = {int(n[i])}"
            )
        acc, notes = np.full(size, np.nan), {}
    if "choices" in have:
        choices = _int_column(col, "choices", where, offset, 1).astype(np.int64)
        labels = np.full(size, "", dtype=object)
    else:
        choices, labels = _labels_block(col["labels"], n, where, offset)
    # an item of one option is always answered right: fewer correct than such items is no score
    # (labels: `choices` holds the one number of options, or 0 and `labels` the mixed counts)
    mixed = np.zeros(size)
    if (choices == 0).any():  # each distinct text parsed once, not a million rows in Python
        codes, uniq = pd.factorize(labels[choices == 0])
        ones = [json.loads(x).get("1", 0) for x in uniq]
        mixed[choices == 0] = np.asarray(ones, dtype=float)[codes]
    single = np.where(choices == 1, n, mixed)
    short = np.asarray(correct) < single
    if short.any():
        i = int(np.flatnonzero(short)[0])
        raise AuditInputError(
            f"{where(offset + i)}: {int(single[i])} of n = {int(n[i])} items have one option "
            f"(always correct), but only {int(np.asarray(correct)[i])} are correct"
        )
    if "t" in have:
        t = _int_column(col, "t", where, offset, 1, allow_empty=True)
    else:
        t = np.full(size, np.nan)
    out |= {
        "n": n.astype(np.int64),
        "correct": np.asarray(correct, np.int64),
        "accuracy": acc,
        "choices": choices,
        "labels": labels,
        "t": t,
        "notes": notes,
    }
    return out


def _open(path: Path, cols: list[str], on_invalid):
    import pyarrow as pa
    import pyarrow.csv as pcsv

    names = [c or f"_{i}" for i, c in enumerate(cols)]
    wanted = {a for r in REQUIRED for a in r} | set(OPTIONAL)
    try:
        return pcsv.open_csv(
            path,
            # one thread: the streaming reader parses a block at a time anyway, and its
            # conversion threads doubled the CPU time of reading a million rows (wall no less)
            read_options=pcsv.ReadOptions(
                block_size=BLOCK, skip_rows=1, column_names=names, use_threads=False
            ),
            parse_options=pcsv.ParseOptions(invalid_row_handler=on_invalid),
            convert_options=pcsv.ConvertOptions(
                column_types={c: pa.dictionary(pa.int32(), pa.string()) for c in names},
                strings_can_be_null=False,
                include_columns=[c for c in cols if c in wanted],
            ),
        )
    except pa.ArrowInvalid as e:
        if "Empty CSV file" in str(e):
            raise AuditInputError(f"{path}: no rows") from None
        _arrow_error(path, e, len(cols))


def _arrow_error(path: Path, e: Exception, ncols: int):
    """Name the line of a problem pyarrow reports without one, or at least the file."""
    if "utf8" in str(e).lower():
        _locate_bad_utf8(path)
    _locate_bad_row(path, ncols)
    raise AuditInputError(f"{path}: cannot read CSV ({e})") from None


def _read_blocks(reader, path, cols, rows_bound, where):
    """(text columns as `_Col` blocks, numeric columns filled in place, rows read)."""
    import pyarrow as pa

    have = set(cols)
    parts: dict[str, list] = {k: [] for k in ("model", "task", "run", "metric")}
    # numeric columns are filled in place (no list of blocks to concatenate: half the peak)
    nums = {k: np.empty(rows_bound, np.int64) for k in ("n", "correct", "choices")}
    nums |= {k: np.empty(rows_bound) for k in ("accuracy", "t")}
    nums |= {"labels": np.empty(rows_bound, dtype=object)}
    notes = {}  # {row: text}, the few rows with a note
    offset = 0
    try:
        for batch in reader:
            size = batch.num_rows
            col = {name: _Col(batch.column(name), trim=True) for name in batch.schema.names}
            for key, v in _convert_block(col, have, where, offset).items():
                if key in parts:
                    parts[key].append(v)
                elif key == "notes":
                    notes.update((offset + i, text) for i, text in v.items())
                else:
                    nums[key][offset : offset + size] = v
            offset += size
    except pa.ArrowInvalid as e:
        _arrow_error(path, e, len(cols))
    return parts, {k: v[:offset] for k, v in nums.items()} | {"notes": notes}, offset


def read_frame(path: str | Path) -> pd.DataFrame:
    """The scores of one tidy CSV as a results frame (columns.FRAME_COLUMNS)."""
    path = Path(path)
    cols = _header(path)
    check_columns(path, cols)
    rows_bound, lines = _scan(path)
    where = _Where(path)
    invalid = []

    def on_invalid(row):
        invalid.append(row)
        return "skip"

    reader = _open(path, cols, on_invalid)
    parts, nums, offset = _read_blocks(reader, path, cols, rows_bound, where)
    if invalid:
        _locate_bad_row(path, len(cols))
        raise AuditInputError(
            f"{path}: a row has {invalid[0].actual_columns} fields, the header {len(cols)}"
        )
    if offset == 0:
        raise AuditInputError(f"{path}: no rows")
    model, task = _categorical(parts["model"]), _categorical(parts["task"])
    run, metric = (
        _categorical(parts[k])
        if parts[k][0] is not None
        else pd.Categorical.from_codes(np.zeros(offset, dtype=np.int8), categories=[""])
        for k in ("run", "metric")
    )
    for cat in (model, task, run, metric):
        if any("\n" in v or "\r" in v for v in cat.categories):
            _locate_bad_row(path, len(cols))
    line = _lines(offset, where.settle(offset, lines))
    _check_duplicates(path, model, task, run, line)
    source = pd.Categorical.from_codes(np.zeros(offset, dtype=np.int8), categories=[str(path)])
    return _results_frame(model, task, run, metric, nums, source, line, "accuracy" in cols)


def _results_frame(model, task, run, metric, nums: dict, source, line, derived: bool):
    """The columns of a results frame (columns.FRAME_COLUMNS) from a tidy CSV's converted
    columns (`nums`: n, correct, choices, labels, accuracy, t; notes as {row: text})."""
    frame = pd.DataFrame(
        {
            "model": model,
            "task": task,
            "n": np.asarray(nums["n"]).astype(np.int64, copy=False),
            "correct": np.asarray(nums["correct"]).astype(np.int64, copy=False),
            "choices": nums["choices"],
            "labels": pd.Series(nums["labels"], dtype=object, copy=False),
            "source": source,
            "line": line,
            "accuracy": nums["accuracy"],
            "t": nums["t"],
            "metric": metric,
            "run": run,
            "choices_source": pd.Categorical.from_codes(
                np.zeros(len(line), dtype=np.int8), categories=["csv"]
            ),
            "notes": _notes_column(len(line), nums["notes"]),
            "derived": derived,
            "limited": False,
        },
        copy=False,  # no consolidation into 2-D blocks: a copy of every column
    )
    return frame[[c for c in FRAME_COLUMNS if c in frame]]


def _notes_column(size: int, notes: dict[int, str]) -> pd.Series:
    """The notes column ('' where a row has none) from {row: text}, as pandas' Arrow-held text
    (the judged frame's note dtype): built from codes in Arrow, no Python string per row."""
    import pyarrow as pa

    codes = np.zeros(size, dtype=np.int32)
    texts = [""]
    for i, text in notes.items():
        codes[i] = len(texts)
        texts.append(text)
    words = pa.array(texts, type=pa.large_string())
    arr = pa.DictionaryArray.from_arrays(pa.array(codes), words).cast(pa.large_string())
    return pd.Series(pd.array(arr, dtype=pd.StringDtype("pyarrow", na_value=np.nan)))


def _categorical(cols: list[_Col]) -> pd.Categorical:
    """A column's blocks -> one pandas Categorical, its categories in order of first
    appearance (no Python string per row)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    enc = pc.dictionary_encode(pa.concat_arrays([c.words for c in cols]))
    remap = enc.indices.to_numpy(zero_copy_only=False)
    starts = np.cumsum([0] + [len(c.words) for c in cols[:-1]])
    codes = np.concatenate([remap[s + c.codes] for s, c in zip(starts, cols, strict=True)])
    codes, seen = pd.factorize(codes)
    return pd.Categorical.from_codes(codes, categories=enc.dictionary.take(seen).to_pylist())


def _check_duplicates(path, model, task, run, line) -> None:
    """One row per (model, task, run), by a sort of the rows' combined codes."""
    key = model.codes.astype(np.int64)
    for cat in (task, run):
        key = key * len(cat.categories) + cat.codes
    order = np.argsort(key, kind="stable")
    same = np.flatnonzero(key[order][1:] == key[order][:-1])
    if not same.size:
        return
    # the duplicate pair whose second row comes first in the file
    firsts, seconds = order[same], order[same + 1]
    k = int(np.argmin(seconds))
    a, b = int(line[firsts[k]]), int(line[seconds[k]])
    first = int(firsts[k])
    key = f"model {model[first]!r}, task {task[first]!r}"
    if run[first]:
        key += f", run {run[first]!r}"
    raise AuditInputError(
        f"{path}:{b}: duplicate of line {a} ({key}): one row per (model, task, run); "
        "a second row would count as another try (t) — remove it, or tell the runs apart "
        "with a `run` column"
    )


def read_csv(path: str | Path):
    """The scores of one tidy CSV as `Result`s (small files; the CLI judges `read_frame`)."""
    from ..records import Result

    f = read_frame(path)
    out = []
    for r in f.itertuples(index=False):
        labels = (
            {int(r.choices): int(r.n)}
            if r.choices
            else {int(k): v for k, v in json.loads(r.labels).items()}
        )
        out.append(
            Result(
                model=str(r.model),
                task=str(r.task),
                n=int(r.n),
                correct=int(r.correct),
                labels=labels,
                source=f"{r.source}:{r.line}",
                accuracy=None if math.isnan(r.accuracy) else float(r.accuracy),
                t=None if math.isnan(r.t) else int(r.t),
                metric=r.metric or None,
                derived=bool(r.derived),
                notes=(r.notes,) if r.notes else (),
                run=r.run or None,
                choices_source="csv",
            )
        )
    return out


# --- many small files --------------------------------------------------------------------------
#: tidy CSVs up to this size are read together (`read_small_frames`): one Arrow conversion and
#: one frame for all of them, instead of a pyarrow reader and a frame per file (100,000
#: one-row files took 9 minutes, then a MemoryError; one file with the same rows takes 2.5 s)
SMALL = 64 << 10


def _small_rows(path: Path) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """(header, [(line, fields)]) of a small tidy CSV by Python's csv module, each field
    trimmed; a row with another number of fields or a value spanning lines is an error naming
    the line, as in the streamed reader."""
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError:
        _locate_bad_utf8(path)
        raise
    except OSError as e:
        raise AuditInputError(f"{path}: cannot read ({e})") from None
    reader = csv.reader(text.splitlines(keepends=True))
    header, rows, start = None, [], 1
    for row in reader:
        if header is None:
            header = [c.strip() for c in row]
        elif row:
            if len(row) != len(header):
                raise AuditInputError(
                    f"{path}:{start}: {len(row)} fields, the header has {len(header)}: "
                    f"{','.join(row)!r}"
                )
            if reader.line_num != start:
                raise AuditInputError(f"{path}:{start}: a quoted value spans lines")
            rows.append((start, [v.strip() for v in row]))
        start = reader.line_num + 1
    if header is None:
        raise AuditInputError(f"{path}: no rows")
    check_columns(path, header)
    if not rows:
        raise AuditInputError(f"{path}: no rows")
    return header, rows


def read_small_frames(paths: list[Path]) -> tuple[list[pd.DataFrame], dict[Path, str]]:
    """Small tidy CSVs (at most SMALL bytes each) as results frames, one per distinct header,
    with the errors of the files that could not be read ({path: message}: the caller raises
    or skips, as for any file). Same rules and messages as `read_frame`, file by file."""
    import pyarrow as pa

    groups: dict[tuple, list] = {}
    errors: dict[Path, str] = {}
    for path in paths:
        try:
            header, rows = _small_rows(path)
        except AuditInputError as e:
            errors[path] = str(e)
            continue
        groups.setdefault(tuple(header), []).append((path, rows))
    frames = []
    wanted = {a for r in REQUIRED for a in r} | set(OPTIONAL)
    for header, files in groups.items():
        cols = [c for c in header if c in wanted]
        index = [header.index(c) for c in cols]
        owner = np.concatenate([np.full(len(rows), k) for k, (_, rows) in enumerate(files)])
        line = np.array([ln for _, rows in files for ln, _ in rows], dtype=np.int64)

        def where(row: int, files=files, owner=owner, line=line) -> str:
            return f"{files[owner[row]][0]}:{line[row]}"

        col = {
            c: _Col(pa.array([r[i] for _, rows in files for _, r in rows], pa.string()), False)
            for c, i in zip(cols, index, strict=True)
        }
        try:
            conv = _convert_block(col, set(cols), where, 0)
        except AuditInputError:  # name every failing file, as one file at a time would
            for path, _ in files:
                try:
                    frames.append(read_frame(path))
                except AuditInputError as e:
                    errors[path] = str(e)
            continue
        frames.append(_small_frame(files, owner, line, conv, cols))
    return frames, errors


def _small_frame(files, owner, line, conv, cols) -> pd.DataFrame:
    size = len(line)

    def cat(key):
        if conv.get(key) is None:
            return pd.Categorical.from_codes(np.zeros(size, dtype=np.int8), categories=[""])
        return _categorical([conv[key]])

    model, task, run, metric = (cat(k) for k in ("model", "task", "run", "metric"))
    # one row per (model, task, run) within a file, as in `read_frame`
    key = pd.DataFrame({"f": owner, "m": model.codes, "t": task.codes, "r": run.codes})
    dup = key.duplicated(keep=False).to_numpy()
    for k in np.unique(owner[dup]):
        at = np.flatnonzero(owner == k)
        _check_duplicates(files[k][0], model[at], task[at], run[at], line[at])
    paths = [str(p) for p, _ in files]
    source = pd.Categorical.from_codes(owner.astype(np.int64), categories=paths)
    return _results_frame(model, task, run, metric, conv, source, line, "accuracy" in cols)
