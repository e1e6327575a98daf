# Released raw results of the authors, verified against pinned sha256 (evalsci.data.released).


wildcard_constraints:
    bundle="|".join(BUNDLES),


rule released_bundle:
    """Fetch one bundle of released files (mirror or upstream at the pinned commit) and verify it."""
    output:
        directory("resources/released/{bundle}"),
    log:
        "logs/data/released_{bundle}.log",
    benchmark:
        "logs/data/released_{bundle}.benchmark.tsv"
    conda:
        ENV["core"]
    params:
        mirror=mirror_dir(),
    script:
        "../scripts/fetch_released.py"
