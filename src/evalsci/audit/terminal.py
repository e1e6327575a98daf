"""The audit for people: the default `evalsci audit` output (`--format table`).

A fixed-width table that fits the terminal (`output_width()`: $COLUMNS, else the terminal's own width,
else FALLBACK_WIDTH = 100 columns when the output is no terminal), then, each once: a summary line, the
multiplicity family, a legend of the verdicts, the notes (numbered; a row names its notes by
number), the files read and everything passed over with its reason. CSV and JSON keep every
column at full precision (output.py); this view shortens for reading:

  - models: lm-eval's `pretrained=org/name,dtype=...` -> `name`, a path -> its last part;
    where two models would then print alike, the arguments that tell them apart are kept;
  - tasks: a prefix every task shares (`leaderboard_`) is said once instead of on each row;
  - names still too long for the width are cut in the middle (`hendrycks~history`, ASCII so
    that any terminal prints it);
  - numbers rounded: accuracies to 4 decimals, baselines to 3, p-values to 3 decimals or one
    significant digit below 0.001 (the verdicts come from the exact values);
  - paths relative to the working directory where they are under it;
  - where the columns still do not fit, the least needed are left out (DROP_ORDER: p_below,
    std, p_std, t, notes) and a line under the table names them; CSV and JSON have them all.
Every line the report prints fits the width: longer text is wrapped between words, a verdict
and its count kept together.
"""

from __future__ import annotations

import os
import shutil
import textwrap

import numpy as np
import pandas as pd

from .frames import frame_labels
from .judge import VERDICT_MEANING, VERDICTS, family_line, verdict_counts
from .models import model_parts as _model_parts

WIDTH = 160  # the widest the table grows, however wide the terminal
FALLBACK_WIDTH = 100  # when $COLUMNS is unset and the output is no terminal
GAP = "  "
#: the columns left out, first to last, when the table cannot fit the width otherwise
DROP_ORDER = ("p_below", "std", "p_std", "t", "notes")


def output_width() -> int:
    """The output's width: $COLUMNS where set, else the terminal's, else FALLBACK_WIDTH (a pipe
    or a file); never above WIDTH (a table that wide is hard to read) nor below 40."""
    cols = shutil.get_terminal_size((FALLBACK_WIDTH, 24)).columns
    return max(40, min(WIDTH, cols))


#: the shortest a name column is cut to when the table must shrink
MIN_NAME = 12


def relative(path: str) -> str:
    """`path` relative to the working directory when it lies under it, else as given."""
    p = str(path)
    if p in ("", "-", "<stdin>"):
        return p
    try:
        rel = os.path.relpath(p)
    except ValueError:  # another drive (Windows)
        return p
    return p if rel.startswith("..") else rel


def _tail(name: str, depth: int) -> str:
    return "/".join(name.rstrip("/").split("/")[-depth:]) or name


def short_models(models) -> dict[str, str]:
    """{model: short name}, unique wherever the full names are: the last part of the model's
    own name; where two would print alike, the argument values they do not share, else a
    longer tail of the name, else the full strings."""
    models = sorted(set(map(str, models)))
    parts = {m: _model_parts(m) for m in models}
    by_short: dict[str, list[str]] = {}
    for m in models:
        by_short.setdefault(_tail(parts[m][0], 1), []).append(m)
    out = {}
    for short, ms in by_short.items():
        if len(ms) == 1:
            out[ms[0]] = short
            continue
        common = set.intersection(*(set(parts[m][1]) for m in ms))
        names = {}
        for m in ms:
            values = [a.split("=", 1)[1] for a in parts[m][1] if a not in common]
            names[m] = f"{short} ({','.join(values)})" if values else short
        for depth in range(2, 64):  # alike still (paths): the shortest tail that differs
            if len(set(names.values())) == len(names):
                break
            names = {m: _tail(parts[m][0], depth) for m in ms}
        else:
            names = {m: m for m in ms}
        out |= names
    if len(set(out.values())) < len(out):  # a short name equal to another's: the full names
        return {m: m for m in models}
    return out


def task_prefix(tasks) -> str:
    """A prefix every task shares, ending at a separator ('leaderboard_'), or ''."""
    tasks = sorted(set(map(str, tasks)))
    if len(tasks) < 2:
        return ""
    common = os.path.commonprefix(tasks)
    cut = max(common.rfind(c) for c in "_-:/.") + 1
    prefix = common[:cut]
    return prefix if prefix and all(len(t) > len(prefix) for t in tasks) else ""


def cut_middle(text: str, width: int) -> str:
    if len(text) <= width:
        return text
    head = width // 2
    return text[:head] + "~" + text[len(text) - (width - 1 - head) :]


def fmt_p(p: float) -> str:
    if not np.isfinite(p):
        return ""
    if p == 0:
        return "0"
    return f"{p:.3f}" if p >= 0.001 else f"{p:.0e}"


def _choices(choices, n) -> str:
    if isinstance(choices, str):  # mixed: the range of options
        ks = sorted(frame_labels(0, choices, int(n)))
        return f"{ks[0]}-{ks[-1]}"
    return str(choices)


def _fmt_t(t) -> str:
    t = float(t)
    return str(int(t)) if t < 1e7 else f"{t:.0e}"


def _notes_of(df: pd.DataFrame) -> list[str]:
    """Each row's full note: its own, and the flags `derived` and `limited` in words."""
    out = []
    for note, derived, limited in zip(df["note"], df["derived"], df["limited"], strict=True):
        parts = []
        if derived:
            parts.append("count derived from the reported accuracy (no per-item results)")
        if limited and "limit" not in str(note) and "max_eval_instances" not in str(note):
            parts.append("a subset run: n is below the task's size")
        if note:
            parts.append(str(note))
        out.append("; ".join(parts))
    return out


COLUMNS = [
    # (header, right-aligned)
    ("model", False),
    ("task", False),
    ("acc", True),
    ("n", True),
    ("k", True),
    ("t", True),
    ("std", True),
    ("max", True),
    ("p_std", True),
    ("p_max", True),
    ("p_below", True),
    ("verdict", False),
    ("notes", False),
]


def _cells(df: pd.DataFrame, models: dict, prefix: str, note_ids: list[str]) -> list[list[str]]:
    rows = []
    for r, note in zip(df.itertuples(index=False), note_ids, strict=True):
        task = str(r.task)
        rows.append(
            [
                models[str(r.model)],
                task[len(prefix) :] if prefix else task,
                f"{r.accuracy:.4f}",
                str(r.n),
                _choices(r.choices, r.n),
                _fmt_t(r.t),
                f"{r.standard:.3f}",
                f"{r.max_baseline:.3f}",
                fmt_p(r.p_standard),
                fmt_p(r.p_max),
                fmt_p(r.p_below),
                str(r.verdict),
                note,
            ]
        )
    return rows


def _fit(columns, rows, shrink, width: int, drop: tuple[str, ...] = ()):
    """(columns, rows, shrink) without the columns of `drop` (headers, in order) that must go
    for the table to fit `width` once its `shrink` columns are cut to MIN_NAME, and the
    headers left out."""
    left_out: list[str] = []
    for name in (None, *drop):
        if name is not None:
            i = [h for h, _ in columns].index(name)
            columns = columns[:i] + columns[i + 1 :]
            rows = [r[:i] + r[i + 1 :] for r in rows]
            shrink = tuple(j - (j > i) for j in shrink if j != i)
            left_out.append(name)
        w = [max([len(h)] + [len(r[k]) for r in rows]) for k, (h, _) in enumerate(columns)]
        w = [min(x, MIN_NAME) if k in shrink else x for k, x in enumerate(w)]
        if sum(w) + len(GAP) * (len(w) - 1) <= width:
            break
    return columns, rows, shrink, left_out


def fixed_width(columns, rows: list[list[str]], shrink: tuple[int, ...], width: int) -> str:
    """`rows` under `columns` ((header, right-aligned) pairs) as fixed-width text; the columns
    `shrink` (names) are cut, the widest first, down to MIN_NAME until a line fits `width`."""
    w = [max([len(h)] + [len(row[i]) for row in rows]) for i, (h, _) in enumerate(columns)]
    total = lambda: sum(w) + len(GAP) * (len(w) - 1)  # noqa: E731
    while total() > width:
        k = max(shrink, key=lambda i: w[i])
        if w[k] <= MIN_NAME:
            break
        w[k] -= 1
    lines = []
    for row in [[h for h, _ in columns], *rows]:
        cells = []
        for i, (cell, (_, right)) in enumerate(zip(row, columns, strict=True)):
            cell = cut_middle(cell, w[i])
            cells.append(cell.rjust(w[i]) if right else cell.ljust(w[i]))
        lines.append(GAP.join(cells).rstrip())
    lines.insert(1, GAP.join("-" * x for x in w))
    return "\n".join(lines)


def table(df: pd.DataFrame, width: int = WIDTH) -> tuple[str, list[str]]:
    """(the table's lines as text, the numbered notes it refers to)."""
    models = short_models(df["model"].astype(str))
    prefix = task_prefix(df["task"].astype(str))
    full = _notes_of(df)
    distinct = list(dict.fromkeys(n for n in full if n))
    number = {n: str(i) for i, n in enumerate(distinct, 1)}
    rows = _cells(df, models, prefix, [number.get(n, "") for n in full])
    notes = [f"[{number[n]}] {n}" for n in distinct]
    if prefix:
        notes.insert(0, f"every task's name begins with {prefix!r}, left out above")
    columns, rows, shrink, left_out = _fit(COLUMNS, rows, (0, 1), width, DROP_ORDER)
    text = fixed_width(columns, rows, shrink, width)
    if left_out:
        notes.insert(0, f"left out to fit {width} columns: {', '.join(left_out)} (every "
                     "column: --format csv or json, or a wider $COLUMNS)")  # fmt: skip
    return text, notes


def _short_label(label: str, models: dict[str, str]) -> str:
    """A --compare label ('model' or 'model [run]') with the model's short name."""
    base, sep, tag = label.partition(" [")
    return models.get(base, base) + (f" [{tag}" if sep else "")


TEST_COLUMNS = [
    ("task", False),
    ("test", False),
    ("model_a", False),
    ("model_b", False),
    ("n", True),
    ("acc_a", True),
    ("acc_b", True),
    ("a_only", True),
    ("b_only", True),
    ("p", True),
    ("p_adj", True),
    ("result", False),
    ("group", False),
    ("settings", False),
]


def compare_tables(
    tests: pd.DataFrame, groups: pd.DataFrame, models, width: int | None = None
) -> str:
    """--compare's tests and groups for people: short names, rounded numbers, a result per
    row (separated / not separated / the reason it was not tested)."""
    width = output_width() if width is None else width
    short = short_models(models)
    acc = lambda v: "" if pd.isna(v) else f"{v:.4f}"  # noqa: E731
    count = lambda v: "" if pd.isna(v) else str(int(v))  # noqa: E731
    rows = []
    for r in tests.itertuples(index=False):
        if r.status != "tested":
            result = r.status
        elif r.test == "paired":
            result = "separated" if r.separated else "not separated"
        else:
            result = "above max" if r.separated else "not above max"
        ga, gb = count(r.group_a), count(r.group_b)
        rows.append(
            [
                str(r.task),
                "pair" if r.test == "paired" else "max_random",
                _short_label(str(r.model_a), short),
                _short_label(str(r.model_b), short) if r.model_b else "",
                str(int(r.n_items)),
                acc(r.accuracy_a),
                acc(r.accuracy_b),
                count(r.a_only),
                count(r.b_only),
                fmt_p(r.p),
                fmt_p(r.p_adjusted),
                result,
                f"{ga}/{gb}" if gb else ga,
                r.settings_differ,
            ]
        )
    out = ["tests (p: exact; p_adj: adjusted across the tested rows):"]
    out.append(fixed_width(TEST_COLUMNS, rows, (0, 2, 3, 13), width))
    grows = [
        [str(g.task), str(g.group), "; ".join(_short_label(m, short) for m in g.models.split("; ")),
         f"{g.best_accuracy:.4f}", f"{g.worst_accuracy:.4f}"]
        for g in groups.itertuples(index=False)
    ]  # fmt: skip
    cols = [("task", False), ("group", True), ("models (best first)", False)]
    cols += [("best", True), ("worst", True)]
    out += ["", "groups (models the data cannot separate):"]
    out.append(fixed_width(cols, grows, (0, 2), width))
    return "\n".join(out) + "\n"


NBSP = "\u00a0"  # keeps a verdict and its count on one line when a line is wrapped


def _wrap(text: str, width: int, indent: str = "    ") -> list[str]:
    lines = textwrap.wrap(text, width, subsequent_indent=indent, break_on_hyphens=False)
    return [line.replace(NBSP, " ") for line in lines] or [""]


def summary_line(judged: pd.DataFrame, skipped) -> str:
    files = judged["source"].astype(str).str.replace(r":\d+$", "", regex=True).nunique()
    tasks = sum(1 for s in skipped if s.task is not None)
    passed = len(skipped) - tasks
    counts = verdict_counts(judged).split(", ")  # 'above_max 49': kept on one line
    extra = []
    if tasks:
        extra.append(f"{tasks} tasks skipped")
    if passed:
        extra.append(f"{passed} files passed over")
    return (
        f"{len(judged)} scores audited ({judged['task'].nunique()} tasks, {files} "
        f"file{'s' if files > 1 else ''}"
        + (f"; {', '.join(extra)}, with the reasons below" if extra else "")
        + f"). Verdicts: {', '.join(c.replace(' ', NBSP) for c in counts)}."
    )


def legend() -> list[str]:
    return [f"  {v}: {VERDICT_MEANING[v]}" for v in reversed(VERDICTS)]


def skipped_lines(skipped) -> list[str]:
    """Everything passed over, once per (file, reason): the tasks of one file that share a
    reason on one line."""
    groups: dict[tuple[str, str], list[str]] = {}
    for s in skipped:
        groups.setdefault((relative(s.path), s.reason), []).append(s.task)
    out = []
    for (path, reason), tasks in groups.items():
        named = [t for t in tasks if t is not None]
        where = f"{path}: task{'s' if len(named) > 1 else ''} {', '.join(named)}" if named else path
        out.append(f"skipped {where}: {reason}")
    return out


def sources_line(judged: pd.DataFrame) -> str:
    files = judged["source"].astype(str).str.replace(r":\d+$", "", regex=True)
    counts = files.value_counts(sort=False)
    shown = [f"{relative(f)} ({k})" for f, k in counts.items()]
    if len(shown) > 8:
        shown = [*shown[:8], f"... and {len(shown) - 8} more"]
    return "files (scores): " + ", ".join(shown)


def report(judged: pd.DataFrame, skipped, t_lines: list[str], width: int | None = None) -> str:
    """The whole default output: table, summary, family, legend, notes, files, skipped."""
    width = output_width() if width is None else width
    body, notes = table(judged, width)
    out = [body, ""]
    out += _wrap(summary_line(judged, skipped), width, "")
    out += _wrap(family_line(judged) + "; p-values above are raw, the verdicts use them "
                 "adjusted (CSV and JSON: p_*_adjusted)", width, "    ")  # fmt: skip
    out += _wrap(
        "legend (k: options per item; std, max: the standard and the max random baseline; "
        "t: tries the best score was selected from):",
        width,
        "    ",
    )
    for line in legend():
        out += _wrap(line, width, "    ")
    if notes or t_lines:
        out.append("notes:")
        for n in [*notes, *t_lines]:
            out += _wrap(f"  {n}", width, "      ")
    out += _wrap(sources_line(judged), width, "    ")
    for s in skipped_lines(skipped):
        out += _wrap(s, width, "    ")
    return "\n".join(out) + "\n"


def write_table(judged: pd.DataFrame, skipped, t_lines, stream, width: int | None = None) -> None:
    stream.write(report(judged, skipped, t_lines, width))


__all__ = [
    "report",
    "write_table",
    "short_models",
    "task_prefix",
    "relative",
    "output_width",
    "WIDTH",
]
