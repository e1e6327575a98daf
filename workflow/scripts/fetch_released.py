"""Materialise one verified bundle of released files (see evalsci.data.released)."""

from evalsci.data.released import materialise, mirror_origin
from evalsci.workflow import logged

with logged(snakemake):  # noqa: F821
    out = materialise(
        snakemake.wildcards.bundle,  # noqa: F821
        snakemake.output[0],  # noqa: F821
        mirror=snakemake.params.mirror,  # noqa: F821
        # messages say what set it: EVALSCI_MIRROR or config `mirror` (--config mirror=...)
        origin=mirror_origin(snakemake.params.mirror) if snakemake.params.mirror else None,  # noqa: F821
    )
    print(f"verified {out}")
