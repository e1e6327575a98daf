"""Progress of a long loop: a tqdm bar on a terminal, counts in a log file.

tqdm redraws its bar with carriage returns; in a job's log file (not a terminal) that makes
one line of hundreds of \\r-joined bars. `progress_bar` gives the bar only when stderr is a
terminal; otherwise it logs a count line ("maxrandom: 120/400 row (30%), 12 s") at most every
`LOG_EVERY_S` seconds and one at the end, through `logging` (which a job sends to its log).
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Iterable, Iterator
from typing import Any

__all__ = ["progress_bar", "CountLog", "LOG_EVERY_S"]

log = logging.getLogger("evalsci.progress")

LOG_EVERY_S = 30.0  # a count line at most this often: a log stays short, a stall shows


def progress_bar(
    iterable: Iterable | None = None,
    *,
    desc: str = "",
    total: int | None = None,
    unit: str = "it",
    disable: bool = False,
    **bar: Any,
):
    """`tqdm(iterable, desc=, total=, unit=, disable=, **bar)` on a terminal; a `CountLog`
    (same use: iterate, `update(n)`, `close()`, a context manager) anywhere else."""
    if not disable and _terminal():
        from tqdm.auto import tqdm

        return tqdm(iterable, desc=desc, total=total, unit=unit, **bar)
    return CountLog(iterable, desc=desc, total=total, unit=unit, disable=disable)


def _terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # replaced or closed stderr
        return False


class CountLog:
    """Counts a loop's steps and logs them as plain lines (see the module docstring)."""

    def __init__(
        self,
        iterable: Iterable | None = None,
        *,
        desc: str = "",
        total: int | None = None,
        unit: str = "it",
        disable: bool = False,
        every_s: float | None = None,
    ):
        self.iterable = iterable
        self.desc = desc or "progress"
        if total is None and iterable is not None and hasattr(iterable, "__len__"):
            total = len(iterable)  # type: ignore[arg-type]
        self.total = total
        self.unit = unit
        self.disable = disable
        self.every_s = LOG_EVERY_S if every_s is None else every_s
        self.n = 0
        self._start = self._last = time.monotonic()
        self._closed = False

    def __iter__(self) -> Iterator:
        for item in self.iterable or ():
            yield item
            self.update(1)
        self.close()

    def __len__(self) -> int:
        return self.total or 0

    def __enter__(self) -> CountLog:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def update(self, n: int = 1) -> None:
        self.n += n
        now = time.monotonic()
        if not self.disable and now - self._last >= self.every_s:
            self._last = now
            self._log(now)

    def set_postfix(self, *args, **kwargs) -> None:  # tqdm's; a count line has no postfix
        pass

    def set_description(self, desc: str, refresh: bool = True) -> None:
        self.desc = desc

    def close(self) -> None:
        if not self._closed and not self.disable:
            self._log(time.monotonic(), done=True)
        self._closed = True

    def _log(self, now: float, done: bool = False) -> None:
        of = f"/{self.total}" if self.total is not None else ""
        share = f" ({100 * self.n / self.total:.0f}%)" if self.total else ""
        state = "done in" if done else "after"
        log.info(
            "%s: %d%s %s%s, %s %.0f s",
            self.desc,
            self.n,
            of,
            self.unit,
            share,
            state,
            now - self._start,
        )
