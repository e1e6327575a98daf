"""Issue 35 items 3 and 4: names that cannot escape, numbers with bounds, errors that say where.

Every config value that becomes part of a path or a wildcard is a `name`
(workflow/schemas/names.schema.yaml); each hostile name below is tried through every such key,
in a config file, and must be refused by the one validator (evalsci.configcheck, which the
Snakefile and `evalsci check-config` call) naming the key, the file and the line. Every integer
and number of the schemas has a lower and an upper bound."""

from __future__ import annotations

import csv
import re

import pytest
import yaml

from evalsci.configcheck import LLM_NAME_PATTERN, ROOT, SCHEMAS, ConfigError
from evalsci.pipeline.configfiles import load_config_file
from evalsci.settings import merge, resolve

from conftest import snakemake

#: every key whose value (or whose keys, `<name>`) becomes a path part or a wildcard; `{}` is
#: where the hostile name goes
NAME_KEYS = {
    "lm.models.<name>": {"lm": {"models": {"{}": {"hub": "org/model"}}}},
    "baselines.recompute.models": {"baselines": {"recompute": {"models": ["{}"]}}},
    **{
        f"baselines.recompute.precision_pairs[0].{role}": {
            "baselines": {"recompute": {"precision_pairs": [{"nf4": "a", "full": "a", role: "{}"}]}}
        }
        for role in ("nf4", "full")
    },
    "mc_icl.models": {"mc_icl": {"models": ["{}"]}},
    "mc_icl.selection.models": {"mc_icl": {"selection": {"models": ["{}"]}}},
    "assessors.collections.<name>": {"assessors": {"collections": {"{}": {}}}},
    "assessors.collections.c.bundle": {"assessors": {"collections": {"c": {"bundle": "{}"}}}},
    "assessors.collections.c.datasets": {"assessors": {"collections": {"c": {"datasets": ["{}"]}}}},
    "assessors.collections.c.ood_splits.<name>": {
        "assessors": {"collections": {"c": {"ood_splits": {"{}": ["x"]}}}}
    },
    "tapt.fits.configs": {"tapt": {"fits": {"configs": ["{}"]}}},
    "tapt.fits.eq2_configs": {"tapt": {"fits": {"eq2_configs": ["{}"]}}},
    "tapt.meta.configs.<name>": {"tapt": {"meta": {"configs": {"{}": 0.1}}}},
    "tapt.simulate.config": {"tapt": {"simulate": {"config": "{}"}}},
    "tapt.training.lms": {"tapt": {"training": {"lms": ["{}"]}}},
    "tapt.training.datasets": {"tapt": {"training": {"datasets": ["{}"]}}},
    "tapt.training.data_files.<name>": {"tapt": {"training": {"data_files": {"{}": "f.csv"}}}},
    "tapt.training.revisions.<name>": {"tapt": {"training": {"revisions": {"{}": "main"}}}},
    "tapt.training.lm_types.<name>": {"tapt": {"training": {"lm_types": {"{}": {}}}}},
    "tapt.training.lm_types.t.hyperparameters": {
        "tapt": {"training": {"lm_types": {"t": {"hyperparameters": "{}"}}}}
    },
    "tapt.training.hyperparameters.<name>": {
        "tapt": {"training": {"hyperparameters": {"{}": {"default": {}}}}}
    },
    "tapt.training.hyperparameters.t.<name>": {
        "tapt": {"training": {"hyperparameters": {"t": {"default": {}, "{}": {}}}}}
    },
}

#: traversal, absolute paths, the empty name, separators, hidden and over-long names
HOSTILE = {
    "traversal": "../../../../../../tmp/x/pwned",
    "dotdot": "..",
    "absolute": "/tmp/x",
    "empty": "",
    "slash": "a/b",
    "backslash": "a\\b",
    "hidden": ".hidden",
    "space": "a b",
    "newline": "a\nb",
    "trailing_newline": "a\n",  # `$` of a Python regex search matches before it (issue 47)
    "glob": "a*",
    "wildcard": "{x}",
    "long": "a" * 101,
}


#: an LLM name selects rows of released data, never a path part: one `org/` prefix and `@` are
#: allowed (HELM-Lite spells its LLMs so), and the other hostile names are still refused
LLM_NAME_KEY = "assessors.collections.c.llms.train"
HOSTILE_LLM = {k: v for k, v in HOSTILE.items() if k != "slash"} | {"two_slashes": "a/b/c"}


def check_config_cli(files):
    """What `evalsci check-config FILE...` and the workflow do: config.yaml with `files` over
    it, resolved over the presets and validated by the one validator."""
    user, sources = load_config_file(ROOT / "config.yaml"), [ROOT / "config.yaml"]
    for f in files:
        user = merge(user, load_config_file(f))
        sources.append(f)
    return resolve(user, ROOT, files=sources)


def _fill(node, name: str):
    if isinstance(node, dict):
        return {(name if k == "{}" else k): _fill(v, name) for k, v in node.items()}
    if isinstance(node, list):
        return [_fill(v, name) for v in node]
    return name if node == "{}" else node


@pytest.mark.parametrize("what", sorted(HOSTILE))
@pytest.mark.parametrize("key", sorted(NAME_KEYS))
def test_a_hostile_name_is_refused_naming_key_file_and_line(tmp_path, key, what):
    name = HOSTILE[what]
    f = tmp_path / "hostile.yaml"
    f.write_text(yaml.safe_dump(_fill(NAME_KEYS[key], name)))
    with pytest.raises(ConfigError) as e:
        check_config_cli([f])
    msg = str(e.value)
    assert msg.startswith(f"config {key.split('.<name>')[0]}"), msg  # the key, then the name
    assert f"(set in {f}, line " in msg and "is not a safe name" in msg, msg


def _llm_config(name):
    return {"assessors": {"collections": {"c": {"llms": {"train": [name]}}}}}


@pytest.mark.parametrize("what", sorted(HOSTILE_LLM))
def test_a_hostile_llm_name_is_refused_naming_key_file_and_line(tmp_path, what):
    f = tmp_path / "hostile.yaml"
    f.write_text(yaml.safe_dump(_llm_config(HOSTILE_LLM[what])))
    with pytest.raises(ConfigError) as e:
        check_config_cli([f])
    msg = str(e.value)
    assert msg.startswith(f"config {LLM_NAME_KEY}"), msg
    assert f"(set in {f}, line " in msg and "is not an LLM name" in msg, msg


def test_every_released_helm_lite_llm_name_passes_the_schema(tmp_path):
    """The names of src/evalsci/data/released_llms.csv (HELM-Lite's hold '/' and '@') get past
    the schema; whether a collection may use them is the run-list check's
    (tests/test_released_llms.py)."""
    rows = (ROOT / "src/evalsci/data/released_llms.csv").read_text().splitlines()
    names = [r["llm"] for r in csv.DictReader(line for line in rows if not line.startswith("#"))]
    assert any("/" in n for n in names) and any("@" in n for n in names)
    assert [n for n in names if not re.fullmatch(LLM_NAME_PATTERN, n)] == []


def test_the_name_keys_cover_every_name_in_the_schemas():
    """Every use of the safe-name pattern in the schemas is tried above (and no other
    pattern stands in for it); the LLM-name pattern is used by the LLM lists alone."""
    uses = llm_uses = 0
    for path in (ROOT / SCHEMAS).glob("*.schema.yaml"):
        uses += path.read_text().count('"names.schema.yaml#/$defs/name"')
        llm_uses += path.read_text().count('"names.schema.yaml#/$defs/llm_name"')
    assert uses == len(NAME_KEYS)
    assert llm_uses == 1  # assessors' llm_list: train, validation and test


def _numbers(node, at=""):
    """(path, schema) of every integer or number in a schema."""
    if isinstance(node, dict):
        kinds = node.get("type")
        kinds = kinds if isinstance(kinds, list) else [kinds]
        if {"integer", "number"} & set(kinds):
            yield at, node
        for k, v in node.items():
            yield from _numbers(v, f"{at}.{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _numbers(v, f"{at}[{i}]")


def test_every_number_in_the_schemas_has_both_bounds():
    unbounded = []
    count = 0
    for path in sorted((ROOT / SCHEMAS).glob("*.schema.yaml")):
        for at, node in _numbers(yaml.safe_load(path.read_text())):
            count += 1
            low = {"minimum", "exclusiveMinimum"} & set(node)
            high = {"maximum", "exclusiveMaximum"} & set(node)
            if not (low and high):
                unbounded.append(f"{path.name}{at}")
    assert count > 70 and not unbounded, unbounded


#: issue 35 item 4's reproductions, and the keys it said were likely the same
BOUNDS = {
    "baselines.section53.t": ("baselines:\n  section53:\n    t: 1.0e+24\n", 3),
    "baselines.heldout.splits": (
        "baselines:\n  heldout:\n    resplit: true\n    splits: 1000000000000\n",
        4,
    ),
    "tapt.permutation.n_resamples": ("tapt:\n  permutation:\n    n_resamples: 1.0e+15\n", 3),
    "tapt.bayes.draws": ("tapt:\n  bayes:\n    draws: 10000000000\n", 3),
    "seed": ("seed: 100000000000000000000\n", 1),
}


@pytest.mark.parametrize("key", sorted(BOUNDS))
def test_a_number_out_of_bounds_names_key_file_and_line(tmp_path, key):
    text, line = BOUNDS[key]
    f = tmp_path / "big.yaml"
    f.write_text(text)
    with pytest.raises(ConfigError) as e:
        check_config_cli([f])
    assert str(e.value).startswith(f"config {key} (set in {f}, line {line}): ")
    assert "is greater than the maximum of" in str(e.value)


@pytest.mark.parametrize(
    ("value", "key"), [("1", "num_subsamples"), ("[2, 1]", "num_subsamples[1]")]
)
def test_one_tapt_subsample_fails_when_the_config_is_read(tmp_path, value, key):
    """A recompute run with one subsample per n trained, then failed in its first analysis job
    (App. D.1's paired permutation test needs 2 pairs); the config check stops it first,
    naming the key, the file and the line."""
    f = tmp_path / "one.yaml"
    f.write_text(f"tapt:\n  training:\n    n: [32, 64]\n    num_subsamples: {value}\n")
    with pytest.raises(ConfigError) as e:
        check_config_cli([f])
    assert str(e.value).startswith(f"config tapt.training.{key} (set in {f}, line 4): ")
    assert "less than the minimum of 2" in str(e.value)


@pytest.mark.workflow  # runs snakemake (a dry run)
def test_a_model_name_that_escapes_stops_the_dry_run(tmp_path):
    """Issue 35 item 3's reproduction: a model named `../../../../../../tmp/x/pwned`, used by
    mc_icl, made a run write outside its working directory. The dry run now stops first."""
    name = HOSTILE["traversal"]
    f = tmp_path / "pwned.yaml"
    f.write_text(
        yaml.safe_dump(
            {
                "lm": {"models": {name: {"hub": "org/model"}}},
                "mc_icl": {"models": [name]},
            }
        )
    )
    proc = snakemake(tmp_path, "-n", "mc_icl_figure1", "--configfile", str(f), check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert f"config lm.models[{name!r}] (set in {f}, line " in out, out[-2000:]
    assert "Building DAG" not in out and not (tmp_path / "results").exists()
