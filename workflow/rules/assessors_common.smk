# Helpers of the `assessors` rules (kept apart from the rules, as snakemake --lint asks).
A_CFG = config["assessors"]
# Enabled collections only (a collection is switched off with `enabled: false`).
A_COLLECTIONS = {k: v for k, v in A_CFG["collections"].items() if v.get("enabled", True)}


def a_dir(collection):
    return f"results/assessors/{collection}"


def a_data(collection):
    """The normalised tables, embeddings and splits a per-split job reads."""
    d = f"{a_dir(collection)}/data"
    return {
        "instances": f"{d}/instances.csv.gz",
        "success": f"{d}/success.csv.gz",
        "embeddings": f"{d}/embeddings.npy",
        "splits": f"{d}/splits.csv",
        "irt": f"{d}/irt.npz",
    }


def a_splits(collection):
    return ["random", *A_COLLECTIONS[collection]["ood_splits"]]


def a_table(collection, name):
    """A per-collection paper table (CSV, Markdown, LaTeX)."""
    return multiext(f"{a_dir(collection)}/tables/{name}", ".csv", ".md", ".tex")


def a_figure(collection, name):
    """A per-collection paper figure (PDF, PNG)."""
    return multiext(f"{a_dir(collection)}/figures/{name}", ".pdf", ".png")


def a_source(wildcards):
    """The released bundle (and, for HELM, the run list) a collection reads."""
    c = A_COLLECTIONS[wildcards.collection]
    inputs = {}
    if c.get("bundle"):
        inputs["bundle"] = released(c["bundle"])
    if c["loader"] == "helm":
        inputs["run_list"] = released("helm_lite_runs")
    return inputs


def a_nref_collections(fig):
    return [c for c, v in A_COLLECTIONS.items() if v.get("nref_figure") == fig]
