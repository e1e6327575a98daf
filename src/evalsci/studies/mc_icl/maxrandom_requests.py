"""Max random baseline requests for Figures 1-4 (answered by the shared `maxrandom` rule).

Reporting the best k, the best permutation or the best prompt of a trial selects over t
prompts evaluated on the same validation subsample, so its fair reference is the expected
maximum accuracy of t random classifiers on those n examples. Each row asks for one such t;
n and the label count depend only on the dataset and config, t on the sampling plan, so the
requests need no model output:

- `<dataset>|k_curve`: t = K + 1, the best k of one accuracy-vs-k curve (Figures 1, 2, 13-20);
- `<dataset>|trial<i>|prompts`: t = distinct prompts of trial i (best prompt of a trial);
- `<dataset>|one_shot`: t = distinct one-shot prompts over all trials (Figures 3, 5-12);
- `<dataset>|set_k_curve|s<s>`: t = s + 1 for the Section 5.2 set runs of size s = 1..size
  (Figure 4; the selected sets may be smaller than `size` when few examples pass |Z| > 1).
"""

from __future__ import annotations

import pandas as pd

from evalsci.data.glue import EVAL_SPLIT, SPLIT_SIZES
from evalsci.studies.mc_icl.params import McIclSettings
from evalsci.studies.mc_icl.sampler import plan_trial, prefix_tree
from evalsci.studies.mc_icl.templates import num_choices


def eval_size(dataset: str, num_eval: int) -> int:
    return min(num_eval, SPLIT_SIZES[dataset, EVAL_SPLIT[dataset]])


def requests(datasets: list[str], params: McIclSettings, seed: int) -> pd.DataFrame:
    """One request row per (dataset, selection) for the config's effective parameters."""
    from evalsci.maxrandom.requests import accuracy_request, requests_frame

    rows = []
    K, P, trials = params.num_demos, params.num_permutations, params.num_trials  # noqa: N806
    for d in datasets:
        n = eval_size(d, params.num_eval)
        labels = {num_choices(d): n}  # every example has the dataset's number of labels

        def row(key: str, t: int, n=n, labels=labels) -> dict:
            return accuracy_request(key, n, int(t), labels=labels)

        rows.append(row(f"{d}|k_curve", K + 1))
        first = set()
        for i in range(trials):
            plan = plan_trial(SPLIT_SIZES[d, "train"], K, P, seed, d, i)
            rows.append(row(f"{d}|trial{i}|prompts", len(prefix_tree(plan))))
            first |= {int(perm[0]) for perm in plan.permutations} if K else set()
        rows.append(row(f"{d}|one_shot", max(len(first), 1)))
        for s in range(1, params.selection.set_size + 1):
            rows.append(row(f"{d}|set_k_curve|s{s}", s + 1))
    return requests_frame(rows)
