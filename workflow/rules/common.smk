# Python helpers shared by every rule file. No rules here, and no side effects (setup.smk
# has them all).
# Naming across the .smk files. A study keeps its helpers in its <study>_common.smk; its constants
# are <STUDY>_NAME (upper case, the full study name), its functions <study>_name (lower case),
# and evalsci imports are aliased _<study>_name (private to the .smk files).
import os
from pathlib import Path

from evalsci import paths
from evalsci.data.released import BUNDLES, MIRROR_ENV
from evalsci.pipeline import artefacts as _artefacts
from evalsci.pipeline.jobs import recorded
from evalsci.settings import recomputes

STUDIES = ("baselines", "tapt", "assessors", "mc_icl", "audit")
# Targets of other studies that need our own inference (no released results behind them).
RECOMPUTE_ONLY_TARGETS = {"baselines_table2"}

# Conda envs (`--use-conda`; docs/workflow.md "Conda envs"): one env, the lock's packages,
# for every rule; a rule's key names its concern. The GPU rules take the same env with PyPI's
# CUDA build of torch when EVALSCI_TORCH=cuda (docs/cluster.md), else the lock's CPU build.
TORCH_BUILD = os.environ.get("EVALSCI_TORCH", "cpu")
if TORCH_BUILD not in ("cpu", "cuda"):
    raise ValueError(f"EVALSCI_TORCH={TORCH_BUILD!r}: cpu (the default) or cuda")
ENV = {c: "../../envs/evalsci.yaml" for c in ("core", "lm", "bayes", "assess")}
ENV["gpu"] = "../../envs/evalsci-cuda.yaml" if TORCH_BUILD == "cuda" else ENV["lm"]


def mirror_dir():
    """The released-data mirror: $EVALSCI_MIRROR, else config `mirror`, else None."""
    return os.environ.get(MIRROR_ENV) or config.get("mirror")


def released(bundle, path=""):
    """Path of a verified released bundle (a directory), or of a file inside it."""
    if bundle not in BUNDLES:
        raise ValueError(f"unknown released bundle {bundle!r}; known: {sorted(BUNDLES)}")
    return paths.released(bundle, path)


def recompute(study):
    """True when `study` should run our own inference instead of the released results."""
    return recomputes(config, study)


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
        if r.name in RECOMPUTE_ONLY_TARGETS and not recompute(study_of(r)):
            continue
        files.extend(str(f) for f in r.input)
    return files


def maxrandom_file(study, name="baselines"):
    """A study's exchange with the shared `maxrandom` rule: `requests` (what the study asks),
    `baselines` and `distributions` (the rule's answers): results/<study>/maxrandom/<name>.csv."""
    return paths.maxrandom(study, name)


def table(study, name):
    """A paper table: CSV (machine-readable), Markdown (README) and LaTeX (paper)."""
    return list(paths.table(study, name))


def figure(study, name):
    """A paper figure: matplotlib PDF + PNG."""
    return list(paths.figure(study, name))


def code(module):
    """The source file of an evalsci module ("evalsci.studies.baselines.steps"): the `code`
    input of a rule that runs one of its functions through workflow/scripts/call.py, so that
    editing the module reruns the rule."""
    path = Path(SRC, *module.split(".")).with_suffix(".py")
    if not path.is_file():
        raise ValueError(f"code({module!r}): no module {path}")
    return str(path)


def artefact_targets():
    """{target: its files} of every target of the artefact registry (src/evalsci/pipeline/artefacts.yaml),
    in its order: the study's <STUDY>_TARGETS entry where the files depend on its settings,
    else the outputs the registry lists for the target (those of its default-build entries
    when it has any: baselines_table1 is Table 1, not also the recompute's input to it)."""
    entries = {}
    for a in _artefacts.artefacts():
        if a.target:
            entries.setdefault(a.target, []).append(a)
    out = {}
    for target, arts in entries.items():
        own = globals().get(f"{arts[0].study.upper()}_TARGETS", {})
        if target in own:
            out[target] = own[target]
            continue
        chosen = [a for a in arts if a.build == "default"] or arts
        out[target] = [f for a in chosen for f in a.outputs]
    for study in STUDIES:
        unknown = set(globals().get(f"{study.upper()}_TARGETS", {})) - set(entries)
        if unknown:
            raise ValueError(f"{study.upper()}_TARGETS: no registry entry has target(s) {unknown}")
    return out
