"""The claims ledgers rendered for people: where a study's ledger lives, a terminal table, CSV,
JSON and Markdown, the one-line summary per paper, and the doc blocks built from them (one per
study doc, one in the README).

A renderer here never decides a verdict: it prints the `verdict` the study's ledger holds,
which `evalsci.stats.agreement` decided.
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from importlib import resources
from pathlib import Path

from evalsci.claims.ledger import COLUMNS, Claim, read_csv
from evalsci.pipeline import artefacts
from evalsci.stats.agreement import VERDICTS

__all__ = [
    "ARTEFACT",
    "LABELS",
    "SHOWN",
    "paper_studies",
    "ledger_path",
    "has_claims_module",
    "counts",
    "summary_line",
    "to_table",
    "to_csv",
    "to_json",
    "to_markdown",
    "study_block",
    "readme_block",
]

#: the registry entry of a study's ledger: `<study>.claims`
ARTEFACT = "{study}.claims"
#: how the summary line names each verdict, in the ledger's order
LABELS = {
    "matches": "exact",
    "within_noise": "within noise",
    "differs": "differ with a tested cause",
    "differs_unexplained": "unexplained",
    "untestable_here": "untestable here",
}
assert tuple(LABELS) == VERDICTS
#: the columns a table for people shows: the file's, without the `test` that decided each
SHOWN = tuple(c for c in COLUMNS if c != "test")
SHOWN = (
    "study",
    "id",
    "section",
    "claim",
    "paper",
    "ours",
    "uncertainty",
    "verdict",
    "cause",
    "artefact",
)


def paper_studies() -> list[str]:
    """The studies of the artefact registry that reproduce a paper (a package under
    evalsci/studies/; `audit` applies the method beyond the papers and has none)."""
    root = resources.files("evalsci").joinpath("studies")
    return [s for s in artefacts.registry()[0] if root.joinpath(s, "__init__.py").is_file()]


def has_claims_module(study: str) -> bool:
    """Whether `evalsci.studies.<study>.claims` exists (a file test: nothing is imported)."""
    return resources.files("evalsci").joinpath("studies", study, "claims.py").is_file()


def ledger_path(study: str) -> str:
    """The ledger's path under the workflow's directory, as the artefact registry lists it."""
    try:
        (path,) = artefacts.get(ARTEFACT.format(study=study)).outputs
    except KeyError:
        raise ValueError(
            f"study {study!r} has no claims ledger in the artefact registry "
            f"(pipeline/artefacts.yaml has no {ARTEFACT.format(study=study)}); studies with "
            f"one: {[s for s in paper_studies() if _registered(s)] or 'none'}"
        ) from None
    return path


def _registered(study: str) -> bool:
    return any(a.id == ARTEFACT.format(study=study) for a in artefacts.artefacts())


def making_rule(study: str) -> str:
    """'rule R (target T)' that writes the study's ledger."""
    a = artefacts.get(ARTEFACT.format(study=study))
    return f"rule {a.rule} (snakemake --cores 2 {a.target})"


def counts(rows: Sequence[Claim]) -> dict[str, int]:
    c = Counter(r.verdict for r in rows)
    return {v: c.get(v, 0) for v in VERDICTS}


def summary_line(study: str, rows: Sequence[Claim]) -> str:
    """'baselines: N claims: a exact, b within noise, c differ with a tested cause,
    d unexplained, e untestable here'."""
    c = counts(rows)
    parts = ", ".join(f"{c[v]} {LABELS[v]}" for v in VERDICTS)
    return f"{study}: {len(rows)} claims: {parts}"


def _cell(value: str, width: int) -> str:
    value = " ".join(value.split())  # one line per row
    return value if len(value) <= width else value[: max(width - 1, 0)] + "…"


#: how a terminal table shares its width: columns never cut (their full width), and the
#: weights of the rest (each at least 3 characters, at most its widest value)
UNCUT = ("study", "verdict")
WEIGHTS = {
    "id": 2,
    "section": 2,
    "claim": 4,
    "paper": 2,
    "ours": 3,
    "uncertainty": 1,
    "cause": 2,
    "artefact": 2,
    "test": 2,
}


def to_table(rows: Sequence[Claim], width: int = 100, columns=SHOWN) -> str:
    """A plain-text table that fits `width` characters: `study` and `verdict` in full, the
    other columns share the rest by weight; longer cells end in '…' (csv/json keep them)."""
    cols = list(columns)
    data = [[" ".join(getattr(r, c).split()) for c in cols] for r in rows]
    natural = {c: max([len(c)] + [len(d[i]) for d in data]) for i, c in enumerate(cols)}
    widths = _fit(natural, width - 2 * (len(cols) - 1))
    lines = [
        "  ".join(_cell(c, widths[c]).ljust(widths[c]) for c in cols).rstrip(),
        "  ".join("-" * widths[c] for c in cols),
    ]
    for d in data:
        lines.append(
            "  ".join(
                _cell(v, widths[c]).ljust(widths[c]) for c, v in zip(cols, d, strict=True)
            ).rstrip()
        )
    return "\n".join(lines) + "\n"


def _fit(natural: dict[str, int], room: int) -> dict[str, int]:
    """Widths: UNCUT columns at their natural width; the room left shared by WEIGHTS, no
    column wider than its natural width (what one does not use goes to the others)."""
    widths = {c: w for c, w in natural.items() if c in UNCUT}
    flex = [c for c in natural if c not in UNCUT]
    left = room - sum(widths.values())
    while flex:
        total = sum(WEIGHTS.get(c, 1) for c in flex)
        share = {c: max(3, left * WEIGHTS.get(c, 1) // total) for c in flex}
        done = [c for c in flex if natural[c] <= share[c]]
        if not done:
            widths.update(share)
            break
        for c in done:  # narrow columns take what they need; the rest share again
            widths[c] = natural[c]
            left -= natural[c]
            flex.remove(c)
    return widths


def to_csv(rows: Sequence[Claim]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(COLUMNS)
    w.writerows([getattr(r, c) for c in COLUMNS] for r in rows)
    return buf.getvalue()


def to_json(rows: Sequence[Claim]) -> str:
    return json.dumps([asdict(r) for r in rows], indent=1, ensure_ascii=False) + "\n"


def _md(value: str) -> str:
    return " ".join(value.split()).replace("|", "\\|")


def to_markdown(rows: Sequence[Claim], columns=SHOWN) -> str:
    head = "| " + " | ".join(columns) + " |"
    sep = "|" + "|".join("---" for _ in columns) + "|"
    body = ["| " + " | ".join(_md(getattr(r, c)) for c in columns) + " |" for r in rows]
    return "\n".join([head, sep, *body]) + "\n"


#: the columns of a study doc's claims block (the study is the doc's)
DOC_COLUMNS = ("id", "section", "claim", "paper", "ours", "uncertainty", "verdict", "cause")


def study_block(paths: Mapping[str, Path]) -> str:
    """A study doc's claims block: its summary line and every row of its ledger (input
    `claims`), the verdicts as the ledger holds them."""
    rows = read_csv(paths["claims"])
    if not rows:
        raise ValueError(f"{paths['claims']}: the ledger has no rows")
    study = rows[0].study
    return (
        f"{summary_line(study, rows)} (`evalsci claims --study {study}`; the rule: "
        "[Ours vs the paper](reproducibility.md#ours-vs-the-paper)).\n\n"
        + to_markdown(rows, DOC_COLUMNS)
    )


def readme_block(paths: Mapping[str, Path]) -> str:
    """The README's summary: one line per paper study, from its ledger (inputs named by
    study). A study whose claims module (evalsci/studies/<study>/claims.py) does not exist
    yet gets a line saying so; one whose module exists but whose ledger the block does not
    read is an error, so no study with claims can be left out of the README."""
    lines = []
    for study in paper_studies():
        if study in paths:
            lines.append(f"- {summary_line(study, read_csv(paths[study]))}")
        elif has_claims_module(study):
            raise ValueError(
                f"README claims block: evalsci.studies.{study}.claims exists, but the block "
                f"reads no {study} ledger: add `{study}: {study}.claims/claims.csv` to its "
                "inputs in pipeline/doc_blocks.yaml"
            )
        else:
            lines.append(f"- {study}: no claims ledger yet (no evalsci.studies.{study}.claims)")
    return "\n".join(lines) + "\n"
