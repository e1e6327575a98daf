"""Each paper's claims ledger: one row per claim of a paper (quote, the paper's value, ours, its
uncertainty, the artefact ours rests on, and the verdict by the one rule).

- `ledger`: the row type `Claim`, the file schema `COLUMNS`, and CSV write/read with checks;
- `render`: where a study's ledger lives (the artefact registry's `<study>.claims`), the
  terminal table, CSV, JSON and Markdown, the summary line per paper, the doc blocks;
- `command`: `evalsci claims`;
- the verdict itself is decided by one function only, `evalsci.stats.agreement.judge`
  (`judge_test` for qualitative claims, `untestable` where this machine cannot test a claim).

The convention every study follows: `evalsci.studies.<study>.claims` has one function
returning `list[Claim]` from the study's result files (the quotes, sections and paper values in
the study's reference.yaml, `claims`) and the step its rule runs; the registry entry
`<study>.claims` (target `<study>_claims`, rule `<study>_make_claims`, through
workflow/scripts/call.py) writes `results/<study>/claims.csv` atomically; the study's doc has a
`<study>_claims` block and the README block `claims_summary` reads its ledger;
`evalsci claims` reads them back.
"""
