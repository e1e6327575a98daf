"""Rules audit_data, audit_data_leaderboard: one released source -> its runs table."""

from evalsci.audit import steps
from evalsci.workflow import logged

smk = snakemake  # noqa: F821 (injected by Snakemake)
with logged(smk):
    steps.make_runs(
        smk.params.source,
        {"bundle": smk.input.bundle},
        smk.output.runs,
        getattr(smk.output, "scope", None),
    )
