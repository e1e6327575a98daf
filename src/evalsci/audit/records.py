"""The types every part of the audit shares: what a reader returns and how it fails.

Readers (`evalsci.audit.readers.*`) turn a file into `Result`s (one model's score on one task)
and `Skipped`s (a file or task not read, with the reason); the judge turns Results into rows.
This module imports none of them, so no reader needs a function-level import to avoid a cycle.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from evalsci.textsafe import printable, printable_all

# Exit codes of `evalsci audit` and `evalsci reference` (docs/audit.md): done, bad input (a
# clear error naming the file), and valid input with nothing in it that has a random baseline.
EXIT_OK, EXIT_BAD_INPUT, EXIT_NOTHING_TO_AUDIT = 0, 2, 3

# |accuracy - correct / n| above which a file's reported accuracy and the count a reader made
# from its items disagree: both are the same ratio, printed by Python's repr.
EXACT = 1e-9


class AuditInputError(ValueError):
    """An input is missing, unreadable or lacks a field the audit needs. The message names
    the file (and line or key) and the reason."""


class NothingToAudit(AuditInputError):
    """Every input was read, but no task in it has a random baseline (generated text,
    likelihoods, options unknown): valid input with nothing to judge (exit code 3)."""


def _escape_names(record, names) -> None:
    """`textsafe.printable` on the named text fields of a frozen record, in place."""
    for name in names:
        value = getattr(record, name)
        safe = printable(value)
        if safe is not value:
            object.__setattr__(record, name, safe)


@dataclass(frozen=True)
class Result:
    """One model's score on one task: `correct` of `n` items, the items' numbers of options as
    `labels` ({number of options: number of items}).

    Readers fill what their format holds; everything after `accuracy` is optional:
      t           tries the input itself states (a CSV's t column, HELM train trials, inspect
                  epochs when the reported score is a best-of); None: the judge infers t
      metric      the metric read (acc, acc_norm, ...)
      derived     `correct` was derived from an accuracy, not counted item by item
      limited     a subset run (lm-eval --limit): n is below the task's full size
      notes       anything the output should say about this score
      items, outcomes   item ids and their 0/1 outcomes (aligned), for paired comparisons
      run         the run's identity (file and timestamp, log id), for inferring t
      choices_source    where the numbers of options came from (samples, doc_to_choice, ...)
      item_options      each item's number of options (aligned with items), where known
      options_range     (least, most) options per item when only those are known: `labels`
                  then puts every item at the least (the upper bounds of the baselines)
      settings    the run's settings that make two runs comparable (`run_settings`): shots,
                  limit, model arguments beyond the model's name, harness and version;
                  --compare flags pairs whose settings differ
      date        when the run started, Unix time, where the file says (lm-eval's `date`)
    """

    model: str
    task: str
    n: int
    correct: int
    labels: dict
    source: str
    accuracy: float | None = None
    t: int | None = None
    metric: str | None = None
    derived: bool = False
    limited: bool = False
    notes: tuple[str, ...] = ()
    items: tuple[str, ...] | None = None
    outcomes: tuple[int, ...] | None = None
    run: str | None = None
    choices_source: str | None = None
    item_options: tuple[int, ...] | None = None
    options_range: tuple[int, int] | None = None
    settings: dict | None = None
    date: float | None = None

    def __post_init__(self) -> None:
        # names come from anyone's files: no control or bidi character reaches a terminal,
        # a CSV or ref.csv (evalsci.textsafe)
        _escape_names(self, ("model", "task", "run", "metric"))
        if self.items is not None:
            object.__setattr__(self, "items", printable_all(self.items))


@dataclass(frozen=True)
class Skipped:
    """A file (task None) or one task of a file that was not read, and why. `no_baseline`:
    a skip docs/audit.md lists: the task was read and has nothing the audit can judge
    (generated text, likelihoods, options unknown, a group's aggregate of its subtasks,
    epochs the file cannot split), as opposed to a file or request that could not be read.
    Inputs with only such skips exit 3 (nothing to audit), never 2."""

    path: str
    task: str | None
    reason: str
    no_baseline: bool = False

    def __post_init__(self) -> None:
        _escape_names(self, ("path", "task", "reason"))


@dataclass
class Inputs:
    """What `read_inputs` found: the results to judge and everything passed over, with reasons."""

    results: list[Result] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    #: results already in columns (pandas DataFrames, `evalsci.audit.frames`): large inputs
    #: such as a million-row CSV, which would not fit as Result objects
    frames: list = field(default_factory=list)


def from_accuracy(accuracy: float, n: int, options: int, **fields) -> Result:
    """A Result read without per-item records: n items of `options` options each, and the
    number correct derived from the accuracy (round(accuracy x n); the reader has checked that
    n reproduces it). `fields`: the rest of Result's fields (model, task, source, ...)."""
    return Result(
        n=n,
        correct=round(accuracy * n),
        labels={int(options): n},
        accuracy=float(accuracy),
        derived=True,
        **fields,
    )


#: argument names that name the model itself, not a setting of it
MODEL_NAME_ARGS = ("pretrained", "model", "model_name", "model_id", "path")


def run_settings(shots=None, limit=None, model_args=None, harness=None) -> dict:
    """A run's settings in one form for every reader: only the ones the file states; model
    arguments without the model's own name (two models differ in name by design)."""
    out = {}
    if shots is not None:
        out["shots"] = shots
    if limit is not None:
        out["limit"] = limit
    if isinstance(model_args, str):  # lm-eval's "pretrained=org/name,dtype=float32"
        model_args = dict(kv.split("=", 1) for kv in model_args.split(",") if "=" in kv)
    if isinstance(model_args, dict):
        args = {str(k): v for k, v in model_args.items() if k not in MODEL_NAME_ARGS}
        args = {k: v for k, v in args.items() if v is not None}
        if args:
            out["model_args"] = args
    if harness:
        out["harness"] = harness
    return out


def labels_of(choices: Iterable[int]) -> dict[int, int]:
    """Per-item numbers of options -> {number of options: number of items}."""
    return dict(sorted(Counter(int(c) for c in choices).items()))
