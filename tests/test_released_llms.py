"""Issue 35, selections: the LLM names of a leaderboard (predictaboard) or HELM assessors
collection are checked while the workflow is parsed, against evalsci/data/released_llms.csv
(the names inside the released files; an evals-logs bundle's LLMs are its file names, checked
against the manifest: tests/test_config_selections.py). The list is what the released data
gives, read through the project's own data functions."""

from __future__ import annotations

import pytest

from evalsci.data import released
from evalsci.pipeline.configfiles import load_config_file
from evalsci.settings import ROOT, merge, resolve
from evalsci.studies.assessors.names import _datasets, check_released_names
from evalsci.studies.assessors.settings import Collection


@pytest.mark.slow  # ~30 s: every PredictaBoard results file
def test_predictaboard_llms_are_the_complete_models_of_the_released_data(mirror, tmp_path):
    from evalsci.data.leaderboard import load_leaderboard

    root = released.materialise("predictaboard", tmp_path / "predictaboard", mirror=str(mirror))
    inst, succ, cov = load_leaderboard(root, lambda p: released.local_name("predictaboard", p))
    complete = sorted(c for c in succ.columns if c != "instance_id")
    assert list(released.released_llms("predictaboard")) == complete
    # the loader keeps the models with every kept item: some released ones lack items
    assert len(complete) == 78 and cov["model"].nunique() > len(complete)
    # the datasets an OOD split of a leaderboard collection may hold out
    assert _datasets("leaderboard") == sorted(inst["dataset"].unique())


def test_helm_llms_are_the_models_of_the_kept_runs_of_the_run_list(mirror, tmp_path):
    from evalsci.data.helm import kept_datasets, read_run_list, select_runs

    root = released.materialise("helm_lite_runs", tmp_path / "helm", mirror=str(mirror))
    runs = select_runs(read_run_list(root / "experiments/download_helm/helm_lite.csv"))
    assert list(released.released_llms("helm_lite_runs")) == sorted(runs["Model"].unique())
    assert len(released.released_llms("helm_lite_runs")) == 30  # Appendix A.1: 30 LLMs
    assert kept_datasets() == sorted(runs["dataset"].unique())  # 16 (sub)scenarios


def test_the_split_sheet_selects_among_the_released_llms():
    """workflow/sheets/assessors_llms.tsv's predictaboard LLMs (the default split) are all
    released ones, and none twice."""
    sheet = [
        line.split("\t")
        for line in (ROOT / "workflow/sheets/assessors_llms.tsv").read_text().splitlines()[1:]
    ]
    pb = [llm for collection, _, llm in sheet if collection == "predictaboard"]
    assert len(pb) == len(set(pb)) == 30
    assert set(pb) <= set(released.released_llms("predictaboard"))


def _check(name, section):
    """check_released_names on config `assessors.collections.<name>` as the workflow reads it."""
    check_released_names(Collection.from_config(name, section))


def _resolved(tmp_path, text):
    f = tmp_path / "typo.yaml"
    f.write_text(text)
    cfg = resolve(
        merge(load_config_file(ROOT / "config.yaml"), load_config_file(f)),
        ROOT,
        files=[ROOT / "config.yaml", f],
    )
    return f, cfg["assessors"]["collections"]


def test_a_predictaboard_llm_typo_is_named_before_any_job(tmp_path):
    """It used to fail in the collection's first job (`configured LLMs unknown or lacking
    some items`)."""
    f, colls = _resolved(
        tmp_path,
        "assessors:\n  collections:\n    predictaboard:\n      llms:\n"
        "        train: [Qwen__Qwen2-72B-Instruct, Qwen__Qwen2-72B-Instruckt]\n"
        "        validation: [Intel__neural-chat-7b-v3-1]\n"
        "        test: [Stark2008__GutenLaserPi]\n",
    )
    with pytest.raises(ValueError) as e:
        _check("predictaboard", colls["predictaboard"])
    msg = str(e.value)
    key = "assessors.collections.predictaboard.llms.train"
    assert msg.startswith(f"config {key} (set in {f}, line 5): unknown LLM(s) "), msg
    assert "['Qwen__Qwen2-72B-Instruckt'] (bundle predictaboard, " in msg
    assert "released_llms.csv); the LLMs there: ['AbacusResearch__Jallabi-34B'," in msg
    # the same names without the typo pass, and so does the default split
    colls["predictaboard"]["llms"]["train"] = ["Qwen__Qwen2-72B-Instruct"]
    _check("predictaboard", colls["predictaboard"])


def test_a_helm_collection_llm_typo_is_named_against_the_run_list(tmp_path):
    """A `helm` collection (HELM-Lite runs downloaded to `path`) names its LLMs as the run
    list does, and its OOD splits hold out the kept datasets; both are checked at parse
    time, not in the first job. (The real LLM names hold '/', which the safe-name pattern
    refuses: the collection is given to the check here as the config would hold it.)"""
    from evalsci.data.helm import HELM_LITE_OOD

    ccfg = {
        "loader": "helm",
        "path": str(tmp_path),
        "llms": {
            "train": ["01-ai/yi-34b", "anthropic/claude-2.1"],
            "validation": ["openai/gpt-4-0613"],
            "test": ["meta/llama-2-70b"],
        },
        "ood_splits": {"ood_math": ["math"]},
    }
    _check("helm", ccfg)
    ccfg["ood_splits"] = HELM_LITE_OOD  # the paper's three (Appendix A.1)
    _check("helm", ccfg)
    ccfg["ood_splits"] = {"ood_x": ["mmlu/abstract_algebra", "legalbench/proa,"]}
    with pytest.raises(ValueError, match=r"helm\.ood_splits\.ood_x .*\['legalbench/proa,'\] match"):
        _check("helm", ccfg)
    ccfg["ood_splits"] = {}
    ccfg["llms"]["test"] = ["meta/llama-2-7Ob"]
    with pytest.raises(ValueError) as e:
        _check("helm", ccfg)
    msg = str(e.value)
    assert msg.startswith("config assessors.collections.helm.llms.test (")
    assert "unknown LLM(s) ['meta/llama-2-7Ob'] (bundle helm_lite_runs, " in msg
    assert "'meta/llama-2-70b'" in msg


def test_a_local_leaderboard_collection_is_left_to_its_first_job(tmp_path):
    """A leaderboard read from the user's own `path`: its names are in files only that job
    reads."""
    ccfg = {
        "loader": "leaderboard",
        "bundle": None,
        "path": str(tmp_path),
        "llms": {"train": ["mine"], "validation": ["v"], "test": ["t"]},
        "ood_splits": {},
    }
    _check("own", ccfg)


@pytest.mark.workflow  # runs snakemake (a dry run)
def test_a_predictaboard_llm_typo_stops_the_dry_run(tmp_path, mirror):
    from conftest import snakemake

    f = tmp_path / "typo.yaml"
    f.write_text(
        "assessors:\n  collections:\n    predictaboard:\n      llms:\n"
        "        train: [Qwen__Qwen2-72B-Instruckt]\n        validation: [Intel__neural-chat-7b-v3-1]\n"
        "        test: [Stark2008__GutenLaserPi]\n"
    )
    proc = snakemake(
        tmp_path, "-n", "assessors_table3", "--configfile", str(f), mirror=mirror, check=False
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    key = "assessors.collections.predictaboard.llms.train"
    assert f"config {key} (set in {f}, line 5): unknown LLM(s) ['Qwen__Qwen2-72B-Instruckt']" in out
    assert "Building DAG" not in out and not (tmp_path / "results").exists()


def test_a_held_out_dataset_typo_is_named_not_dropped(tmp_path):
    """`ood_math: [MATH, MATHH]` held out MATH and dropped MATHH without a word (a split
    failed only when none of its entries matched)."""
    f, colls = _resolved(
        tmp_path,
        "assessors:\n  collections:\n    predictaboard:\n      ood_splits:\n"
        "        ood_math: [MATH, MATHH]\n",
    )
    with pytest.raises(ValueError) as e:
        _check("predictaboard", colls["predictaboard"])
    msg = str(e.value)
    key = "assessors.collections.predictaboard.ood_splits.ood_math"
    assert msg.startswith(f"config {key} (set in {f}, line 5): ['MATHH'] match(es) no dataset")
    assert "['BBH', 'IFEval', 'MATH', 'MuSR']" in msg
