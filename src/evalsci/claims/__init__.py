"""Each paper's claims ledger: one row per claim of a paper (quote, the paper's value, ours, its
uncertainty, the artefact ours rests on, and the verdict by the one rule).

- `ledger`: the row type `Claim`, the file schema `COLUMNS`, and CSV write/read with checks;
- the verdict itself is decided by one function only, `evalsci.stats.agreement.judge`
  (`judge_test` for qualitative claims, `untestable` where this machine cannot test a claim).

A study builds its rows in `evalsci.studies.<study>.claims`; the rule `<study>_claims` writes
them to `results/<study>/claims.csv`; `evalsci claims` reads them back.
"""
