"""`audit`: the max random baseline applied to public many-model results.

Sources (released data only): the Open LLM Leaderboard v2 (PredictaBoard bundle), Mizrahi et
al.'s instruction paraphrases (through the `baselines` study's Section 5.3 code), the 288
experiments of Yauney & Mimno, and the 14 OpenAI LLMs of the evals logs. Each source becomes a
runs table (sources.py); the study asks the shared `maxrandom` rule for every baseline and tail
(maxrandom_requests.py), then counts runs above the standard and the max random baseline (tables.py)
and draws them (figures.py). steps.py has one entry point per rule.
"""
