# Released raw results of the authors, verified against pinned sha256 (evalsci.data.released).
from snakemake_interface_executor_plugins.settings import ExecMode

from evalsci.data.released import check_mirror, verify_fetched_bundles

# Every fetched bundle is checked against its SHA256SUMS when a run starts (dry runs too: one
# stat per file unless a file changed). A file edited after its fetch stops the run here,
# naming the file, before any job is scheduled: a plain rerun would say "nothing to be done",
# and a rerun of a consumer would delete its good outputs first. Not in job subprocesses.
# A mirror that is set but missing (a typo, an unmounted disk) is named here too, not by the
# first fetch job.
if workflow.exec_mode == ExecMode.DEFAULT:
    verify_fetched_bundles(paths.RELEASED)
    if mirror_dir():
        check_mirror(mirror_dir())


wildcard_constraints:
    bundle="|".join(BUNDLES),


rule released_bundle:
    """Fetch one bundle of released files (mirror or upstream at the pinned commit) and verify it."""
    input:
        code=code("evalsci.data.released"),
    output:
        directory=directory(paths.released("{bundle}")),
    log:
        paths.log("data", "released_{bundle}"),
    benchmark:
        paths.benchmark("data", "released_{bundle}")
    conda:
        ENV["core"]
    params:
        function="fetch",
        mirror=mirror_dir(),
    script:
        "../scripts/call.py"
