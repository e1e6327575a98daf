"""`evalsci reference select|predict` on files written by real clients (tests/fixtures/audit)
and on real multi-model per-item results (PredictaBoard's Open LLM Leaderboard v2, MuSR)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from evalsci.assess.refset import allocate
from evalsci.cli import main

FIX = Path(__file__).parent / "fixtures" / "audit"
INSPECT = FIX / "inspect_ai" / "eval"


def _tidy(path: Path, rows) -> Path:
    pd.DataFrame(rows, columns=["model", "task", "item", "correct"]).to_csv(path, index=False)
    return path


def _assert_the_blend_of_two_known_models(acc, got, items, args, capsys):
    """The default stack: weights x (the reference mean, the mean P(success) with the reference
    items at their outcomes, p-IRT); two known models leave no calibration model, so the weight
    of the reference mean is 1, the reference mean alone, said in `note`. `--estimator
    assessor` (the paper's) gives the mean P(success)."""
    lam = acc["weight_reference_mean"].iloc[0]
    assert lam == 1.0 and "too few to weigh the assessor" in acc["note"].iloc[0]
    want = lam * pd.Series(got).mean() + (1 - lam) * items["p_success"].mean()
    assert acc["accuracy_estimate"].iloc[0] == pytest.approx(want, abs=1e-5)
    assert main([*args, "--estimator", "assessor"]) == 0
    paper = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert paper["accuracy_estimate"].iloc[0] == pytest.approx(items["p_success"].mean(), abs=1e-5)


def test_allocate_is_proportional_largest_remainder():
    # 1 each, then 7 more over (9, 19, 29) - 3 = 54 spare: quotas 7*8/54, 7*18/54, 7*28/54
    assert allocate([9, 19, 29], 10) == [2, 3, 5]
    assert sum(allocate([5, 7, 100], 50)) == 50
    assert allocate([3, 3], 2) == [1, 1]


@pytest.mark.parametrize("selector", ["random", "clustering_irt", "tinybenchmarks_irt"])
def test_select_on_inspect_logs(tmp_path, selector, capsys):
    out = tmp_path / "ref.csv"
    rc = main(["reference", "select", str(INSPECT), "--n", "6", "--selector", selector,
               "--out", str(out)])  # fmt: skip
    assert rc == 0
    ref = pd.read_csv(out, dtype=str)
    assert len(ref) == 6 and not ref.duplicated(["task", "item"]).any()
    # tasks of 36 (3 epochs x 12) and 12 items: 1 each, then 4 spare by (35, 11) -> 3 + 1
    assert ref.groupby("task").size().to_dict() == {"mc_epochs_mean": 4, "mc_single": 2}
    from evalsci.audit.readers import read_inputs

    items = {(r.task, i) for r in read_inputs([INSPECT]).results for i in r.items}
    assert set(zip(ref["task"], ref["item"], strict=True)) <= items
    samples = json.loads(out.with_suffix(".samples.json").read_text())
    # the run list holds sample ids inspect accepts: mc_epochs_mean's items are
    # `<sample id>#<epoch>` (3 epochs), listed once per sample, and said
    want = {t: sorted(set(g["item"])) for t, g in ref.groupby("task")}
    want["mc_epochs_mean"] = sorted({i.rsplit("#", 1)[0] for i in want["mc_epochs_mean"]})
    assert all("#" in i for i in ref.loc[ref["task"] == "mc_epochs_mean", "item"])
    assert {t: sorted(v) for t, v in samples.items()} == want
    w = ref.astype({"weight": float}).groupby("task")["weight"].sum()
    assert np.allclose(w, 1.0)  # a task's weights are its items' shares
    err = capsys.readouterr().err
    assert "passed over" in err  # the gen_match logs, with the reason
    assert "task 'mc_epochs_mean': inspect epochs" in err and "'mc_single'" not in err


def test_samples_list_gives_lm_eval_doc_ids():
    from evalsci.assess.command import samples_list

    # the items come sorted as strings (success_matrix); lm-eval needs its ids ascending
    ref = pd.DataFrame({"task": ["a", "a", "b"], "item": ["10", "3", "x1"]})
    assert samples_list(ref) == ({"a": [3, 10], "b": ["x1"]}, [])


def test_eee_samples_fixture_selects(tmp_path):
    src = FIX / "eee" / "inspect"
    out = tmp_path / "ref.csv"
    if not src.is_dir():
        pytest.skip(f"no {src}")
    assert main(["reference", "select", str(src), "--n", "3", "--selector", "random",
                 "--out", str(out)]) == 0  # fmt: skip
    assert len(pd.read_csv(out)) == 3


def _objective(beta: np.ndarray, x1: np.ndarray, lab: np.ndarray) -> float:
    """scikit-learn's L2 logistic objective at C = 1: sum of log-losses + |w|^2 / 2 (the
    intercept, beta's last entry, unpenalised)."""
    f = x1 @ beta
    return float(np.logaddexp(0, f).sum() - lab @ f + beta[:-1] @ beta[:-1] / 2)


def test_assessor_fit_is_the_minimum_of_the_papers_objective():
    """The assessor's Newton-Cholesky fit (refset._logistic) against Newton's method written
    here in float64 numpy on the same rows: per-item P(success) agree to 1e-8, and its
    objective is not above that of the paper's `LogisticRegression()` (lbfgs, tol 1e-4), the
    solver before, which stops short of the minimum (the bound: the speed change moves results
    only towards the objective's unique minimum)."""
    from scipy.special import expit
    from sklearn.linear_model import LogisticRegression

    from evalsci.assess import refset

    rng = np.random.default_rng(1)
    theta, b = rng.normal(size=40), rng.normal(size=1500)
    y = (rng.random((40, 1500)) < expit(theta[:, None] - b)).astype(np.int8)
    ref = np.sort(rng.choice(1500, 30, replace=False))
    groups = np.arange(40)  # one run per model
    x, lab, agree, diff = refset._training_rows(y, ref, np.random.default_rng(0), 3000, groups)
    x1 = np.hstack([x, np.ones((len(x), 1))])
    pen = np.r_[np.ones(x.shape[1]), 0.0]
    beta = np.zeros(x1.shape[1])
    for _ in range(100):
        p = expit(x1 @ beta)
        g = x1.T @ (p - lab) + pen * beta
        h = x1.T @ (x1 * (p * (1 - p))[:, None]) + np.diag(pen)
        step = np.linalg.solve(h, g)
        beta -= step
        if np.abs(step).max() < 1e-13:
            break
    p = expit(x1 @ beta)
    assert np.abs(x1.T @ (p - lab) + pen * beta).max() < 1e-8  # Newton reached the minimum
    clf = refset._logistic().fit(x, lab)
    ours = np.r_[clf.coef_[0], clf.intercept_]
    z = y[0, ref]  # a model's reference outcomes: predict every item
    feats = np.hstack([refset._features(z, agree, diff), np.ones((len(agree), 1))])
    gap = np.abs(clf.predict_proba(feats[:, :-1])[:, 1] - expit(feats @ beta)).max()
    assert gap < 1e-8, gap
    lbfgs = LogisticRegression(C=1.0, max_iter=1000).fit(x, lab)
    j_lbfgs = _objective(np.r_[lbfgs.coef_[0], lbfgs.intercept_], x1, lab)
    assert _objective(ours, x1, lab) <= j_lbfgs + 1e-9
    assert _objective(ours, x1, lab) - _objective(beta, x1, lab) < 1e-9


LM_EVAL_TASK = """task: arith_local
dataset_path: json
dataset_kwargs:
  data_files:
    validation: {data}
output_type: multiple_choice
validation_split: validation
doc_to_text: "{{{{q}}}}\\nAnswer:"
doc_to_target: label
doc_to_choice: "{{{{choices}}}}"
metric_list:
  - metric: acc
    aggregation: mean
    higher_is_better: true
"""


def _lm_eval(root: Path, seed: int, *extra: str) -> Path:
    """One real `lm_eval` CLI run (its `dummy` model: seeded random log-likelihoods, no
    weights) on the local task of `root`, samples logged; returns its --output_path."""
    import os
    import subprocess
    import sys

    out = root / f"out{seed}"
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", HF_HOME=str(root / "hf"))
    subprocess.run([sys.executable, "-m", "lm_eval", "--model", "dummy", "--tasks",
                    "arith_local", "--include_path", str(root / "tasks"), "--output_path",
                    str(out), "--log_samples", "--seed", str(seed), *extra],
                   env=env, cwd=root, check=True, capture_output=True)  # fmt: skip
    return out


def _samples(out: Path) -> list[dict]:
    (f,) = out.glob("*/samples_arith_local_*.jsonl")
    return [json.loads(line) for line in f.read_text().splitlines()]


@pytest.mark.slow
def test_lm_eval_runs_the_reference_list_and_predict_reads_its_samples(tmp_path, capsys):
    """select on two real lm-eval runs; lm-eval's own CLI runs the third model on
    `ref.samples.json` (`--samples FILE`); predict reads that run. Checks lm-eval logged exactly
    the reference documents, each under its own id (the list must be ascending:
    `samples_list`), and that predict's per-item output carries the outcomes lm-eval logged."""
    pytest.importorskip("lm_eval")
    rows = [{"q": f"What is {i} + 3?", "choices": [str(i + 3 + d) for d in (-(i % 3), 1, 2)],
             "label": 0} for i in range(30)]  # fmt: skip
    (tmp_path / "tasks").mkdir()
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "tasks" / "arith_local.yaml").write_text(LM_EVAL_TASK.format(data=data))
    known = [_lm_eval(tmp_path, seed) for seed in (1, 2)]
    ref = tmp_path / "ref.csv"
    assert main(["reference", "select", *map(str, known), "--n", "10", "--out", str(ref)]) == 0
    r = pd.read_csv(ref, dtype=str)
    ids = sorted(map(int, r["item"]))
    assert len(r) == 10 and set(r["task"]) == {"arith_local"} and len(set(ids)) == 10
    # ref.csv lists the items as evalsci sorts them, as strings ("12" before "3"): the check
    # below can fail only if that order differs from lm-eval's ascending one
    assert r["item"].tolist() != [str(i) for i in ids]
    listed = tmp_path / "ref.samples.json"
    assert json.loads(listed.read_text()) == {"arith_local": ids}
    new = _lm_eval(tmp_path, 3, "--samples", str(listed))
    logged = _samples(new)
    assert sorted(s["doc_id"] for s in logged) == ids
    for s in logged:  # each document logged under its own index in the data file
        assert s["doc"] == rows[s["doc_id"]], s["doc_id"]
    capsys.readouterr()
    args = ["reference", "predict", *map(str, known), "--reference", str(ref), "--new", str(new)]
    assert main([*args, "--items"]) == 0
    items = pd.read_csv(io.StringIO(capsys.readouterr().out), dtype={"item": str})
    assert len(items) == 30 and items["model"].nunique() == 1
    got = items[items["reference"] == 1].set_index("item")["p_success"]
    assert got.to_dict() == {str(s["doc_id"]): float(s["acc"]) for s in logged}
    rest = items.loc[items["reference"] == 0, "p_success"]
    assert ((rest > 0) & (rest < 1)).all()
    assert main(args) == 0
    acc = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert acc[["n_items", "n_reference"]].values.tolist() == [[30, 10]]
    _assert_the_blend_of_two_known_models(acc, got, items, args, capsys)


# --- both verbs on each client's files: two known models and a third, new one ----------------
# The third model of each format was written by the client itself (tests/fixtures/audit/
# reference/PROVENANCE.md). Its outcomes are known without the project's readers: for
# inspect-ai, EEE and lighteval from the rule that generated them (right on item 1 and the even
# items of the 12, `Item k:` in the prompt), for HELM from its per_instance_stats.json.

REF_FIX = FIX / "reference"


def _rule(k: int) -> int:
    return int(k % 2 == 0 or k == 1)


def _truth_inspect() -> dict:
    return {f"q{k:02d}": _rule(k) for k in range(1, 13)}  # inspect's sample ids


def _truth_lighteval() -> dict:
    return {str(k - 1): _rule(k) for k in range(1, 13)}  # doc index of test.jsonl's k-th line


def _truth_eee() -> dict:
    """EEE's items are its sample hashes; their prompts, in the gamma samples file itself."""
    import re

    (f,) = (REF_FIX / "eee_inspect").rglob("*_samples.jsonl")
    rows = [json.loads(line) for line in f.read_text().splitlines()]
    return {
        r["sample_hash"]: _rule(int(re.match(r"Item (\d+):", r["input"]["raw"]).group(1)))
        for r in rows
    }


def _truth_helm() -> dict:
    """exact_match of each instance and train trial (`<id>#<trial>`), as HELM wrote it."""
    (f,) = (REF_FIX / "helm").rglob("per_instance_stats.json")
    return {
        f"{e['instance_id']}#{e['train_trial_index']}": int(s["sum"])
        for e in json.loads(f.read_text())
        for s in e["stats"]
        if s["name"] == {"name": "exact_match", "split": "test"}
    }


CLIENTS = {  # known models' files, the new model's folder, its true outcomes
    "inspect": (lambda: sorted(INSPECT.glob("*_mc-single_*.eval")), "inspect", _truth_inspect),
    "eee": (lambda: [FIX / "eee" / "inspect"], "eee_inspect", _truth_eee),
    "lighteval": (lambda: [FIX / "lighteval" / "out"], "lighteval", _truth_lighteval),
    "helm": (lambda: [FIX / "helm" / "runs"], "helm", _truth_helm),
}


@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_select_and_predict_on_a_clients_files(client, tmp_path, capsys):
    known_fn, new_dir, truth_fn = CLIENTS[client]
    known, new, truth = [str(p) for p in known_fn()], str(REF_FIX / new_dir), truth_fn()
    ref = tmp_path / "ref.csv"
    assert main(["reference", "select", *known, "--n", "4", "--out", str(ref)]) == 0
    r = pd.read_csv(ref, dtype=str)
    assert len(r) == 4 and r["task"].nunique() == 1 and not r["item"].duplicated().any()
    ids = r["item"].tolist()
    assert set(ids) <= set(truth)  # items of the task, under the client's own ids
    listed = json.loads(ref.with_suffix(".samples.json").read_text())
    assert listed == {r["task"].iloc[0]: sorted(map(int, ids)) if client == "lighteval" else ids}
    # EEE's items are sample hashes, which no harness takes: said where the list is written
    said = "are Every Eval Ever sample hashes, which no harness accepts"
    assert (said in capsys.readouterr().err) == (client == "eee")
    args = ["reference", "predict", *known, "--reference", str(ref), "--new", new]
    assert main([*args, "--items"]) == 0
    items = pd.read_csv(io.StringIO(capsys.readouterr().out), dtype={"item": str})
    assert sorted(items["item"]) == sorted(truth) and items["model"].nunique() == 1
    is_ref = items["reference"] == 1
    # the reference items carry the outcomes the client logged
    got = items[is_ref].set_index("item")["p_success"].to_dict()
    assert got == {i: float(truth[i]) for i in ids}
    p_rest = items.loc[~is_ref, "p_success"]
    assert ((p_rest > 0) & (p_rest < 1)).all()
    assert main(args) == 0
    out = capsys.readouterr()
    acc = pd.read_csv(io.StringIO(out.out))
    assert acc[["n_items", "n_reference"]].values.tolist() == [[len(truth), 4]]
    _assert_the_blend_of_two_known_models(acc, got, items, args, capsys)
    # two known models: no calibration model is left for the 90 % interval, so [0, 1], said
    assert (acc["low"].iloc[0], acc["high"].iloc[0]) == (0.0, 1.0)
    assert "interval [0, 1]" in out.err


def test_select_on_lm_eval_samples_two_runs():
    """lm-eval 0-shot and 2-shot runs of SmolLM2 (their --output_path folders) on 58 items in 3
    tasks: --n 10 is 1 each, then 7 over (17, 19, 19) spare: quotas 2.16, 2.42, 2.42 -> 2 each,
    and the last to the larger remainder, the first of the tied (rte_local)."""
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "ref.csv"
        runs = [FIX / "lm_eval" / "smollm2" / "full", FIX / "compare" / "lm_eval" / "2shot"]
        assert main(["reference", "select", *map(str, runs), "--n", "10", "--out", str(out)]) == 0
        r = pd.read_csv(out, dtype=str)
        listed = json.loads(out.with_suffix(".samples.json").read_text())
    assert r.groupby("task").size().to_dict() == {"logic_local": 3, "rte_local": 4,
                                                  "sst2_local": 3}  # fmt: skip
    assert listed == {t: sorted(map(int, g["item"])) for t, g in r.groupby("task")}
    assert all(0 <= i < 20 for v in listed.values() for i in v)


def test_select_on_helm_runs_leaves_out_items_one_model_lacks(tmp_path, capsys):
    """HELM per_instance_stats: simple_mcqa for both models (10 instances x 3 train trials);
    simple_mcqa_separate only for fixture/parity (simple/model1's is passed over: every option
    tied), so its 10 items are not shared and are left out, said on stderr."""
    out = tmp_path / "ref.csv"
    runs = FIX / "helm" / "runs"
    assert main(["reference", "select", str(runs), "--n", "5", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "10 items not answered by every known model are left out; 30 items shared by 2" in err
    r = pd.read_csv(out, dtype=str)
    assert len(r) == 5 and set(r["task"]) == {"simple_mcqa"}


# --- bad input -------------------------------------------------------------------------------


def test_disjoint_items_is_bad_input(tmp_path, capsys):
    f = _tidy(tmp_path / "r.csv", [("a", "t", "1", 1), ("a", "t", "2", 0), ("b", "t", "3", 1)])
    assert main(["reference", "select", str(f), "--n", "1", "--out", str(tmp_path / "o.csv")]) == 2
    assert "share no items" in capsys.readouterr().err
    assert not (tmp_path / "o.csv").exists()


def test_fewer_models_than_selector_needs(tmp_path, capsys):
    f = _tidy(tmp_path / "r.csv", [("a", "t", str(i), i % 2) for i in range(6)])
    out = str(tmp_path / "o.csv")
    cmd = ["reference", "select", str(f), "--n", "2", "--out", out]
    assert main([*cmd, "--selector", "clustering_success"]) == 2
    assert "at least 2 models" in capsys.readouterr().err
    # random needs no second model
    assert main(["reference", "select", str(f), "--n", "2", "--selector", "random",
                 "--out", out]) == 0  # fmt: skip


def test_constant_columns_and_text_selectors(tmp_path, capsys):
    f = _tidy(tmp_path / "r.csv", [(m, "t", str(i), 1) for m in "ab" for i in range(6)])
    out = str(tmp_path / "o.csv")
    cmd = ["reference", "select", str(f), "--n", "2", "--out", out]
    assert main([*cmd, "--selector", "clustering_success"]) == 2
    assert "constant columns" in capsys.readouterr().err
    assert main(["reference", "select", str(f), "--n", "2", "--selector",
                 "clustering_embeddings", "--out", out]) == 2  # fmt: skip
    assert "needs instance embeddings" in capsys.readouterr().err


def test_bad_correct_value_names_the_line(tmp_path, capsys):
    f = _tidy(tmp_path / "r.csv", [("a", "t", "1", 1), ("a", "t", "2", 2)])
    assert main(["reference", "select", str(f), "--n", "1", "--out", str(tmp_path / "o")]) == 2
    assert "r.csv:3: correct must be 0 or 1" in capsys.readouterr().err


def test_nothing_usable_exits_3(tmp_path, capsys):
    gen = sorted(INSPECT.glob("*gen-match*.eval"))[:1]
    rc = main(["reference", "select", *map(str, gen), "--n", "1", "--out", str(tmp_path / "o")])
    assert rc == 3


def _known_and_ref(tmp_path, models="ab", n_items=20):
    """A tidy CSV of `models` on n_items items (outcomes varying by model) and a 4-item ref.csv."""
    rows = [(m, "t", str(i), int((i * (k + 2)) % 5 < 2)) for k, m in enumerate(models)
            for i in range(n_items)]  # fmt: skip
    known = _tidy(tmp_path / "k.csv", rows)
    ref = tmp_path / "ref.csv"
    assert main(["reference", "select", str(known), "--n", "4", "--selector", "random",
                 "--out", str(ref)]) == 0  # fmt: skip
    return known, ref, pd.read_csv(ref, dtype=str)["item"].tolist()


def _predict(known, ref, new, *extra):
    return main(["reference", "predict", str(known), "--reference", str(ref), "--new", str(new),
                 *extra])  # fmt: skip


def test_new_model_missing_reference_items(tmp_path, capsys):
    known, ref, items = _known_and_ref(tmp_path)
    new = _tidy(tmp_path / "n.csv", [("c", "t", i, 1) for i in items[:-1]])
    capsys.readouterr()
    assert _predict(known, ref, new) == 2
    err = capsys.readouterr()
    assert f"new model 'c' lacks 1 of the 4 reference items, e.g. task 't' item '{items[-1]}'" in (
        err.err
    )
    assert err.out == ""  # no table, not even a partial one


def test_too_few_known_models_for_the_interval_is_a_stated_fallback(tmp_path, capsys):
    known, ref, items = _known_and_ref(tmp_path)
    new = _tidy(tmp_path / "n.csv", [("c", "t", i, 1) for i in items])
    capsys.readouterr()
    assert _predict(known, ref, new) == 0
    out = capsys.readouterr()
    got = pd.read_csv(io.StringIO(out.out))
    # two known models: each held-out fit has one model left, too few for an assessor, so no
    # calibration model and the 90 % interval is [0, 1]: said in `note` and on stderr
    assert (got["low"] == 0).all() and (got["high"] == 1).all()
    note = (
        "estimate = the reference mean: 0 calibration models are too few to weigh the "
        "assessor; interval [0, 1]: 0 calibration models are too few for level 0.9"
    )
    assert (got["note"] == note).all()
    assert "estimate = the reference mean: 0 calibration models are too few" in out.err
    assert "interval [0, 1]: 0 calibration models are too few for level 0.9" in out.err


def test_one_known_model_is_too_few_for_the_assessor(tmp_path, capsys):
    known, ref, items = _known_and_ref(tmp_path, models="a")  # random selects from one model
    new = _tidy(tmp_path / "n.csv", [("c", "t", i, 1) for i in items])
    assert _predict(known, ref, new) == 2
    assert "the assessor needs results of at least 2 known models; got 1" in (
        capsys.readouterr().err
    )


def test_constant_outcomes_give_the_assessor_nothing_to_learn(tmp_path, capsys):
    rows = [(m, "t", str(i), 1) for m in "ab" for i in range(10)]
    known = _tidy(tmp_path / "k.csv", rows)
    ref = tmp_path / "ref.csv"
    assert main(["reference", "select", str(known), "--n", "3", "--selector", "random",
                 "--out", str(ref)]) == 0  # fmt: skip
    items = pd.read_csv(ref, dtype=str)["item"]
    new = _tidy(tmp_path / "n.csv", [("c", "t", i, 0) for i in items])
    capsys.readouterr()
    assert _predict(known, ref, new) == 2
    err = capsys.readouterr()
    assert "every known model (a, b) has outcome 1 on every item outside the reference" in err.err
    assert err.out == ""


def test_reference_items_the_known_models_do_not_share(tmp_path, capsys):
    known, ref, items = _known_and_ref(tmp_path)
    pd.DataFrame({"task": ["t", "t"], "item": [items[0], "99"], "weight": [0.5, 0.5]}).to_csv(
        ref, index=False
    )
    new = _tidy(tmp_path / "n.csv", [("c", "t", i, 1) for i in [*items, "99"]])
    assert _predict(known, ref, new) == 2
    err = capsys.readouterr().err
    assert "1 reference items are not among the items every known model answered" in err
    assert "e.g. task 't' item '99'" in err


def test_aggregate_scores_only_exit_3(tmp_path, capsys):
    """lm-eval results without samples: every file read, no per-item outcome in it."""
    src = FIX / "lm_eval" / "smollm2" / "nosamples"
    assert (
        main(["reference", "select", str(src), "--n", "2", "--out", str(tmp_path / "o.csv")]) == 3
    )
    assert "an aggregate score, no per-item outcomes" in capsys.readouterr().err
    assert not (tmp_path / "o.csv").exists()


# --- real multi-model data --------------------------------------------------------------------


def _musr(mirror) -> pd.DataFrame:
    from evalsci.data.leaderboard import discover_pairs, read_results

    root = mirror / "kinds-of-intelligence-cfi-PredictaBoard"
    parts = []
    for pr in discover_pairs(root):
        if pr["dataset"] != "MuSR":
            continue
        r = read_results(pr["results"])
        long = r.stack().rename("correct").reset_index()
        long.columns = ["model", "item", "correct"]
        long["task"] = "MuSR_" + pr["subtask"]
        parts.append(long.dropna())
    df = pd.concat(parts)
    return df.astype({"item": str, "correct": int})[["model", "task", "item", "correct"]]


def test_predict_on_open_llm_leaderboard_musr_held_out_models(mirror, tmp_path, capsys):
    df = _musr(mirror)
    models = sorted(df["model"].unique())
    held = set(np.random.default_rng(0).choice(models, 10, replace=False))
    known, new = df[~df["model"].isin(held)], df[df["model"].isin(held)]
    known.to_csv(tmp_path / "known.csv", index=False)
    new.to_csv(tmp_path / "new.csv", index=False)
    ref = tmp_path / "ref.csv"
    assert main(["reference", "select", str(tmp_path / "known.csv"), "--n", "100",
                 "--selector", "clustering_irt", "--out", str(ref)]) == 0  # fmt: skip
    capsys.readouterr()
    assert main(["reference", "predict", str(tmp_path / "known.csv"), "--reference", str(ref),
                 "--new", str(tmp_path / "new.csv")]) == 0  # fmt: skip
    got = pd.read_csv(io.StringIO(capsys.readouterr().out))
    true = new.groupby(["model", "task"])["correct"].mean().rename("true").reset_index()
    a = got.merge(true, on=["model", "task"], validate="1:1")
    assert len(a) == 30
    covered = int(((a["low"] <= a["true"]) & (a["true"] <= a["high"])).sum())
    # H0: coverage >= 0.9 (the stated level), one-sided binomial test at 5 %: reject below
    # the 5 % quantile of Binomial(30, 0.9) (the 30 model x task pairs treated as independent)
    assert covered >= stats.binom.ppf(0.05, 30, 0.9), (covered, a)
    # the estimate beats the naive mean of the same reference items
    r = pd.read_csv(ref, dtype={"item": str})
    naive = new.merge(r[["task", "item"]]).groupby(["model", "task"])["correct"].mean()
    err_naive = (naive.rename("n").reset_index().merge(true)).eval("abs(n - true)").mean()
    err = (a["accuracy_estimate"] - a["true"]).abs().mean()
    print(f"MuSR: mean |error| {err:.4f} (naive mean of the references {err_naive:.4f}), "
          f"coverage {covered}/30")  # fmt: skip
    assert err < 0.1


def test_stack_weights_are_the_least_squares_convex_weights():
    """stack_weights against a brute-force search of the calibration squared error over a grid
    of the simplex (3 components, step 1/1000) and, for 2 components, against the closed-form
    clipped least-squares lambda (the blend's); a component exact on every calibration model
    takes all the weight; components equal everywhere tie to the reference mean (first)."""
    from evalsci.assess.refset import stack_weights

    rng = np.random.default_rng(3)
    k, tasks = 9, 5
    t = rng.uniform(0.2, 0.8, (k, tasks))
    comps = t[:, :, None] + rng.normal(0, 0.05, (k, tasks, 3))
    comps[:, 1, 2] = t[:, 1]  # p-IRT exact: all its weight
    comps[:, 2, 0] = t[:, 2]  # reference mean exact
    comps[:, 3, 1] = comps[:, 3, 0]  # assessor = reference mean: a tie
    comps[:, 3, 2] = comps[:, 3, 0]  # and p-IRT too
    comps[:, 4, :] += np.array([0.1, -0.1, 0.0])  # an interior optimum on the (0, 1) edge
    got = stack_weights(comps, t)
    assert np.allclose(got.sum(axis=1), 1.0) and (got >= 0).all()
    step = 1000
    g = np.array([(i, j, step - i - j) for i in range(step + 1) for j in range(step + 1 - i)])
    g = g / step
    for c in range(tasks):
        sse = (((comps[:, c, :] @ g.T) - t[:, c, None]) ** 2).sum(axis=0)
        mine = ((comps[:, c, :] @ got[c] - t[:, c]) ** 2).sum()
        assert mine <= sse.min() + 1e-12, c  # never worse than the best grid point
        assert mine >= sse.min() - 1e-4 * max(sse.min(), 1e-6) - 1e-9, c  # the grid is close
    assert got[1].tolist() == [0.0, 0.0, 1.0] and got[2].tolist() == [1.0, 0.0, 0.0]
    assert got[3].tolist() == [1.0, 0.0, 0.0]
    # two components: lambda = <t - a, m - a> / |m - a|^2 clipped to [0, 1]
    m, a = comps[:, :, 0], comps[:, :, 1]
    lam = np.clip(((t - a) * (m - a)).sum(0) / ((m - a) ** 2).sum(0).clip(1e-300), 0, 1)
    lam[3] = 1.0  # m = a: the tie goes to the reference mean
    two = stack_weights(comps[:, :, :2], t)
    np.testing.assert_allclose(two[:, 0], lam, atol=1e-10)


def test_training_features_leave_out_every_run_of_the_rows_model():
    """With `groups`, a training row's difficulty (last column) and agreement with each
    reference item are computed over the rows of the *other* models only (brute force here):
    runs of one model share outcomes, so leaving out only the run itself leaks its label."""
    from evalsci.assess.refset import _training_rows

    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, (5, 12)).astype(np.int8)
    ref = np.array([0, 3])
    groups = np.array(["a", "a", "b", "c", "c"])
    x, lab, _, _ = _training_rows(y, ref, np.random.default_rng(1), 10**6, groups)
    rest = np.setdiff1d(np.arange(12), ref)
    assert len(x) == 5 * len(rest)  # every row, in model-major order
    for k, (j, i) in enumerate((j, i) for j in range(5) for i in rest):
        others = groups != groups[j]
        assert lab[k] == y[j, i]
        assert x[k, -1] == pytest.approx(y[others, i].mean(), abs=1e-12)
        agree = [(y[others, i] == y[others, r]).mean() for r in ref]
        np.testing.assert_allclose(x[k, len(ref) : 2 * len(ref)], agree, atol=1e-12)


def test_group_runs_on_inspect_logs(tmp_path, capsys):
    """--group-runs: each path is one run, and the runs of one model are grouped. inspect-ai's
    logs of alpha and beta on mc_single plus a second run of alpha (its log again, under another
    path: mockllm answers the same each run) are 3 runs of 2 models. Without the option the
    repeated model is an error naming it; with it, predict leaves out whole models, so the 2
    models leave no calibration model (3 ungrouped runs would have left 3) and the estimate
    is the reference mean, said."""
    alpha, beta = sorted(INSPECT.glob("*_mc-single_*.eval"))
    again = tmp_path / "second_run" / alpha.name
    again.parent.mkdir()
    again.write_bytes(alpha.read_bytes())
    known = [str(alpha), str(beta), str(again)]
    ref = tmp_path / "ref.csv"
    assert main(["reference", "select", *known, "--n", "4", "--out", str(ref)]) == 2
    assert "appears twice" in capsys.readouterr().err
    sel = ["reference", "select", *known, "--n", "4", "--out", str(ref), "--group-runs"]
    assert main(sel) == 0
    assert "3 runs of 2 known models" in capsys.readouterr().err
    args = ["reference", "predict", *known, "--reference", str(ref), "--new",
            str(REF_FIX / "inspect"), "--group-runs"]  # fmt: skip
    assert main(args) == 0
    out = capsys.readouterr()
    acc = pd.read_csv(io.StringIO(out.out))
    assert len(acc) == 1 and acc["model"].iloc[0].endswith(f"[{REF_FIX / 'inspect'}]")
    assert "0 calibration models are too few" in acc["note"].iloc[0]
    assert acc["weight_reference_mean"].iloc[0] == 1.0
    # the estimate: the new model's mean on the reference items (its own logged outcomes)
    truth = _truth_inspect()
    items = pd.read_csv(ref, dtype=str)["item"]
    assert acc["accuracy_estimate"].iloc[0] == pytest.approx(np.mean([truth[i] for i in items]))


def test_the_stack_is_its_weights_times_its_components(mirror):
    """predict_new's default on real results (15 MuSR models known, one new, 30 random
    references): the estimate is sum_c w_c x component_c with w >= 0 summing to 1 (the output's
    weight columns), the components recomputed here: the reference mean, the assessor's
    estimate (`--estimator assessor`, the same fit) and p-IRT from tinyBenchmarks' functions
    on the known models' IRT fit; moved by weight_anchor to the anchored estimate (issue 44)."""
    from evalsci.assess.refset import predict_new, select_reference
    from evalsci.assess.responses import Matrix
    from evalsci.assess.tinybench import ItemParams, fit_ability, fit_items, item_curve
    from evalsci.studies.assessors import lomo

    runs = lomo.leaderboard_runs(mirror / "kinds-of-intelligence-cfi-PredictaBoard", "MuSR")
    _, first = np.unique(runs.model, return_index=True)
    rows = np.sort(first)[:16]
    y = runs.success[rows]
    m = Matrix(
        models=[str(runs.model[i]) for i in rows[:15]],
        items=pd.DataFrame({"task": "MuSR", "item": runs.items}),
        success=y[:15],
    )
    ref = select_reference(m, 30, "random", seed=0)
    pos = np.array([runs.items.index(i) for i in ref["item"]])
    new = {"new": {("MuSR", i): int(v) for i, v in zip(runs.items, y[15], strict=True)}}
    acc, _ = predict_new(m, ref, new, max_calibration=9)
    paper, _ = predict_new(m, ref, new, max_calibration=9, estimator="assessor")
    w = acc[["weight_reference_mean", "weight_assessor", "weight_irt"]].to_numpy()[0]
    assert (w >= 0).all() and w.sum() == pytest.approx(1, abs=1e-5)
    items = fit_items(y[:15].astype(float), 10, 0)
    theta = fit_ability(y[15, pos], ItemParams(items.disc[pos], items.diff[pos]))
    p = item_curve(theta, items)
    p[pos] = y[15, pos]
    comps = [y[15, pos].mean(), paper["accuracy_estimate"].iloc[0], p.mean()]
    # near or beyond the known range (weight_anchor > 0) the stack moves to the anchored
    # estimate, which for one task is the model's reference mean
    lam = acc["weight_anchor"].iloc[0]
    want = (1 - lam) * np.dot(w, comps) + lam * comps[0]
    assert acc["accuracy_estimate"].iloc[0] == pytest.approx(want, abs=2e-5)
    print(dict(zip(["mean", "assessor", "irt"], np.round(comps, 4), strict=True)), w, lam)


def test_the_stack_without_torch_is_the_blend_and_says_so(mirror, monkeypatch):
    """Without torch (the IRT fit's), the stack leaves p-IRT out: its estimates are the blend's
    (the same two components, the same weights), and the `note` column says why."""
    from evalsci.assess import refset
    from evalsci.assess.responses import Matrix
    from evalsci.studies.assessors import lomo

    runs = lomo.leaderboard_runs(mirror / "kinds-of-intelligence-cfi-PredictaBoard", "MuSR")
    _, first = np.unique(runs.model, return_index=True)
    rows = np.sort(first)[:13]
    m = Matrix(
        models=[str(runs.model[i]) for i in rows[:12]],
        items=pd.DataFrame({"task": "MuSR", "item": runs.items}),
        success=runs.success[rows[:12]],
    )
    ref = refset.select_reference(m, 20, "random", seed=0)
    new = {
        "new": {
            ("MuSR", i): int(v) for i, v in zip(runs.items, runs.success[rows[12]], strict=True)
        }
    }
    monkeypatch.setattr(refset, "_irt_available", lambda: False)
    stack, _ = refset.predict_new(m, ref, new, max_calibration=9)
    blend, _ = refset.predict_new(m, ref, new, max_calibration=9, estimator="blend")
    assert "p-IRT component left out" in stack["note"].iloc[0]
    assert stack["weight_irt"].iloc[0] == 0.0
    cols = ["accuracy_estimate", "low", "high", "weight_reference_mean", "weight_assessor"]
    pd.testing.assert_frame_equal(stack[cols], blend[cols])
