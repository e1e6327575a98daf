"""Run Algorithm 1 for one trial (or one Section 5.2 set) with the shared-prefix scorer.

The scorer is `evalsci.lm.scoring.Scorer`: `scorer.prefix("")` is the empty prefix,
`prefix.extend(text)` returns a new prefix with `text` appended, reusing the parent's KV cache
(the parent stays usable), and `scorer.score(queries, prefix)` returns the summed
log-probability of each option after prefix + query. Each distinct ordered demonstration
prefix of the plan is scored once, walking `sampler.prefix_tree` depth first, so one
permutation's k-prompt cache is reused for its (k+1)-prompt and k = 0 is computed once per
trial.

Where the cache boundary sits: GPT-2-style tokenizers (GPT-Neo, Pythia, OPT, SmolLM2)
pre-tokenise a trailing "\\n\\n" as one token but "\\n\\nText" as "\\n", "\\n", "Text", so a
prefix that ends with the few-shot delimiter would never match the tokens of the full prompt
and the engine would fall back to uncached scoring. The cached prefix therefore ends with the
last demonstration's answer, and the delimiter travels with what follows it (the next
demonstration, or the query). The scored strings are unchanged: prefix + context + option
is exactly the harness prompt `Template.context(demos, query)` + " " + choice.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np
import pandas as pd

from evalsci.lm.scoring import Query
from evalsci.pipeline.progress import progress_bar
from evalsci.studies.mc_icl.sampler import TrialPlan, prefix_tree
from evalsci.studies.mc_icl.templates import FEWSHOT_DELIMITER, Template

log = logging.getLogger(__name__)


def score_plan(
    scorer,
    template: Template,
    train: Sequence[dict],
    queries: Sequence[dict],
    plan: TrialPlan,
    progress: bool = True,
) -> tuple[dict[tuple[int, ...], np.ndarray], dict[tuple[int, ...], int]]:
    """For every distinct demonstration prefix of the plan (training positions), each scored
    exactly once: the log-likelihoods (n_queries, n_choices) and the prefix's token count."""
    zero_shot = [Query(template.doc_to_text(q), template.continuations(q)) for q in queries]
    few_shot = [Query(FEWSHOT_DELIMITER + x.context, x.options) for x in zero_shot]
    n_choices = len(zero_shot[0].options)
    nodes = prefix_tree(plan)
    out: dict[tuple[int, ...], np.ndarray] = {}
    lengths: dict[tuple[int, ...], int] = {}
    path = {(): scorer.prefix("")}
    for node in progress_bar(
        nodes, desc=f"{plan.dataset} trial {plan.trial}", disable=not progress
    ):
        if node:
            parent = path[node[:-1]]
            # Depth first: cached prefixes as deep as this node are not its ancestors and are
            # never needed again.
            for key in [k for k in path if len(k) >= len(node)]:
                del path[key]
            piece = template.answered(train[node[-1]])
            path[node] = parent.extend(piece if len(node) == 1 else FEWSHOT_DELIMITER + piece)
        scores = scorer.score(few_shot if node else zero_shot, path[node])
        out[node] = np.array([s.sums for s in scores], dtype=float).reshape(len(queries), n_choices)
        lengths[node] = len(path[node].ids)
    return out, lengths


def plan_rows(
    plan: TrialPlan,
    node_scores: dict[tuple[int, ...], np.ndarray],
    prefix_tokens: dict[tuple[int, ...], int],
    train: Sequence[dict],
    queries: Sequence[dict],
    template: Template,
    model: str,
    set_name: str = "trial",
    query_tokens: Sequence[int] | None = None,
) -> pd.DataFrame:
    """The scores table (see `scores`) of one plan: zero-shot once, then every (permutation, k)."""
    n_choices = len(template.doc_to_choice(queries[0]))
    nchars = np.array([[len(c) for c in template.doc_to_choice(q)] for q in queries])
    base = {
        "example": [q["idx"] for q in queries],
        "label": [q["label"] for q in queries],
        "query_tokens": list(query_tokens) if query_tokens is not None else -1,
    }
    frames = []
    for p, k, prefix in plan.steps():
        ll = node_scores[prefix]
        frame = pd.DataFrame(base)
        frame["prefix_tokens"] = prefix_tokens[prefix]
        frame.insert(0, "demo", train[prefix[-1]]["idx"] if prefix else -1)
        frame.insert(0, "k", k)
        frame.insert(0, "permutation", p)
        for c in range(n_choices):
            frame[f"ll_{c}"] = ll[:, c]
        for c in range(n_choices):
            frame[f"nchars_{c}"] = nchars[:, c]
        frames.append(frame)
    df = pd.concat(frames, ignore_index=True)
    df.insert(0, "set", set_name)
    df.insert(0, "trial", plan.trial)
    df.insert(0, "dataset", plan.dataset)
    df.insert(0, "model", model)
    return df
