"""Paper 002 (Dubey): is task-adaptive pretraining on unlabeled *test* text unfair?

Modules, in the order of the paper:
- `data`: the authors' accuracies (released or recomputed) as one long table;
- `table1`: Table 1, means of the paired accuracy differences;
- `permutation`: per-task paired permutation tests with Benjamini-Hochberg (eqs. 9-10);
- `spread`: the exact sign-flip law of those tests and the seed-to-seed spread of their
  Monte Carlo summaries at the paper's resample count;
- `hierarchical`: the model of Section 6 (formula, explicit priors, long format), and
  `reparam` the same model in coordinates NUTS samples well;
- `posteriors`: fitting it for every configuration, beta summaries, posterior predictive
  averages (Section 6.2, Figures 2-4);
- `meta`: the meta-analysis of unreplicated slices (Section 10, Figure 5);
- `simulate`: prior predictive checks and recovery of simulated effects (Appendix E.1);
- `pca`: the PCA experiment (Appendix G, Figure 6);
- `figures`: Figure 1 and Figures 9-15 (difference distributions), Figures 2-5;
- `settings`: the settings object the rules build once from the config (`TaptSettings`),
  and the checks of its configuration names and NUTS backend;
- `plan`: every path the study's rules read and write, from the settings and the
  configurations of the source;
- `steps`: the functions the rules run (workflow/scripts/call.py), one per rule;
- `columns`: the column schemas of the files it reads and writes;
- `claims`: the claims ledger (every claim of the paper, ours and the verdict by one rule);
- `doc_blocks`: the generated blocks of docs/tapt.md.
`training/` (our own recompute of the accuracies: pretraining, classifiers, (Q)LoRA
zero-shot, resumable shards) is a separate subpackage. The study compares against no random
baseline, so it has no maxrandom requests module.
"""
