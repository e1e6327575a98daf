# evalsci: one DAG that regenerates the tables and figures of four papers on
# LM evaluation methodology. This file is the table of contents: each named rule below is
# one paper artefact (`snakemake --cores 2 baselines_table1`). Rules that make them live in
# workflow/rules/, the work itself in the `evalsci` package (src/evalsci).
from snakemake.utils import min_version

min_version("9.0")


# First, and the only file that changes anything while the workflow is read: sys.path, the
# configuration (config.yaml, read strictly, resolved over the study presets), the
# environment of every job.
include: "workflow/rules/setup.smk"


report: "workflow/report/workflow.rst"


include: "workflow/rules/runs.smk"
include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/maxrandom.smk"
include: "workflow/rules/lm.smk"
include: "workflow/rules/baselines.smk"
include: "workflow/rules/baselines_recompute.smk"
# tapt_recompute first: tapt.smk lists the recompute accuracies at parse time.
include: "workflow/rules/tapt_recompute.smk"
include: "workflow/rules/tapt.smk"
include: "workflow/rules/assessors.smk"
include: "workflow/rules/mc_icl.smk"
include: "workflow/rules/audit.smk"
include: "workflow/rules/docs.smk"


# Every artefact of the enabled studies (config `studies`) that their source allows.
rule all:
    default_target: True
    input:
        all_targets,


# The named targets, one per target of the artefact registry (src/evalsci/pipeline/artefacts.yaml;
# the README's artefact index lists them with their outputs, rules and functions): `snakemake
# --cores 2 baselines_table1` builds Table 1 of the baselines study. Their files: the outputs
# the registry lists, or the study's <STUDY>_TARGETS where they depend on its settings.
for _target, _files in artefact_targets().items():

    rule:
        name:
            _target
        input:
            _files,
        localrule: True
