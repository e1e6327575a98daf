"""The `baselines` recompute path on a tiny random model: the authors' prompts rebuilt,
their per-example schema and rules, resumable shards (CPU, seconds)."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from evalsci.lm.icl import OPTION_COLUMNS, PER_EXAMPLE_COLUMNS, authors_table  # noqa: E402
from evalsci.lm.load import tiny_model  # noqa: E402
from evalsci.settings import resolved  # noqa: E402
from evalsci.studies.baselines import recompute_grid, shards  # noqa: E402

pytestmark = pytest.mark.lm

TASK, SHOTS, PROMPTS = "known_unknowns", 2, 3


class Killed(BaseException):
    pass


@pytest.fixture(scope="module")
def tiny_ckpt(tmp_path_factory):
    d = tmp_path_factory.mktemp("tiny") / "ckpt"
    model, tok = tiny_model("llama", seed=0)
    model.save_pretrained(d)
    tok.save_pretrained(d)
    return d


def _recompute(**kw) -> recompute_grid.RecomputeSettings:
    """The settings the workflow builds for this grid (`kw`: other recompute keys)."""
    section = {"tasks": [TASK], "shots": [SHOTS], "prompts": PROMPTS, "prompts_per_shard": 3}
    cfg = resolved({"baselines": {"recompute": {**section, **kw}}})["baselines"]["recompute"]
    return replace(recompute_grid.RecomputeSettings.from_config(cfg), models=("tiny",))


def _run(tmp, mirror, ckpt, name, **kw):
    srb = mirror / "gyauney-stronger-random-baselines"
    out = tmp / f"{name}.csv.gz"
    shards.run_shard(
        model="tiny",
        spec={"checkpoint": str(ckpt)},
        task=TASK,
        shots=SHOTS,
        start=0,
        stop=PROMPTS,
        bigbench_dir=mirror / "bigbench",
        idxs_dir=srb / "few-shot-eval" / "subsampled-idxs",
        per_example_dir=srb,
        settings=_recompute(**kw),
        lm={"device": "cpu", "cpu_dtype": "float32"},
        seed=1,
        out=out,
        work_dir=tmp / f"{name}-partial",
    )
    return out


def test_shard_resume_schema_and_aggregate(tmp_path, mirror, tiny_ckpt, monkeypatch):
    full = _run(tmp_path, mirror, tiny_ckpt, "full")

    # a job killed during its second prompt, then rerun: only prompts 1 and 2 are redone
    real = shards.evaluate_prompt
    calls = []

    def killed_at_second(scorer, examples, plan, subsample, desc=None):
        calls.append(plan.prompt_id)
        if calls == [0, 1]:
            raise Killed
        return real(scorer, examples, plan, subsample, desc)

    monkeypatch.setattr(shards, "evaluate_prompt", killed_at_second)
    with pytest.raises(Killed):
        _run(tmp_path, mirror, tiny_ckpt, "resumed")
    assert not (tmp_path / "resumed.csv.gz").exists()
    calls.clear()
    resumed = _run(tmp_path, mirror, tiny_ckpt, "resumed")
    assert calls == [1, 2]
    assert resumed.read_bytes() == full.read_bytes()
    assert not list((tmp_path / "resumed-partial").glob("*.csv.gz"))  # partials cleaned up

    opts = pd.read_csv(full)
    assert list(opts.columns) == list(OPTION_COLUMNS)
    assert opts["Cached"].all()  # every candidate went through the prefix cache
    per_ex = shards.assemble_cell([full], tmp_path / "cell.csv.gz", tmp_path / "opt.csv.gz")
    assert list(per_ex.columns) == list(PER_EXAMPLE_COLUMNS)
    assert list(pd.read_csv(tmp_path / "cell.csv.gz").columns) == list(PER_EXAMPLE_COLUMNS)

    # the released prompts of OLMo-7B were rebuilt: same demonstrations, same examples
    rel = pd.read_csv(
        mirror
        / "gyauney-stronger-random-baselines"
        / "results"
        / f"OLMo-7B_{TASK}_{SHOTS}-shot.csv.gz"
    )
    rel = rel[rel["Prompt ID"] < PROMPTS]
    key = ["Prompt ID", "Example ID"]
    merged = per_ex.merge(rel, on=key, suffixes=("", "_paper"), how="outer", indicator=True)
    assert (merged["_merge"] == "both").all()
    assert (
        merged["Demonstration IDs in prompt"] == merged["Demonstration IDs in prompt_paper"]
    ).all()
    assert set(per_ex["Correct prediction"]) <= {0, 1}
    assert (per_ex["Loss of correct answer"] > 0).all()

    # the authors' rule: correct iff the lowest-loss candidate is the correct one
    o = opts.assign(loss=-opts["Log-likelihood"] / opts["Tokens"])
    for (pid, eid), g in o.groupby(key):
        row = per_ex[(per_ex["Prompt ID"] == pid) & (per_ex["Example ID"] == eid)].iloc[0]
        assert row["Correct prediction"] == int(g.loc[g["loss"].idxmin(), "Score"] == 1)
        assert row["Loss of correct answer"] == pytest.approx(
            g.loc[g["Score"] == 1, "loss"].iloc[0]
        )

    agg = shards.write_aggregated({"tiny_k": tmp_path / "cell.csv.gz"}, tmp_path / "agg.json")
    saved = json.loads((tmp_path / "agg.json").read_text())
    assert saved == agg and len(saved["tiny_k"]) == PROMPTS
    want = per_ex.groupby("Prompt ID")["Correct prediction"].mean().tolist()
    np.testing.assert_allclose(saved["tiny_k"], want)


def test_random_demonstrations_are_seeded_and_outside_the_eval_set(mirror):
    from evalsci.data.bigbench import load_task, subsample_positions

    idxs = mirror / "gyauney-stronger-random-baselines" / "few-shot-eval" / "subsampled-idxs"
    ex = load_task("winowhy", mirror / "bigbench")
    sub = subsample_positions("winowhy", idxs)
    s = _recompute(demonstrations="random")
    a = recompute_grid.prompt_plans("tiny", "winowhy", 4, len(ex), sub, s, None, seed=7)
    b = recompute_grid.prompt_plans("other", "winowhy", 4, len(ex), sub, s, None, seed=7)
    c = recompute_grid.prompt_plans("tiny", "winowhy", 4, len(ex), sub, s, None, seed=8)
    assert a == b and a != c and len(a) == PROMPTS
    assert all(not set(p.demos) & set(sub) for p in a)


def test_merged_example_ids_and_ties():
    """Examples of different subtasks sharing an idx form one group (argmin over all their
    candidates); an exact tie between a correct and a wrong candidate counts as wrong."""
    rows = [
        # prompt 0, Example ID 5 from two subtasks: the best candidate overall is wrong
        (0, "[1]", 5, 10, "a", 0, "x", 1, -2.0, 2, True),
        (0, "[1]", 5, 10, "a", 1, "y", 0, -3.0, 2, True),
        (0, "[1]", 5, 70, "b", 0, "x", 0, -0.5, 1, True),
        (0, "[1]", 5, 70, "b", 1, "y", 1, -4.0, 1, True),
        # Example ID 6: a tie -> incorrect
        (0, "[1]", 6, 11, "a", 0, "x", 1, -1.0, 1, True),
        (0, "[1]", 6, 11, "a", 1, "y", 0, -2.0, 2, True),
    ]
    t = authors_table(pd.DataFrame(rows, columns=list(OPTION_COLUMNS)))
    assert t["Example ID"].tolist() == [5, 6]
    assert t["Correct prediction"].tolist() == [0, 0]
    assert t["Loss of correct answer"].tolist() == [4.0, 1.0]  # last correct in split order
