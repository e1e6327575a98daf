"""Rule audit_requests: every baseline the audit needs, for the shared maxrandom rule."""

from evalsci.audit import steps
from evalsci.workflow import logged

smk = snakemake  # noqa: F821 (injected by Snakemake)
with logged(smk):
    steps.make_requests(list(smk.input.runs), smk.output.requests, smk.params.cfg)
