# Runs that share this working directory (docs/troubleshooting.md, src/evalsci/pipeline/runlocks.py):
# one record per run; the locks of a live run, or of a killed run whose jobs still run, are
# written back if a neighbour's exit removed them, so Snakemake refuses an overlapping run;
# the locks of a dead run are removed, so no `--unlock` is needed after a kill.
from snakemake_interface_executor_plugins.settings import ExecMode

from evalsci.pipeline.runlocks import check_runs, clear_run, record_run

if workflow.exec_mode == ExecMode.DEFAULT:  # not in the subprocess of a spawned job
    check_runs()


onstart:
    record_run(workflow)


onsuccess:
    clear_run()


onerror:
    clear_run()
