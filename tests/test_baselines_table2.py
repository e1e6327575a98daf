"""Table 2 (paper 000 Appendix C): the Table 1 verdict of an NF4 and a full-precision run of
the same experiment, and what changes between them.

The per-option files are built by hand (known predictions), turned into the authors'
per-example schema by the real `authors_table`, and judged against baselines the real
maxrandom code computes for the setting's exact n and t. What is asserted is the paper's
criterion (best prompt vs standard 1/k and vs E[max of t]), the share of identical
predictions and the parse-time checks of config `precision_pairs`.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from evalsci.lm.icl import OPTION_COLUMNS, authors_table, predictions
from evalsci.maxrandom.requests import answer_requests
from evalsci.settings import resolved
from evalsci.studies.baselines import keys, table1, table2
from evalsci.studies.baselines.recompute_grid import RecomputeSettings
from evalsci.studies.baselines.settings import Cell, eval_size

TASK, SHOTS, PROMPTS = "known_unknowns", 2, 4  # 2 options per example
N = eval_size(TASK, SHOTS)  # 46 - 2 = 44 (Appendix B: demonstrations come out of the task)
# the recompute settings of a run with this grid (the workflow builds them the same way)
SETTINGS = RecomputeSettings.from_config(
    resolved(
        {
            "baselines": {
                "recompute": {
                    "tasks": [TASK],
                    "shots": [SHOTS],
                    "prompts": PROMPTS,
                    "precision_pairs": [{"nf4": "m-nf4", "full": "m"}],
                }
            }
        }
    )["baselines"]["recompute"]
)


def _pairs(nf4: str, full: str) -> RecomputeSettings:
    return replace(SETTINGS, precision_pairs=((nf4, full),))


def _options(correct: np.ndarray) -> pd.DataFrame:
    """Per-option rows of PROMPTS x N examples where option 0 is the correct one and the
    model picks option 0 exactly where `correct[prompt, example]`."""
    rows = []
    for p in range(PROMPTS):
        for e in range(N):
            pick = 0 if correct[p, e] else 1
            for o in (0, 1):
                ll = -1.0 if o == pick else -3.0
                rows.append((p, "[1, 2]", e, e + 2, "", o, f" {o}", int(o == 0), ll, 1, True))
    return pd.DataFrame(rows, columns=list(OPTION_COLUMNS))


@pytest.fixture
def run(tmp_path):
    rng = np.random.default_rng(0)
    full = rng.random((PROMPTS, N)) < 0.5
    full[0] = np.arange(N) < 40  # best prompt 40/44 = 0.909: above the max random baseline
    nf4 = full.copy()
    nf4[0, :] = rng.random(N) < 0.3  # the 4-bit run loses the good prompt
    nf4[1:, :] = False  # and every other prompt: best accuracy < 1/2
    nf4[1, :21] = True  # except 21/44 = 0.477 on prompt 1: below the standard baseline
    files = {}
    for model, correct in (("m", full), ("m-nf4", nf4)):
        opts = _options(correct)
        base = tmp_path / Cell(model, TASK, SHOTS).key
        opts.to_csv(f"{base}.options.csv.gz", index=False)
        authors_table(opts).to_csv(f"{base}.csv.gz", index=False)
        files[model] = (f"{base}.csv.gz", f"{base}.options.csv.gz", correct)
    agg = {Cell("m", TASK, SHOTS): full.mean(axis=1)}
    req = keys.to_requests(table1.request_keys(agg))
    baselines = keys.Baselines(answer_requests(req, progress=False)[0].assign(key=req["key"]))
    return files, baselines


def test_verdicts_of_both_precisions_and_identical_predictions(run):
    files, baselines = run
    per_ex = {(m, TASK, SHOTS): f[0] for m, f in files.items()}
    opts = {(m, TASK, SHOTS): f[1] for m, f in files.items()}
    df = table2.build(SETTINGS, per_ex, opts, baselines)
    assert len(df) == 1
    r = df.iloc[0]
    assert (r.dataset, r.n, r.model, r.nf4_model, r.shots, r.t) == (TASK, N, "m", "m-nf4", 2, 4)
    assert r.standard_baseline == pytest.approx(0.5)
    emax = baselines.expected_max(N, 2, PROMPTS)
    assert 0.5 < emax < 40 / N  # the criterion is exercised on both sides
    assert r.max_val_acc_full == pytest.approx(40 / N) and r.verdict_full == "above_both"
    assert r.max_val_acc_nf4 == pytest.approx(21 / N) and r.verdict_nf4 == "below_both"
    assert r.verdict_changed
    full, nf4 = files["m"][2], files["m-nf4"][2]
    assert r.identical_predictions == pytest.approx((full == nf4).mean())
    assert r.mean_acc_full == pytest.approx(full.mean())
    assert r.mean_acc_nf4 == pytest.approx(nf4.mean())
    s = table2.summary(df)
    assert s["verdicts_changed"] == 1
    assert s["full"]["above_max"] == 1 and s["nf4"]["above_standard"] == 0
    md = table2.to_markdown(
        df,
        {
            "experiments": 288,
            "disagreements": 40,
            "percent_flipped": 15.8,
            "claim": "c",
            "claim_source": "s",
        },
        {
            "experiments": 288,
            "above_standard": 255,
            "above_max": 199,
            "disagreements": 56,
            "percent_flipped": 22.0,
        },
    )
    assert "15.8%" in md and "22.0%" in md and "| yes |" in md


def test_predictions_follow_the_authors_tie_rule():
    """A tie in mean loss goes to the incorrect option (the authors' tuple sort)."""
    opts = _options(np.ones((PROMPTS, N), dtype=bool))
    opts.loc[(opts["Prompt ID"] == 0) & (opts["Example ID"] == 0), "Log-likelihood"] = -2.0
    pred = predictions(opts)
    assert pred.loc[(0, 0)] == 1 and pred.loc[(0, 1)] == 0
    assert (
        authors_table(opts).set_index(["Prompt ID", "Example ID"]).loc[(0, 0), "Correct prediction"]
        == 0
    )


def test_precision_pairs_are_checked_at_parse_time():
    models = {"m": {"quantize": "none"}, "m-nf4": {"quantize": "nf4"}, "a": {}}
    where = "config baselines.recompute"
    table2.check_pairs(SETTINGS, models, where)
    with pytest.raises(ValueError, match=r"precision_pairs\[0\]\.full \(.*\): unknown model 'x'"):
        table2.check_pairs(_pairs("a", "x"), models, where)
    with pytest.raises(ValueError, match=r"precision_pairs\[0\]\.nf4: model 'm' has quantize"):
        table2.check_pairs(_pairs("m", "a"), models, where)
    with pytest.raises(ValueError, match=r"precision_pairs\[0\]\.full: model 'm-nf4'"):
        table2.check_pairs(_pairs("a", "m-nf4"), models, where)
