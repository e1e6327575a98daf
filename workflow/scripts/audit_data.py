"""Rules audit_data, audit_data_leaderboard: one released source -> its runs table."""

from evalsci.audit import steps
from evalsci.studies.baselines import audit_runs
from evalsci.studies.baselines import steps as baselines_steps
from evalsci.workflow import logged

smk = snakemake  # noqa: F821 (injected by Snakemake)
with logged(smk):
    if smk.params.source in audit_runs.SOURCES:
        # the baselines study reads its own released results (evalsci.audit imports no study)
        baselines_steps.make_audit_runs(smk.params.source, smk.input.bundle, smk.output.runs)
    else:
        steps.make_runs(
            smk.params.source,
            {"bundle": smk.input.bundle},
            smk.output.runs,
            getattr(smk.output, "scope", None),
        )
