"""The assessors study: Pacchiardi, Cheke & Hernández-Orallo, "100 instances is all you
need: predicting the success of a new LLM on unseen data by testing on a few instances"
(paper 003).

Modules: `settings` (the settings object the rules build once from the config), `columns`
(the column schemas of the files it writes),
`collections` (load a collection into normalised tables), `names` (parse-time
checks of a collection's LLM and dataset names), `splits` (instance and LLM
splits, leakage checks), `features` (sentence embeddings, n-grams), `experiment` (one split:
every combination and baseline), `selection` (win-rate selection, Figure 2 / Table 3 data),
`uncertainty` (test AUCs against 0.5 with DeLong intervals, paired differences, winners'
stability), `claims` (the claims ledger: every claim of the paper judged by the one rule),
`maxrandom_requests` (requests to the shared max random baseline), `table3` (Table 3 beside
the paper's choice), `lomo` (leave one model out: `evalsci reference` against
tinyBenchmarks, beyond the paper), `lomo_rank` (the same by the held-out model's rank: the
weakest and strongest models, coverage by rank; issue 44), `figures` (Figure 2, Figures 8-9, the lomo figure), `plan` (every path the study's rules
read and write), `steps` (one function per workflow rule), `doc_blocks` (the generated blocks of docs/assessors.md). The reference selectors and
the classifiers / generic-assessor features are shared with `evalsci reference`: they live
in evalsci.assess (evalsci.assess.selectors, evalsci.assess.classifiers).
"""
