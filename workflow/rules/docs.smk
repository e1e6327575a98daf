# Generated tables in docs/ (showyourwork's rule): `snakemake --cores 2 docs_tables` renders
# every block registered in evalsci.doctables from the results and writes it into its doc.
from evalsci.doctables import blocks as _doc_blocks


rule docs_tables:
    """The "ours vs the paper" tables of docs/*.md, from result files and reference.yaml."""
    input:
        sorted({i for b in _doc_blocks().values() for i in b.inputs}),
    output:
        "results/docs/tables.md",
    params:
        docs_root=workflow.basedir,
    log:
        "logs/docs/tables.log",
    localrule: True
    conda:
        ENV["core"]
    script:
        "../scripts/docs_tables.py"
