"""Algorithm 1 (Monte Carlo sampling over number, order and choice of demonstrations).

Per trial: sample S^K (K training examples); for each of P random permutations of S^K,
evaluate the prompt with the first k demonstrations for every k = 0..K. The validation
subsample (256 examples in the paper, Appendix B) is drawn once per dataset and shared by
every model and trial, and S^K and the permutations depend on (seed, dataset, trial) only, so
all models see the same prompts.

Cost bookkeeping (the reason for `prefix_tree`): the k-prompt of a permutation is a prefix of
its (k+1)-prompt, k = 0 is the same prompt for every permutation, and permutations that start
with the same demonstrations share those prompts too. `prefix_tree` lists every distinct
ordered prefix once; a depth-first walk extends a cached prefix by one demonstration per step
and scores each node once.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np


def rng_for(seed: int, *keys: str | int) -> np.random.Generator:
    """A generator that depends only on `seed` and `keys` (stable across processes/platforms)."""
    words = [int(seed)] + [zlib.crc32(str(k).encode()) for k in keys]
    return np.random.default_rng(np.random.SeedSequence(words))


def eval_subsample(n_validation: int, n: int, seed: int, dataset: str) -> np.ndarray:
    """Positions of the validation examples to evaluate: `n` drawn without replacement
    (all of them when the split is smaller), in increasing order."""
    if n >= n_validation:
        return np.arange(n_validation)
    rng = rng_for(seed, "eval", dataset)
    return np.sort(rng.choice(n_validation, size=n, replace=False))


@dataclass(frozen=True)
class TrialPlan:
    """One trial of Algorithm 1: the demonstrations S^K and P permutations of them.

    `permutations[p, i]` is the training-set position of the (i+1)-th demonstration of
    permutation p, so permutation p's k-shot prompt uses `permutations[p, :k]`.
    """

    dataset: str
    trial: int
    demos: tuple[int, ...]
    permutations: np.ndarray  # (P, K) int

    @property
    def K(self) -> int:  # noqa: N802 - the paper's symbol
        return len(self.demos)

    @property
    def P(self) -> int:  # noqa: N802
        return len(self.permutations)

    def steps(self) -> Iterator[tuple[int, int, tuple[int, ...]]]:
        """Every (permutation, k, demonstrations) that Algorithm 1 evaluates.

        k = 0 is yielded once, with permutation -1: it is the same prompt for every
        permutation (the zero-shot prompt).
        """
        yield -1, 0, ()
        for p, perm in enumerate(self.permutations):
            for k in range(1, self.K + 1):
                yield p, k, tuple(int(i) for i in perm[:k])


def plan_trial(
    n_train: int,
    K: int,
    P: int,
    seed: int,
    dataset: str,
    trial: int,  # noqa: N803
) -> TrialPlan:
    """Sample S^K from the training set and P random permutations of it (Algorithm 1, l.4-6)."""
    if K > n_train:
        raise ValueError(f"{dataset}: K={K} demonstrations but only {n_train} training examples")
    rng = rng_for(seed, "trial", dataset, trial)
    demos = rng.choice(n_train, size=K, replace=False)
    perms = np.stack([rng.permutation(demos) for _ in range(P)]) if P else np.empty((0, K), int)
    return TrialPlan(dataset, trial, tuple(int(d) for d in demos), perms.astype(np.int64))


def plan_fixed(demos: list[int], P: int, seed: int, dataset: str, name: str) -> TrialPlan:
    """Algorithm 1 over a given demonstration set (Section 5.2: the high/low/random sets).

    Permutations are drawn over positions 0..len(demos)-1, so their pattern depends on the
    set's size, not its members."""
    rng = rng_for(seed, "fixed", dataset, name)
    demos_arr = np.asarray(demos, dtype=np.int64)
    perms = [demos_arr[rng.permutation(len(demos_arr))] for _ in range(P)]
    perms_arr = np.stack(perms) if P else np.empty((0, len(demos)), np.int64)
    return TrialPlan(dataset, -1, tuple(int(d) for d in demos), perms_arr.astype(np.int64))


def prefix_tree(plan: TrialPlan) -> list[tuple[int, ...]]:
    """Every distinct ordered prefix of the plan's permutations (the empty one first), in
    depth-first order: each prefix comes right after its parent's subtree starts, so a walk
    can extend one cached prefix by one demonstration per step."""
    seen: set[tuple[int, ...]] = set()
    order: list[tuple[int, ...]] = []

    def visit(prefix: tuple[int, ...]) -> None:
        seen.add(prefix)
        order.append(prefix)
        children = []
        for perm in plan.permutations:
            if tuple(perm[: len(prefix)]) == prefix and len(prefix) < plan.K:
                child = (*prefix, int(perm[len(prefix)]))
                if child not in seen and child not in children:
                    children.append(child)
        for child in children:
            visit(child)

    visit(())
    return order
