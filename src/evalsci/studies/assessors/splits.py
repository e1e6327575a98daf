"""Instance splits (train / validation / test) and LLM splits, with leakage checks.

Instance splits follow the authors' loaders (`load_reasoning`, `load_helm_lite`):
- in distribution ("random"): all instances pooled; round((1 - test_size) n) of them (drawn
  with the seed) form the training pool, the rest the test split;
- out of distribution: the instances of the held-out datasets form the test split, the rest
  the training pool;
and then `validation_size` of the training pool becomes the validation split.
For the offline stand-ins the OOD splits hold out one dataset each (`ood_<dataset>`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

__all__ = [
    "ROLES",
    "define_splits",
    "make_instance_splits",
    "check_llm_splits",
    "check_instance_split",
]

ROLES = ("train", "validation", "test")


class LeakageError(AssertionError):
    """Two splits that must be disjoint share an instance or an LLM."""


def define_splits(
    datasets: Sequence[str], ood: Mapping[str, Sequence[str]] | None
) -> dict[str, list[str]]:
    """Split name -> held-out datasets ([] for the in-distribution split "random").

    `ood` None means leave-one-dataset-out: one split `ood_<dataset>` per dataset. A held-out
    entry matches a dataset equal to it or nested under it ("math" holds out "math/algebra").
    """
    names = sorted(set(datasets))
    splits: dict[str, list[str]] = {"random": []}
    if ood is None:
        for d in names:
            splits[f"ood_{d.replace('/', '_')}"] = [d]
    else:
        for split, held in ood.items():
            matched = [d for d in names if any(d == h or d.startswith(h + "/") for h in held)]
            if not matched:
                raise ValueError(
                    f"OOD split {split!r} holds out {list(held)}, which match no dataset of {names}"
                )
            splits[split] = matched
    return splits


def make_instance_splits(
    instances: pd.DataFrame,
    held_out: Mapping[str, Sequence[str]],
    seed: int,
    test_size: float = 0.3,
    validation_size: float = 0.2,
) -> pd.DataFrame:
    """One column per split (values train/validation/test), indexed by instance_id."""
    if not 0 < test_size < 1 or not 0 < validation_size < 1:
        raise ValueError(
            f"test_size and validation_size must be in (0, 1); got {test_size}, {validation_size}"
        )
    ids = instances["instance_id"].to_numpy()
    ds = instances["dataset"].to_numpy()
    out = pd.DataFrame(index=pd.Index(ids, name="instance_id"))
    for k, (split, held) in enumerate(held_out.items()):
        rng = np.random.default_rng([seed, k])
        role = np.empty(len(ids), dtype=object)
        if held:
            is_test = np.isin(ds, list(held))
        else:
            is_test = np.zeros(len(ids), dtype=bool)
            # the authors draw the training pool (pandas `sample(frac=0.7)`, Python's round)
            # and test on the rest: on HELM-Lite's 4,285 instances 0.7 n = 2999.5 rounds to
            # 3,000, so the test split has 1,285 (Table 2), not round(0.3 n) = 1,286
            n_test = len(ids) - int(round((1 - test_size) * len(ids)))
            is_test[rng.permutation(len(ids))[:n_test]] = True
        pool = np.flatnonzero(~is_test)
        val = rng.permutation(pool)[: int(round(validation_size * len(pool)))]
        role[:] = "train"
        role[is_test] = "test"
        role[val] = "validation"
        out[split] = role
        check_instance_split(out[split])
    return out


def check_instance_split(roles: pd.Series) -> None:
    """Assert every instance has exactly one role and every role is non-empty."""
    bad = set(roles.unique()) - set(ROLES)
    if bad:
        raise LeakageError(f"split {roles.name!r}: unknown roles {bad}")
    for r in ROLES:
        if not (roles == r).any():
            raise LeakageError(f"split {roles.name!r}: no {r} instances")
    if roles.index.duplicated().any():
        raise LeakageError(f"split {roles.name!r}: duplicated instance ids")


def check_llm_splits(llms: Mapping[str, Sequence[str]], available: Sequence[str]) -> None:
    """Assert the train/validation/test LLM lists are disjoint, non-empty and all available."""
    for r in ROLES:
        if not llms.get(r):
            raise LeakageError(f"no {r} LLMs configured")
    for i, r in enumerate(ROLES):
        for s in ROLES[i + 1 :]:
            both = set(llms[r]) & set(llms[s])
            if both:
                raise LeakageError(f"LLMs in both {r} and {s}: {sorted(both)}")
    missing = [m for r in ROLES for m in llms[r] if m not in set(available)]
    if missing:
        raise KeyError(f"configured LLMs not in the collection's success table: {missing}")
