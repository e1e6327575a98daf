# Generated tables in docs/ (showyourwork's rule): `snakemake --cores 2 docs_tables` renders
# the blocks registered in evalsci.pipeline.doctables from the results and writes each into its doc.
from evalsci.pipeline.doctables import blocks as _doc_blocks, buildable as _doc_buildable

# Blocks whose result files this configuration makes (enabled studies and collections).
DOC_BLOCKS = _doc_buildable(
    config["studies"],
    list(ASSESSORS_COLLECTIONS),
    [s for s in STUDIES if recompute(s)],
)


rule docs_tables:
    """The "ours vs the paper" tables of docs/*.md, from result files and reference.yaml."""
    input:
        sorted({i for n in DOC_BLOCKS for i in _doc_blocks()[n].files}),  # the blocks' results
        code=code("evalsci.pipeline.doctables"),
    output:
        tables=paths.result("docs", "tables.md"),
    log:
        paths.log("docs", "tables"),
    localrule: True
    conda:
        ENV["core"]
    params:
        function="write_docs",
        # the checkout whose docs/ it writes (a localrule); a Path: the lint takes a str prefix
        # of the `code` input for a path built from a file name
        docs_root=recorded(Path(workflow.basedir)),
        blocks=DOC_BLOCKS,
    script:
        "../scripts/call.py"
