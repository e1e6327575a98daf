"""assessors: sentence embeddings of every instance of a collection (cached)."""

from evalsci.workflow import configure_threads, logged

smk = snakemake  # noqa: F821
with logged(smk):
    configure_threads(smk.threads)
    import torch

    torch.set_num_threads(smk.threads)
    from evalsci.studies.assessors.steps import build_embeddings

    build_embeddings(smk.input.instances, smk.params.embedding, smk.output.embeddings)
