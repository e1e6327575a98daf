"""Schoch & Ji, *Monte Carlo Sampling for Analyzing In-Context Examples* (paper 004).

- `params`: the effective parameters of the configured scale;
- `templates`: lm-evaluation-harness default prompts and few-shot assembly;
- `sampler`: Algorithm 1 (trials, permutations, every k) and its bookkeeping;
- `inference`: runs Algorithm 1 with the shared-prefix scorer of `evalsci.lm.scoring`;
- `shards`: one inference job (one trial or one Section 5.2 set), the recompute unit;
- `scores`: per-example, per-choice log-likelihood shards and accuracies;
- `columns`: the column schemas of the files it writes;
- `selection`: Section 5.2 z-score selection of high/low examples;
- `maxrandom_requests`: the max random baseline requests for Figures 1-4;
- `summary`: the per-(model, dataset) summary against the random baselines;
- `findings`: the paper's Section 5.1 findings as stated tests on a run's scores;
- `claims`: the claims ledger of paper 004 (every claim, its verdict by the one rule);
- `figures`: Figures 1-20;
- `plan`: every path the study's rules read and write, from the settings;
- `steps`: the functions the study's rules run (through workflow/scripts/call.py), one per rule;
- `doc_blocks`: the generated blocks of docs/mc_icl.md.
"""
