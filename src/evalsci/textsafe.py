"""Text from other people's files, made safe to print and to open in a spreadsheet.

Model, task and item names come from files anyone can write. Two rules, documented in
docs/audit.md ("Names from files"):

- `printable(text)`: every C0 and C1 control character, DEL, and every Unicode bidirectional
  control (U+061C, U+200E-U+200F, U+202A-U+202E, U+2066-U+2069) and line or paragraph
  separator (U+2028, U+2029) becomes its Python escape (`\\x1b`, `\\u202e`). A name holding
  `ESC]0;...BEL ESC[2J` would retitle and clear the terminal; U+202E would show the rest of a
  line reversed. The audit's readers apply it to every name they return (`Result`, `Skipped`),
  so tables, CSV, JSON, ref.csv and messages all carry the escaped form.
- `csv_cell(text)`: a cell that begins with `=`, `+`, `-`, `@`, a tab or a carriage return is
  written with a leading `'` (OWASP's rule against CSV formula injection): a spreadsheet
  would otherwise evaluate it as a formula. Applied to the text columns of the CSV files
  evalsci writes from users' data (audit, reference); numbers are never touched.
"""

from __future__ import annotations

import re

__all__ = [
    "UNSAFE",
    "printable",
    "printable_all",
    "csv_cell",
    "csv_uncell",
    "csv_safe",
    "FORMULA_START",
    "FORMULA_PATTERN",
]

#: the characters `printable` escapes
UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")
#: the first characters that make a spreadsheet evaluate a cell
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
#: the same rule as a regular expression, for vectorised text (Arrow)
FORMULA_PATTERN = "^[" + re.escape("".join(FORMULA_START)) + "]"


def _escape(m: re.Match) -> str:
    c = ord(m.group())
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"


def printable(text, keep: str = ""):
    """`text` with control and bidi characters escaped, but those in `keep` (a message's own
    line breaks: keep="\n"); non-strings are returned as given."""
    if not isinstance(text, str) or not UNSAFE.search(text):
        return text
    return UNSAFE.sub(lambda m: m.group() if m.group() in keep else _escape(m), text)


def printable_all(texts):
    """`printable` over a tuple of names (items), cheap when none needs it (one search)."""
    if texts is None or not UNSAFE.search("".join(map(str, texts))):
        return texts
    return tuple(printable(t) for t in texts)


def csv_cell(text: str) -> str:
    """`text` with a leading `'` when a spreadsheet would evaluate it as a formula."""
    return "'" + text if text.startswith(FORMULA_START) else text


def csv_uncell(text: str) -> str:
    """`csv_cell` undone, for evalsci's own files read back (ref.csv by `reference predict`)."""
    return text[1:] if text[:1] == "'" and text[1:2] in FORMULA_START else text


def csv_safe(df, columns):
    """A copy of the pandas frame `df` with `csv_cell` applied to its text `columns`."""
    import pandas as pd

    out = df.copy()
    for c in columns:
        if c in out.columns and not pd.api.types.is_numeric_dtype(out[c]):
            out[c] = [csv_cell(v) if isinstance(v, str) else v for v in out[c].astype(object)]
    return out
