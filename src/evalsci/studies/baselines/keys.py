"""Keys of the random-baseline requests this study sends to the shared `maxrandom` rule.

One key per distinct question, built from its parameters, so the producer
(maxrandom_requests.py) and every consumer (tables, figures) agree without passing tables around:
  emax:n=..:k=..:t=..        expected max accuracy of t random guessers, p = 1/k
  tail:n=..:k=..:t=..:c=..   P(X >= c) and P(max of t >= c)
  dist:n=..:k=..:t=..        the pmf/cdf of the max (distributions.csv)
"""

from __future__ import annotations

import pandas as pd


def emax(n: int, k: int, t: int) -> str:
    return f"emax:n={int(n)}:k={int(k)}:t={int(t)}"


def tail(n: int, k: int, t: int, c: int) -> str:
    return f"tail:n={int(n)}:k={int(k)}:t={int(t)}:c={int(c)}"


def dist(n: int, k: int, t: int) -> str:
    return f"dist:n={int(n)}:k={int(k)}:t={int(t)}"


def parse(key: str) -> dict:
    kind, *parts = key.split(":")
    return {"kind": kind, **{p.split("=")[0]: int(p.split("=")[1]) for p in parts}}


def to_requests(keys) -> pd.DataFrame:
    """Request rows for the maxrandom rule for a collection of keys, de-duplicated and sorted."""
    from evalsci.maxrandom.requests import accuracy_request, requests_frame

    rows = []
    for key in sorted(set(keys)):
        q = parse(key)
        rows.append(
            accuracy_request(
                key,
                q["n"],
                q["t"],
                p=1.0 / q["k"],
                correct=q.get("c"),
                distribution=q["kind"] == "dist",
            )
        )
    return requests_frame(rows)


class Baselines:
    """Lookup over the maxrandom rule's baselines.csv (and distributions.csv), as read by
    `evalsci.maxrandom.requests.read_baselines` / `read_distributions`."""

    def __init__(self, baselines: pd.DataFrame, distributions: pd.DataFrame | None = None):
        if "key" in baselines.columns:
            baselines = baselines.set_index("key")
        need = {"standard", "expected_max", "tail_standard", "tail_max"}
        missing = need - set(baselines.columns)
        if missing:
            raise ValueError(f"maxrandom baselines table lacks columns {sorted(missing)}")
        self.table = baselines
        self.distributions = distributions

    @classmethod
    def from_files(cls, baselines, distributions=None) -> Baselines:
        from evalsci.maxrandom.requests import read_baselines, read_distributions

        return cls(
            read_baselines(baselines), read_distributions(distributions) if distributions else None
        )

    def _row(self, key: str):
        try:
            return self.table.loc[key]
        except KeyError:
            raise KeyError(
                f"baseline {key!r} was not requested from the maxrandom rule "
                "(add it in evalsci.studies.baselines.maxrandom_requests)"
            ) from None

    def expected_max(self, n, k, t) -> float:
        return float(self._row(emax(n, k, t))["expected_max"])

    def standard(self, n, k) -> float:
        return float(self._row(emax(n, k, 1))["standard"])

    def tails(self, n, k, t, c) -> tuple[float, float]:
        """(P(X >= c), P(max of t >= c))."""
        r = self._row(tail(n, k, t, c))
        return float(r["tail_standard"]), float(r["tail_max"])

    def many(self, keys, column: str):
        missing = [k for k in keys if k not in self.table.index]
        if missing:
            raise KeyError(f"{len(missing)} baselines were not requested, e.g. {missing[:2]}")
        return self.table.loc[list(keys), column].to_numpy(dtype=float)

    def pmf(self, n, k, t):
        """(counts, pmf of the max) from distributions.csv."""
        if self.distributions is None:
            raise ValueError("no distributions.csv given")
        d = self.distributions[self.distributions["key"] == dist(n, k, t)]
        if d.empty:
            raise KeyError(f"distribution {dist(n, k, t)!r} was not requested")
        return d["k"].to_numpy(), d["pmf"].to_numpy()
