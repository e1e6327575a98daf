# Generated tables in docs/ (showyourwork's rule): `snakemake --cores 2 docs_tables` renders
# the blocks registered in evalsci.doctables from the results and writes each into its doc.
from evalsci.doctables import blocks as _doc_blocks, buildable as _doc_buildable

# Blocks whose result files this configuration makes (enabled studies and collections).
DOC_BLOCKS = _doc_buildable(
    config["studies"],
    list(ASSESSORS_COLLECTIONS),
    [s for s in STUDIES if recompute(s)],
)


rule docs_tables:
    """The "ours vs the paper" tables of docs/*.md, from result files and reference.yaml."""
    input:
        sorted({i for n in DOC_BLOCKS for i in _doc_blocks()[n].inputs}),
    output:
        "results/docs/tables.md",
    log:
        "logs/docs/tables.log",
    localrule: True
    conda:
        ENV["core"]
    params:
        docs_root=workflow.basedir,
        blocks=DOC_BLOCKS,
    script:
        "../scripts/docs_tables.py"
