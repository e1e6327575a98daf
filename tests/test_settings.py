"""The resolved configuration (evalsci.settings): presets beneath the user's config give, for
each scale, the configuration main resolved before the presets existed, apart from the
intended renames written out in `renamed` below.

tests/fixtures/config/before_<scale>.json are main's resolved configurations at commit
fc9318c (config.yaml, the --configfile and --config below, merged by Snakemake's
update_config, then validated with defaults by snakemake.utils.validate, as its Snakefile did):
  before_default.json          (nothing)
  before_paper.json            --configfile workflow/paper_scale/main.yaml
                               --config 'tapt={scale: full}' 'assessors={grid: paper}'
  before_paper_zero_shot.json  --configfile workflow/paper_scale/tapt_zero_shot.yaml
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import re
from collections import Counter
from pathlib import Path

import pytest
import yaml

from evalsci.settings import ConfigError, merge, preset, resolve

from conftest import REPO, snakemake

BEFORE = Path(__file__).parent / "fixtures" / "config"
# The assessors grids main resolved in code (studies/assessors/steps.py GRIDS), for the keys
# left null in its config.
GRIDS_BEFORE = {
    "default": {
        "classifiers": ["logreg_l2_C1", "xgboost_bins64"],
        "n_ref_sweep": [1, 3, 10, 30, 100, 300],
        "max_train_rows": 3000,
    },
    "paper": {
        "classifiers": ["logreg_l2_C1", "logreg_l1_C1", "logreg_l1_C0.1", "xgboost"],
        "n_ref_sweep": [1, 3, 10, 30, 100, 300, 1000],
        "max_train_rows": 0,
    },
}
NEW_SCALE = {"default": "default", "full": "paper"}
# mc_icl's default preset since it is in rule `all`: sized for its share of the default DAG's
# 15 minutes on 2 cores (docs/benchmarks/default_dag.md), the demo's run; before, SST-2, RTE, WNLI and
# MRPC, K = P = 4, 12 examples, sets of 2, Figure 3 on RTE.
MC_ICL_DEFAULT_IN_RULE_ALL = {
    "datasets": ["sst2", "wnli"],
    "num_demos": 3,
    "num_permutations": 2,
    "num_eval": 4,
    "selection": {"models": ["smollm2"], "datasets": ["sst2"], "set_size": 1, "z_threshold": 1.0},
    "figure3_dataset": "wnli",
}


def renamed(before: dict, scale: str, tapt_scale: str | None = None) -> dict:
    """main's resolved configuration in the new shape: the intended renames, and nothing else."""
    new = copy.deepcopy(before)
    new["scale"] = scale
    new["models"] = "workflow/sheets/models.tsv"  # the models sheet, read into lm.models
    # baselines.recompute.{scale, default, full} -> the chosen grid's keys in
    # baselines.recompute, the preset's name in baselines.scale
    rc = new["baselines"]["recompute"]
    old = rc.pop("scale")
    grids = {k: rc.pop(k) for k in ("default", "full")}
    rc.update(grids[old])
    new["baselines"]["scale"] = NEW_SCALE[old]
    # mc_icl.{default, full} -> the chosen parameter set's keys in mc_icl
    mc = new["mc_icl"]
    old = mc["scale"]
    params = {k: mc.pop(k) for k in ("default", "full")}
    mc.update(params[old])
    mc["scale"] = NEW_SCALE[old]
    if mc["scale"] == "default":  # resized when mc_icl joined rule `all` (issue 33, item 4)
        mc.update(MC_ICL_DEFAULT_IN_RULE_ALL)
    # tapt.scale full: the values tapt.smk and targets.py typed in are now the preset's
    tapt = new["tapt"]
    if tapt["scale"] == "full":
        tapt["fits"] = {"configs": "all", "eq2_configs": "all"}
        tapt["meta"]["n_slices"] = 500
        tapt["simulate"]["n_subsamples"] = 50
        tapt["pca"]["n_trials"] = 2000
    tapt["scale"] = tapt_scale or NEW_SCALE[tapt["scale"]]
    # assessors.grid -> assessors.scale; the grid's values, resolved in code, are the preset's
    a = new["assessors"]
    grid = a.pop("grid")
    for key, value in GRIDS_BEFORE[grid].items():
        if a[key] is None:
            a[key] = value
    a["scale"] = grid
    return new


def user_config(*overrides: dict) -> dict:
    cfg = yaml.safe_load((REPO / "config.yaml").read_text())
    for o in overrides:
        cfg = merge(cfg, o)
    return cfg


@pytest.mark.parametrize(
    ("name", "overrides", "tapt_scale"),
    [
        ("default", [], None),
        ("paper", [{"scale": "paper"}], None),
        ("paper_zero_shot", [{"tapt": {"scale": "paper_zero_shot"}}], "paper_zero_shot"),
    ],
)
def test_each_scale_resolves_to_what_main_resolved(name, overrides, tapt_scale):
    before = json.loads((BEFORE / f"before_{name}.json").read_text())
    scale = "paper" if name == "paper" else "default"
    expected = renamed(before, scale, tapt_scale)
    got = json.loads(json.dumps(resolve(user_config(*overrides))))  # tuples -> lists
    # Every setting main had, with its value; keys added since (a new setting with its schema
    # default) are not this test's business.
    assert _like(got, expected) == expected


def _like(new, old):
    """`new` restricted to the mapping keys `old` has (recursively)."""
    if isinstance(new, dict) and isinstance(old, dict):
        return {k: _like(new[k], old[k]) for k in old if k in new}
    return new


def test_the_users_config_wins_over_the_preset():
    cfg = resolve(user_config({"scale": "paper", "mc_icl": {"num_trials": 3}}))
    assert cfg["mc_icl"]["num_trials"] == 3
    assert cfg["mc_icl"]["num_demos"] == 20  # the rest of the paper preset stays


def test_a_studys_own_scale_overrides_the_top_level_one():
    cfg = resolve(user_config({"scale": "paper", "baselines": {"scale": "demo"}}))
    assert cfg["baselines"]["scale"] == "demo"
    assert cfg["baselines"]["recompute"]["prompts"] == 2
    assert cfg["mc_icl"]["scale"] == "paper"


def test_every_study_preset_resolves_and_validates():
    for study in ("baselines", "tapt", "assessors", "mc_icl"):
        for name in ("demo", "default", "paper"):
            p = preset(study, name)
            assert p["scale"] == name
            resolve(user_config({study: {"scale": name}}))


@pytest.mark.parametrize(
    ("override", "needle"),
    [
        ({"scale": "huge"}, "config scale (not set in any config file"),
        ({"tapt": {"scale": "huge"}}, "is not a preset of tapt; its presets (files in"),
        ({"mc_icl": {"num_trials": 0}}, "config mc_icl.num_trials"),
        ({"baselines": {"recompute": {"prompt": 3}}}, "unknown key 'prompt'"),
    ],
)
def test_bad_settings_fail_naming_the_key(override, needle):
    with pytest.raises(ConfigError) as err:
        resolve(user_config(override))
    assert needle in str(err.value)


def test_sheets_read_into_the_tables(tmp_path):
    cfg = resolve(user_config())
    assert cfg["lm"]["models"]["Alpaca-7b-full"] == {
        "hub": "resources/models/alpaca-7b",
        "display": "Alpaca-7b",
        "quantize": "none",
        "mem_mb": 40000,
        "instruction_tuned": True,
    }
    hp = cfg["tapt"]["training"]["hyperparameters"]
    assert hp["gpt2"]["app_reviews"] == {"batch_size_train": 8}
    llms = cfg["assessors"]["collections"]["cfi_ground_truth"]["llms"]
    assert [len(llms[s]) for s in ("train", "validation", "test")] == [8, 2, 4]


def test_a_broken_sheet_is_named(tmp_path):
    sheet = tmp_path / "models.tsv"
    sheet.write_text("name\thub\tmem_mb\nbig\torg/big\tlots\n")
    with pytest.raises(ConfigError, match=r"models.tsv, line 2, mem_mb: 'lots' is not an integer"):
        resolve(user_config({"models": str(sheet)}))


def _jobs(out: str) -> list[str]:
    """Sorted `rule output...` lines of a dry run's job list (jobs without outputs left out)."""
    jobs, rule = [], None
    for line in out.splitlines():
        m = re.match(r"^(?:local)?rule (\S+):", line)
        if m:
            rule = m.group(1)
            continue
        m = re.match(r"^\s+output: (.*)", line)
        if m and rule:
            jobs.append(f"{rule} {m.group(1)}")
            rule = None
    return sorted(jobs)


# The planned DAGs are held to tests/fixtures/config/jobs_*: first main's at fc9318c (the
# presets changed no job), since then each change that adds, removes or renames outputs on
# purpose. Such a change rewrites them with `EVALSCI_UPDATE_DAGS=1 pytest tests/test_settings.py
# -k dag` and says in its commit which jobs it changed and why; any other difference fails.
UPDATE_DAGS = os.environ.get("EVALSCI_UPDATE_DAGS") == "1"


@pytest.mark.workflow  # dry runs
def test_the_default_dag_is_the_planned_one(tmp_path, mirror):
    """`snakemake -n`: the same jobs with the same outputs as tests/fixtures/config/jobs_default.txt
    (made by `_jobs` from the dry run)."""
    proc = snakemake(tmp_path, "-n", mirror=mirror)
    jobs, path = _jobs(proc.stdout + proc.stderr), BEFORE / "jobs_default.txt"
    if UPDATE_DAGS:
        path.write_text("".join(f"{j}\n" for j in jobs))
    assert jobs == path.read_text().splitlines()


@pytest.mark.workflow
@pytest.mark.slow  # the paper DAG has 33,016 jobs: ~1 CPU-minute to plan
@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("paper", ["--config", "scale=paper", "recompute=true"]),
        (
            "paper_zero_shot",
            [
                "--config",
                "recompute=true",
                "tapt={scale: paper_zero_shot}",
                "--",
                "results/tapt/recompute/manifest.csv",
            ],
        ),
    ],
)
def test_the_paper_dags_are_the_planned_ones(tmp_path, mirror, name, args):
    """The paper preset plans what main's full-scale run planned (`--configfile
    workflow/paper_scale/main.yaml --config recompute=true 'tapt={scale: full}'
    'assessors={grid: paper}'` at fc9318c), and tapt's paper_zero_shot preset main's
    `--configfile workflow/paper_scale/tapt_zero_shot.yaml`, with the changes made on purpose
    since (above): the same jobs per rule, and the same sorted job list (its sha256; the counts
    name a rule that differs)."""
    proc = snakemake(tmp_path, "-n", *args, mirror=mirror)
    jobs = _jobs(proc.stdout + proc.stderr)
    counts = dict(sorted(Counter(j.split()[0] for j in jobs).items()))
    text = "".join(f"{j}\n" for j in jobs)
    sha256 = hashlib.sha256(text.encode()).hexdigest()
    path = BEFORE / f"jobs_{name}.json"
    if UPDATE_DAGS:
        path.write_text(json.dumps({"sha256": sha256, "jobs": counts}, indent=1) + "\n")
    planned = json.loads(path.read_text())
    assert counts == planned["jobs"]
    assert sha256 == planned["sha256"]


def test_an_error_in_a_preset_value_names_the_preset_file(tmp_path):
    """A value the user did not set comes from the study's preset: the message names that
    file and line, as it does for the user's own files."""
    import shutil

    shutil.copytree(REPO / "workflow", tmp_path / "workflow", symlinks=True)
    bad = tmp_path / "workflow/presets/mc_icl/default.yaml"
    text = bad.read_text()
    line = text[: text.index("num_trials:")].count("\n") + 1
    bad.write_text(text.replace("num_trials: 2", "num_trials: 0"))
    with pytest.raises(ConfigError) as err:
        resolve(user_config(), root=tmp_path, files=[REPO / "config.yaml"])
    assert f"config mc_icl.num_trials (set in {bad}, line {line}): 0 is less" in str(err.value)


def test_a_root_without_presets_is_named(tmp_path):
    with pytest.raises(ConfigError, match=f"no study presets at {tmp_path}/workflow/presets"):
        resolve(user_config(), root=tmp_path)
