"""Which files the tapt rules make, from the config and the configurations present.

Pure functions used by workflow/rules/tapt.smk (kept here so the rule file holds rules only).
`present` is the list of configurations of the source (released or recompute), in paper order.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from evalsci.studies.tapt.data import configs_of_files, family_of_config

FIT = "results/tapt/fits/{config}/{comparison}_{variant}"
COMPARISONS = ("boost", "bias")


def present_configs(recompute: bool, recompute_files, released_configs) -> list[str]:
    """Configurations of the source: the recompute files' or the released bundle's."""
    return configs_of_files(recompute_files()) if recompute else list(released_configs)


def select(present: list[str], wanted) -> list[str]:
    """`all`, or the listed configurations that are present; a recompute subset that has none
    of them gets all it has."""
    if wanted == "all":
        return list(present)
    return [c for c in present if c in wanted] or list(present)


def fit_stems(tapt_cfg: dict, present: list[str]) -> list[str]:
    """Every (config, comparison, variant) fit of this run, as path stems."""
    full = tapt_cfg["scale"] == "full"
    fits = tapt_cfg["fits"]
    stems = []
    for variant, wanted in (("authors", fits["configs"]), ("eq2", fits["eq2_configs"])):
        for config in select(present, "all" if full else wanted):
            for comparison in COMPARISONS:
                stems.append(FIT.format(config=config, comparison=comparison, variant=variant))
    return stems


def _parts(stem: str) -> tuple[str, str, str]:
    p = PurePosixPath(stem)
    comparison, variant = p.name.split("_", 1)
    return p.parent.name, comparison, variant


def families(stems: list[str]) -> list[str]:
    """Experiment families with at least one fit of the authors' model variant."""
    fitted = [c for c, _, v in map(_parts, stems) if v == "authors"]
    return list(dict.fromkeys(family_of_config(c) for c in fitted))


def family_draws(stems: list[str], family: str) -> list[str]:
    """Posterior draw files of the authors' variant of one family."""
    return [
        f"{s}.draws.csv.gz"
        for s in stems
        if _parts(s)[2] == "authors" and family_of_config(_parts(s)[0]) == family
    ]


def meta_configs(tapt_cfg: dict, present: list[str]) -> list[str]:
    return [c for c in present if c in tapt_cfg["meta"]["configs"]]


def resolve_on_failure(setting: str, recomputing: bool) -> str:
    """What a failed convergence check does: `auto` fails loudly on the released data and
    warns on recompute runs (the embedded CPU demo has too few subsamples to pass)."""
    if setting == "auto":
        return "warn" if recomputing else "error"
    return setting
