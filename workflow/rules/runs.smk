# Runs that share this working directory (docs/troubleshooting.md, src/evalsci/pipeline/runlocks.py):
# one record per run; the locks of a live run, or of a killed run whose jobs still run, are
# written back if a neighbour's exit removed them, so Snakemake refuses an overlapping run;
# the locks of a dead run are removed, so no `--unlock` is needed after a kill.
import sys

from snakemake_interface_executor_plugins.settings import ExecMode

from evalsci.pipeline import artefacts as _registry
from evalsci.pipeline.console import compact_targets, run_summary
from evalsci.pipeline.runlocks import check_runs, clear_run, record_run

if workflow.exec_mode == ExecMode.DEFAULT:  # not in the subprocess of a spawned job
    check_runs()


# The console: rule `all` and the named targets with their file lists as counts (the files
# are in docs/artefacts.md); at the end of a run, where the results, logs and report are.
compact_targets({"all", *(a.target for a in _registry.artefacts() if a.target)})


onstart:
    record_run(workflow)


onsuccess:
    clear_run()
    # .get: a test workflow that includes this file alone has no `studies`
    print(run_summary(config.get("studies", ()), log), file=sys.stderr)


onerror:
    clear_run()
