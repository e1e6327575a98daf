"""The tapt recompute path (paper 002, Sections 4, 8, 9): task-adaptive pretraining,
classifier training and (Q)LoRA zero-shot, written in the author's `accuracies.csv` schema.

Modules: `splits` (Section 4 subsampling), `models` (where weights come from offline),
`pretrain` (MLM/CLM), `classify` (linear head + full finetuning), `zero_shot` (prompts,
(Q)LoRA adapter, class-name scoring), `settings` (config `tapt.training`), `shards` (one
subsample = one resumable shard; merge into accuracies.csv).
"""
