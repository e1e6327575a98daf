"""Rule audit_make: counts table, per-run detail and figure of one source."""

from evalsci.audit import steps
from evalsci.workflow import logged

smk = snakemake  # noqa: F821 (injected by Snakemake)
with logged(smk):
    steps.make_tables(
        smk.params.source,
        smk.input.runs,
        smk.input.baselines,
        list(smk.output.table),
        smk.output.detail,
        list(smk.output.figure),
        smk.input.scope or None,
    )
