"""Yauney & Mimno, *Stronger Random Baselines for In-Context Learning* (papers 000/001).

The paper's procedures, in its words, over the authors' released raw results (or our own
recompute in the same schema). Random-baseline numbers are never computed here: they are
read from the shared maxrandom rule's output.

Modules, in the order of the paper:
- `settings`: the experiment grid and the exact n and t per experiment (Appendix B);
- `load`: readers of the authors' released files (or our recompute in their schema);
- `columns`: the column schemas of the files it reads and writes;
- `keys`, `maxrandom_requests`: the baselines asked of the maxrandom rule, and their lookup;
- `table1`: Table 1 (Section 5.1); `table2`: Table 2 (000 Appendix C), non-quantized models;
- `curves`, `dodge`: expected maximum accuracy against t;
- `heldout`: Section 5.2 / Appendix D held-out prediction (Tables 3-4, Figures 5, 8);
- `section53`: Section 5.3, Mizrahi et al.'s multi-prompt results;
- `consistency`: the per-example CSVs against aggregated-results.json, and the data's quirks;
- `figures`: Figures 1-11; `formatting`: Markdown/LaTeX helpers of the tables;
- `plan`: every path the study's rules read and write, from the settings;
- `steps`: the functions the study's rules run (through workflow/scripts/call.py), one per rule;
- `doc_blocks`: the generated blocks of docs/baselines.md;
- `claims`: the claims ledger: every claim of 000/001, ours and its verdict by the one rule;
- `recompute_grid`, `shards`, `resumable`: our own few-shot inference (the recompute path);
- `audit_runs`: this study's results as runs tables for the audit study.
"""
