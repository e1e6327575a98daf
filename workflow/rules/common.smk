# Python helpers shared by every rule file. No rules here.
import os
import sys
from pathlib import Path

# Scripts import `evalsci` from src/ even inside a conda env that does not have it installed.
SRC = str(Path(workflow.basedir) / "src")
if SRC not in sys.path:
    sys.path.insert(0, SRC)
# No hub is reachable on the project's machines; without these a hub call hangs ~30 s.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

from evalsci.data.released import BUNDLES, MIRROR_ENV  # noqa: E402
from evalsci.workflow import prepend_pythonpath  # noqa: E402

prepend_pythonpath(SRC)

STUDIES = ("baselines", "tapt", "assessors", "mc_icl", "audit")
# Studies with no released raw results: rule `all` builds them only with recompute=true.
RECOMPUTE_ONLY = {"mc_icl"}

ENV = {c: f"../../envs/{c}.yaml" for c in ("core", "lm", "bayes", "assess")}


def mirror_dir():
    """The released-data mirror: $EVALSCI_MIRROR, else config `mirror`, else None."""
    return os.environ.get(MIRROR_ENV) or config.get("mirror")


def released(bundle, path=""):
    """Path of a verified released bundle (a directory), or of a file inside it."""
    if bundle not in BUNDLES:
        raise ValueError(f"unknown released bundle {bundle!r}; known: {sorted(BUNDLES)}")
    base = f"resources/released/{bundle}"
    return f"{base}/{path}" if path else base


def recompute(study):
    """True when `study` should run our own inference instead of the released results."""
    return bool(config["recompute"]) or config[study].get("source") == "recompute"


def study_of(r):
    """The study a rule belongs to (by its name prefix), or None."""
    return next((s for s in STUDIES if r.name.startswith(f"{s}_")), None)


def is_target(r):
    """Named paper-artefact targets: rules `<study>_<artefact>` with inputs and no outputs."""
    return not r.output and study_of(r) is not None


def all_targets(wildcards):
    """Inputs of every named target of the enabled studies (rule `all`)."""
    files = []
    for r in workflow.rules:
        if not is_target(r) or study_of(r) not in config["studies"]:
            continue
        if study_of(r) in RECOMPUTE_ONLY and not config["recompute"]:
            continue
        files.extend(str(f) for f in r.input)
    return files


def table(study, name):
    """A paper table: CSV (machine-readable), Markdown (README) and LaTeX (paper)."""
    return multiext(f"results/{study}/tables/{name}", ".csv", ".md", ".tex")


def figure(study, name):
    """A paper figure: matplotlib PDF + PNG."""
    return multiext(f"results/{study}/figures/{name}", ".pdf", ".png")


# The hub commits this results/ tree loaded (evalsci.hublock), for the report's front page
# (workflow/report/workflow.rst); read when the report is made, after the runs.
from evalsci.hublock import summary as _hub_lock_summary  # noqa: E402

config["hub_lock"] = _hub_lock_summary()
