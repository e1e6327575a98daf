"""Rule docs_tables: write every generated block into its doc (and all of them to one file)."""

from evalsci.doctables import write_all
from evalsci.workflow import logged

smk = snakemake  # noqa: F821
with logged(smk):
    write_all(".", smk.params.docs_root, smk.output[0], names=smk.params.blocks)
