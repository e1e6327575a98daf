"""Issue 35 item 2: a typo in a list that selects among known names stops the run before any
job, naming the key, the file and the valid names (it used to select everything, or nothing)."""

from __future__ import annotations

import pytest

from evalsci.studies.tapt import settings as tapt_settings
from evalsci.studies.tapt.data import RELEASED_CONFIGS
from evalsci.studies.tapt.plan import plan
from evalsci.studies.tapt.settings import resolved_settings

from conftest import snakemake

RECOMPUTED = ["m16_n32", "gpt2_epochs_2_m16_n32"]  # a recompute run's own configurations


def _fits(configs, eq2=()):
    return tapt_settings.Fits(configs=tuple(configs), eq2_configs=tuple(eq2))


def test_a_typo_in_fits_configs_is_an_error_not_every_fit():
    present = list(RELEASED_CONFIGS)
    with pytest.raises(tapt_settings.SelectionError) as e:
        _fits(["m100_n5000_typo"]).stems(present)
    msg = str(e.value)
    assert msg.startswith("config tapt.fits.configs (") and "'m100_n5000_typo'" in msg
    assert "'m100_n500'" in msg  # the valid names are listed
    assert _fits(["m100_n500"]).stems(present) == [
        ("m100_n500", c, "authors") for c in ("boost", "bias")
    ]
    # the plan's summary files of the selected fits
    p = plan(resolved_settings(fits={"configs": ["m100_n500"], "eq2_configs": []}))
    assert p.fit_summaries() == [
        f"results/tapt/fits/m100_n500/{c}_authors.json" for c in ("boost", "bias")
    ]


def test_an_empty_list_selects_nothing():
    assert _fits([], eq2=[]).stems(list(RELEASED_CONFIGS)) == []


def test_a_recompute_source_without_the_listed_released_configurations_gets_its_own():
    """The defaults name released configurations; a recompute run has others: all of its own
    are fitted (a typo is still an error there)."""
    assert tapt_settings.select(RECOMPUTED, ["m100_n500"]) == RECOMPUTED
    assert tapt_settings.select(RECOMPUTED, ["m16_n32"]) == ["m16_n32"]
    with pytest.raises(tapt_settings.SelectionError, match="'m16_n3'"):
        tapt_settings.select(RECOMPUTED, ["m16_n3"])


def test_a_typo_in_meta_configs_is_an_error_not_dropped():
    present = list(RELEASED_CONFIGS)
    meta = {"m100_n500": 0.04, "zero_shot_n100": 0.07}

    def _meta(configs):
        return tapt_settings.Meta(
            n_slices=1, configs=tuple(configs.items()), target_accept=0.9, tune=1
        )

    assert _meta(meta).present(present) == ["m100_n500", "zero_shot_n100"]
    with pytest.raises(
        tapt_settings.SelectionError, match=r"config tapt\.meta\.configs .*'m100_n50O'"
    ):
        _meta({**meta, "m100_n50O": 0.04}).present(present)


#: typos through a dry run of the workflow: (config file text, the key named)
TYPOS = {
    "fits": ("tapt:\n  fits:\n    configs: [m100_n5000_typo]\n", "tapt.fits.configs"),
    "eq2": ("tapt:\n  fits:\n    eq2_configs: [zero_shot_n10]\n", "tapt.fits.eq2_configs"),
    "meta": ("tapt:\n  meta:\n    configs:\n      m100_n5000: 0.04\n", "tapt.meta.configs"),
    # Figure 7's configuration: a typo used to fall back to the first configuration silently
    "simulate": ("tapt:\n  simulate:\n    config: m100_n20O\n", "tapt.simulate.config"),
}


@pytest.mark.workflow  # runs snakemake (a dry run)
@pytest.mark.parametrize("what", sorted(TYPOS))
def test_a_typo_stops_the_dry_run_naming_key_and_file(tmp_path, mirror, what):
    text, key = TYPOS[what]
    f = tmp_path / "typo.yaml"
    f.write_text(text)
    proc = snakemake(
        tmp_path, "-n", "tapt_table1", "--configfile", str(f), mirror=mirror, check=False
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert f"config {key} (" in out and str(f) in out and "unknown configuration" in out, out[
        -2000:
    ]
    assert "m100_n500" in out  # the valid names
    assert "Building DAG" not in out and not (tmp_path / "results").exists()


ASSESSOR_TYPOS = {
    "llms": (
        "assessors:\n  collections:\n    cfi_ground_truth:\n      llms:\n"
        "        train: [gpt-4-0613, gpt-5-typo]\n        validation: [gpt-3.5-turbo-0125]\n"
        "        test: [gpt-3.5-turbo-0301]\n",
        "assessors.collections.cfi_ground_truth.llms.train",
        "'gpt-5-typo'",
    ),
    "ood_splits": (
        "assessors:\n  collections:\n    cfi_ground_truth:\n      ood_splits:\n"
        "        ood_neubaroco: [neubarocco]\n",
        "assessors.collections.cfi_ground_truth.ood_splits.ood_neubaroco",
        "'neubarocco'",
    ),
    "datasets": (
        "assessors:\n  collections:\n    cfi_ground_truth:\n      datasets: [causal_judgement]\n",
        "assessors.collections.cfi_ground_truth.datasets",
        "'causal_judgment'",  # the valid names listed: the bundle spells it without the e
    ),
}


@pytest.mark.parametrize("what", sorted(ASSESSOR_TYPOS))
def test_an_assessors_name_typo_is_named_before_any_job(tmp_path, what):
    """An LLM or dataset of a released evals-logs collection that the bundle lacks failed in
    the collection's first job; the pinned manifest names them at parse time."""
    from evalsci.pipeline.configfiles import load_config_file
    from evalsci.settings import ROOT, merge, resolve
    from evalsci.studies.assessors.names import check_released_names
    from evalsci.studies.assessors.settings import AssessorsSettings

    text, key, needle = ASSESSOR_TYPOS[what]
    f = tmp_path / "typo.yaml"
    f.write_text(text)
    cfg = resolve(
        merge(load_config_file(ROOT / "config.yaml"), load_config_file(f)),
        ROOT,
        files=[ROOT / "config.yaml", f],
    )
    settings = AssessorsSettings.from_config(cfg["assessors"])
    with pytest.raises(ValueError) as e:
        check_released_names(settings.collection("cfi_ground_truth"))
    msg = str(e.value)
    assert msg.startswith(f"config {key} (set in {f}, line ") and needle in msg, msg
    check_released_names(settings.collection("predictaboard"))
