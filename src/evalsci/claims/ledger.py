"""The claims ledger's row and file schema.

A row says, for one claim of a paper: where the paper makes it (`section`, the `claim` quoted),
what the paper reports (`paper`, as printed), what ours is (`ours`, formatted) with its
`uncertainty` ("exact", "SE 0.004", "95% interval [0.01, 0.03]", ...), the `test` that decided
it (for a number "|ours - paper| <= h + 2 SE"; for a qualitative claim the stated test at its
level with its multiplicity family), the `verdict` and its `cause`, and the `artefact` (registry
id, e.g. `tapt.table1`) ours rests on.

`verdict` and `cause` come from `evalsci.stats.agreement` only (a `Verdict`): no study and no
renderer decides a verdict on its own.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from dataclasses import astuple, dataclass, fields
from pathlib import Path

from evalsci.stats.agreement import VERDICTS, Verdict

__all__ = ["COLUMNS", "Claim", "claim", "from_reference", "to_csv", "write_csv", "read_csv"]


@dataclass(frozen=True)
class Claim:
    study: str
    id: str
    section: str
    claim: str
    paper: str
    ours: str
    uncertainty: str
    verdict: str
    cause: str
    artefact: str
    test: str

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if not isinstance(value, str):
                raise TypeError(f"claim {self.id!r}: {f.name} must be a str, got {value!r}")
        for name in ("study", "id", "section", "claim", "paper", "ours", "verdict", "artefact"):
            if not getattr(self, name).strip():
                raise ValueError(f"claim {self.id!r}: {name} is empty")
        if self.verdict not in VERDICTS:
            raise ValueError(
                f"claim {self.id!r}: verdict {self.verdict!r} is not one of {VERDICTS}"
            )
        if self.verdict != "matches" and not self.uncertainty.strip():
            raise ValueError(f"claim {self.id!r}: a {self.verdict} verdict needs its uncertainty")
        if self.verdict in ("differs", "untestable_here") and not self.cause.strip():
            raise ValueError(f"claim {self.id!r}: a {self.verdict} verdict needs its cause")


COLUMNS = tuple(f.name for f in fields(Claim))


def claim(
    study: str,
    id: str,
    *,
    section: str,
    quote: str,
    paper: str,
    ours: str,
    uncertainty: str,
    judged: Verdict,
    artefact: str,
    test: str = "",
) -> Claim:
    """A row from a `Verdict` of `evalsci.stats.agreement` (the only way a study makes one)."""
    if not isinstance(judged, Verdict):
        raise TypeError(f"claim {id!r}: judged must be an agreement.Verdict, got {judged!r}")
    return Claim(
        study=study,
        id=id,
        section=section,
        claim=quote,
        paper=paper,
        ours=ours,
        uncertainty=uncertainty,
        verdict=judged.verdict,
        cause=judged.cause,
        artefact=artefact,
        test=test or judged.test,
    )


def from_reference(study: str, id: str, entry: dict, **fields) -> Claim:
    """A row whose section, quote and paper value come from its study's reference.yaml entry
    (`claims: <id>: {section, quote, paper}`), the rest (`ours`, `uncertainty`, `judged`,
    `artefact`) given."""
    return claim(
        study,
        id,
        section=entry["section"],
        quote=entry["quote"],
        paper=str(entry["paper"]),
        **fields,
    )


def to_csv(rows: Iterable[Claim]) -> str:
    rows = list(rows)
    ids = [(r.study, r.id) for r in rows]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise ValueError(f"claims ledger: duplicate ids {dup}")
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(COLUMNS)
    w.writerows(astuple(r) for r in rows)
    return buf.getvalue()


def write_csv(rows: Iterable[Claim], path: str | Path) -> None:
    from evalsci.pipeline.jobs import atomic_path

    text = to_csv(rows)
    with atomic_path(Path(path)) as tmp:
        Path(tmp).write_text(text)


def read_csv(path: str | Path) -> list[Claim]:
    """A ledger file back as rows; a wrong header or a bad row names the file and line."""
    path = Path(path)
    with path.open(newline="") as fh:
        reader = csv.reader(fh)
        header = next(reader, None)
        if tuple(header or ()) != COLUMNS:
            raise ValueError(f"{path}: header {header} is not the ledger's {list(COLUMNS)}")
        out = []
        for line, row in enumerate(reader, start=2):
            if len(row) != len(COLUMNS):
                raise ValueError(f"{path}, line {line}: {len(row)} fields, expected {len(COLUMNS)}")
            try:
                out.append(Claim(*row))
            except (TypeError, ValueError) as err:
                raise ValueError(f"{path}, line {line}: {err}") from None
    return out
