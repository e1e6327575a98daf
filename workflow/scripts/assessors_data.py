"""assessors: load one collection into normalised tables and report coverage gaps."""

from evalsci.studies.assessors.steps import build_data
from evalsci.workflow import logged

smk = snakemake  # noqa: F821
with logged(smk):
    build_data(
        smk.input.get("bundle", ""),
        smk.params.collection,
        smk.params.seed,
        {k: smk.output[k] for k in ("instances", "success", "coverage")},
        run_list=(
            f"{smk.input.run_list}/experiments/download_helm/helm_lite.csv"
            if "run_list" in smk.input.keys()
            else None
        ),
    )
