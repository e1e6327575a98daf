# Set-up done once, first, while the workflow is read: every side effect of parsing is here.
# The other rule files only define rules and read `config`.
import os
import sys
from pathlib import Path

# 1. Scripts import `evalsci` from src/, in this process and in every job (a subprocess, maybe
#    in a conda env that does not have it installed: PYTHONPATH).
SRC = str(Path(workflow.basedir) / "src")
if SRC not in sys.path:
    sys.path.insert(0, SRC)

from evalsci.pipeline.configfiles import check_config_files  # noqa: E402
from evalsci.settings import resolve  # noqa: E402
from evalsci.pipeline.jobs import (  # noqa: E402
    coerce_cli_booleans,
    coerce_cli_numbers,
    prepend_pythonpath,
)

prepend_pythonpath(SRC)

# 2. The configuration. Snakemake keeps the last of two equal keys without a word and names no
#    file for a broken one: every config file (config.yaml and each --configfile) is read
#    strictly first. Then the command line's strings become what the user meant
#    (`recompute=true` arrives as "true", nested `prompts: 2` as "2"), and the config is
#    resolved over the study presets and sheets and validated, once (evalsci.settings; its
#    errors name the key and the file and line that set it): the rules read the result.
CONFIGFILE = f"{workflow.basedir}/config.yaml"
check_config_files([CONFIGFILE, *workflow.overwrite_configfiles])


configfile: CONFIGFILE


coerce_cli_booleans(config)
coerce_cli_numbers(config, dict(workflow.config_settings.config))  # the --config entries only
_resolved = resolve(
    config,
    Path(workflow.basedir),
    files=[CONFIGFILE, *workflow.overwrite_configfiles],  # errors name the file and line
    cli=dict(workflow.config_settings.config),
)
config.clear()
config.update(_resolved)

# 3. The environment every job inherits. No hub is reachable on the project's machines;
#    without these a hub call hangs ~30 s. Portable arithmetic (config `portable`): the kernel
#    pins go into this process's environment before any job starts.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

from evalsci.pipeline.determinism import apply_portable  # noqa: E402

apply_portable(config["portable"])

# 4. The hub commits this results/ tree loaded (evalsci.pipeline.hublock), for the report's
#    front page (workflow/report/workflow.rst); read when the report is made, after the runs.
from evalsci.pipeline.hublock import summary as _hub_lock_summary  # noqa: E402

config["hub_lock"] = _hub_lock_summary()
