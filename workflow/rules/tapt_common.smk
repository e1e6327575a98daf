# Helpers of the `tapt` rules (tapt.smk, tapt_recompute.smk): settings, the study's file plan,
# its code and the rules' input functions. No rules here.
# Included by tapt_recompute.smk, which the Snakefile includes before tapt.smk.
import re

from evalsci.data.hf_classification import get_spec as _tapt_dataset_spec
from evalsci.studies.tapt.plan import benchmark as tapt_benchmark
from evalsci.studies.tapt.plan import log as tapt_log
from evalsci.studies.tapt.plan import plan as _tapt_plan
from evalsci.studies.tapt.settings import COMPARISONS as TAPT_COMPARISONS
from evalsci.studies.tapt.settings import TaptSettings as _tapt_settings
from evalsci.studies.tapt.training.models import required_inputs as _tapt_model_inputs

# The study's settings, built once (a frozen, typed object): the rules and functions take
# this, not the config dict. The NUTS backend and what a failed convergence check does are
# resolved here from `portable` and `recompute` (evalsci.studies.tapt.settings).
TAPT = _tapt_settings.of(config)
# Every path the study's rules read and write (evalsci.studies.tapt.plan), from them.
TAPT_PLAN = _tapt_plan(TAPT)
# The module of the functions the study's rules run (workflow/scripts/call.py).
TAPT_STEPS = code("evalsci.studies.tapt.steps")


def tapt_lm_regex(zero_shot):
    names = [lm for lm in TAPT.training.lms if TAPT.training.is_zero_shot(lm) == zero_shot]
    return "|".join(re.escape(x) for x in names) or "^$"


def tapt_recompute_accuracy_files(wildcards=None):
    """Every accuracies.csv the configured recompute runs write (for the analysis rules)."""
    return TAPT_PLAN.run_accuracies()


def tapt_shard_files(wildcards):
    """The shards of one run, by role (rule tapt_train_merge's inputs)."""
    files = TAPT_PLAN.shard_files(wildcards.m, wildcards.n, wildcards.lm, wildcards.dataset)
    return {f"shard_{kind}": paths for kind, paths in files.items()}


def tapt_data_files(wildcards):
    """A dataset's local files (config tapt.training.data_files), or none."""
    return TAPT.training.data_files_of(wildcards.dataset) or []


def tapt_glue(wildcards):
    """The GLUE bundle, for a GLUE dataset without local files."""
    if TAPT.training.data_files_of(wildcards.dataset):
        return []
    return released("glue") if _tapt_dataset_spec(wildcards.dataset).source == "glue" else []


def tapt_checkpoint(wildcards):
    """The files of an LM type's model that a workflow rule makes (a converted checkpoint)."""
    return _tapt_model_inputs(TAPT.training.model(wildcards.lm), config["lm"].get("models"))


def tapt_run_settings(wildcards):
    """Everything one shard of (LM type, dataset) needs (a RunSettings, built at parse time): a
    param per run, so that a change to another run's settings reruns none of this one's
    shards, and a change to its own reruns them (Snakemake records the param's repr)."""
    return TAPT.training.run_settings(wildcards.lm, wildcards.dataset)


def tapt_revision(wildcards):
    """The dataset's hub revision; None: the commit locked in results/hub.lock.yaml."""
    return TAPT.training.revision(wildcards.dataset)


# The accuracies the analysis reads: the recompute rules' files, or the released bundle.
TAPT_SOURCE = (
    {"files": TAPT_PLAN.run_accuracies()}
    if TAPT.recompute
    else {"bundle": released("pretrain_on_test")}
)


def tapt_family_draws(wildcards):
    return TAPT_PLAN.family_draws(wildcards.family)


def tapt_meta_slices(wildcards):
    return TAPT_PLAN.meta_slices_all()


# The files of the study's named targets, which depend on its settings: the Snakefile makes one
# rule per target of the artefact registry (src/evalsci/pipeline/artefacts.yaml) from these.
TAPT_TARGETS = {
    "tapt_table1": [TAPT_PLAN.table1],
    "tapt_task_level": [TAPT_PLAN.task_level],
    "tapt_differences": [TAPT_PLAN.differences_all()],
    "tapt_permutation": [TAPT_PLAN.permutation_tests, TAPT_PLAN.permutation_summary],
    "tapt_beta_posteriors": [TAPT_PLAN.beta_posteriors],
    "tapt_posterior_predictive": [TAPT_PLAN.posterior_figures_all()],
    "tapt_meta_analysis": [TAPT_PLAN.meta_analysis_all()],
    "tapt_simulations": [
        TAPT_PLAN.prior_predictive_table,
        TAPT_PLAN.prior_predictive_figure,
        TAPT_PLAN.recovery_table,
        TAPT_PLAN.recovery_figure,
    ],
    "tapt_pca": [TAPT_PLAN.pca_table, TAPT_PLAN.pca_figure],
}
