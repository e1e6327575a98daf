"""Paper scale, planned without a model: tokens the engine must forward vs the naive loop, and
the GPU-hours they imply, per study.

The planner (`evalsci.lm.scoring.Planner.plan_tokens`, tested to count exactly what
`Scorer.score` forwards) tokenises every candidate of a prompt and counts:
- naive: every candidate `prefix + context + option` as its own full sequence (the baselines
  authors' loop; lm-evaluation-harness for mc_icl: every (permutation, k) prompt in full);
- engine: the prefix once, each query's context once, its options on top (fallbacks in full);
  for mc_icl each distinct demonstration prefix of a trial is extended by one demonstration
  on its cache (`prefix_tree`), so each prefix token runs once per trial.

Per study at the paper's scale (the `paper` presets, workflow/presets/<study>/paper.yaml):
- baselines (000): 6 models x 16 tasks x 1/2/4 shots x 200 prompts (the authors' prompts from
  their OLMo-7B CSVs), option_tokens authors, right-truncation at 512; Table 2 doubles it;
- mc_icl (004): 8 models x 8 datasets x 5 trials, K = P = 20, 256 validation examples;
- tapt (002, Sec. 9): Mistral-7B zero-shot CAPPr on 25 tasks x 20 subsamples x 100 test
  texts, 3 scorings per subsample (base, extra, test) x 2 (packing), plus the QLoRA training
  tokens (2 adapters per subsample; forward + backward ~ 3 forward passes).

No model and no hub: every study is tokenised with SmolLM2's tokenizer (a proxy: Llama-2,
Falcon, OLMo, Pythia/OPT and Mistral tokenise English within roughly +-20% of it); mc_icl's
hellaswag/mnli/qnli/qqp and tapt's 25 tasks are hub-only, so mc_icl is measured on the four
offline GLUE tasks (sst2, rte, wnli, mrpc) and scaled to eight, tapt's texts are SST-2
validation sentences with each task's class names and instruction. Prompts, trials and
queries are sampled (`--sample-*`) and scaled up, as printed.

GPU-hours = engine tokens x 2 x parameters / (MFU x peak FLOP/s): forward FLOPs of a dense
decoder, at the stated `--peak-tflops` (A100 bf16 dense 312) and `--mfu`. The papers report
the hardware, not the hours (printed beside).

    EVALSCI_MIRROR=../shared/released .venv/bin/python benchmarks/paper_scale.py \\
        [--sample-prompts 4] [--sample-eval 16] [--mfu 0.3] [--peak-tflops 312]
        [--studies baselines,mc_icl,tapt]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

# parameters (billions), from the models' cards
PARAMS = {
    "Llama-2-7b": 6.74,
    "Alpaca-7b": 6.74,
    "OLMo-7B": 6.89,
    "OLMo-7B-Instruct": 6.89,
    "falcon-7b": 7.22,
    "falcon-7b-instruct": 7.22,
    "pythia-160m": 0.162,
    "pythia-1.4b": 1.41,
    "opt-350m": 0.331,
    "opt-1.3b": 1.32,
    "gpt-neo-1.3b": 1.32,
    "gpt-neo-2.7b": 2.72,
    "llama-2-7b": 6.74,
    "llama-2-13b": 13.0,
    "Mistral-7B-v0.3": 7.25,
}
REPORTED = {
    "baselines": "000 App. B: one NVIDIA RTX A6000 (48 GB); no hours given",
    "mc_icl": "004 App. B: each experiment on a single NVIDIA A100; no hours given",
    "tapt": "002 App. C: Sec. 5 (BERT/GPT-2) 'about 5 days on a T4'; App. H: zero-shot on an "
    "L4 (QLoRA data types); no hours given for Sec. 9",
}


def gpu_hours(tokens: float, params_b: float, args) -> float:
    return tokens * 2 * params_b * 1e9 / (args.mfu * args.peak_tflops * 1e12) / 3600


def baselines(planner, args):
    from evalsci.data.bigbench import load_task, subsample_positions
    from evalsci.data.bigbench_meta import BBL_TASKS
    from evalsci.lm.prompts import few_shot_prefix, query, released_plans
    from evalsci.lm.scoring import TokenPlan

    mirror = Path(args.mirror)
    srb = mirror / "gyauney-stronger-random-baselines"
    total = TokenPlan(0, 0, 0, 0, 0)
    smoke = getattr(args, "smoke", False)  # one task, 1-shot, a few queries: no real number
    for task in sorted(BBL_TASKS)[:1] if smoke else sorted(BBL_TASKS):
        ex = load_task(task, mirror / "bigbench")
        sub = subsample_positions(task, srb / "few-shot-eval" / "subsampled-idxs")
        for shots in (1,) if smoke else (1, 2, 4):
            csv = srb / "results" / f"OLMo-7B_{task}_{shots}-shot.csv.gz"
            plans = released_plans(csv if csv.exists() else csv.with_suffix(""))
            step = max(1, len(plans) // args.sample_prompts)
            sample = plans[::step][: args.sample_prompts]
            cell = TokenPlan(0, 0, 0, 0, 0)
            for plan in sample:
                prefix = few_shot_prefix([ex[p] for p in plan.demos])
                qs = [query(ex[p]) for p in plan.eval_positions(len(ex), sub)]
                qs = qs[: args.sample_eval] if smoke else qs
                cell = cell + planner.plan_tokens(qs, prefix)
            scale = 200 / len(sample)
            total = total + TokenPlan(*(round(v * scale) for v in _fields(cell)))
    models = list(PARAMS)[:6]
    return total, models, len(models), f"200 prompts per cell from {args.sample_prompts} sampled"


def mc_icl(planner, args):
    from evalsci.lm.scoring import Query, TokenPlan
    from evalsci.studies.mc_icl.sampler import eval_subsample, plan_trial, prefix_tree
    from evalsci.studies.mc_icl.shards import load_data
    from evalsci.studies.mc_icl.templates import FEWSHOT_DELIMITER, template

    K = P = 20
    total = TokenPlan(0, 0, 0, 0, 0)
    datasets = ["sst2", "rte", "wnli", "mrpc"]
    for ds in datasets:
        train, val = load_data(ds, Path(args.mirror) / "glue")
        queries = [val[i] for i in eval_subsample(len(val), args.sample_eval, 0, ds)]
        plan = plan_trial(len(train), K, P, 0, ds, 0)
        tmpl = template(ds)
        zero = [Query(tmpl.doc_to_text(q), tmpl.continuations(q)) for q in queries]
        few = [Query(FEWSHOT_DELIMITER + x.context, x.options) for x in zero]
        engine = naive = scored = cands = fb = 0
        texts: dict[tuple, str] = {(): ""}
        for node in prefix_tree(plan):
            if node:
                piece = tmpl.answered(train[node[-1]])
                texts[node] = texts[node[:-1]] + (
                    piece if len(node) == 1 else FEWSHOT_DELIMITER + piece
                )
                # the extension runs once on the parent's cache
                engine += len(planner.encode(texts[node])) - len(planner.encode(texts[node[:-1]]))
            tp = planner.plan_tokens(few if node else zero, texts[node])
            engine += tp.engine - len(planner.encode(texts[node]))  # prefix counted above
            fb += tp.fallbacks
        for _p, _k, prefix in plan.steps():  # naive: every (permutation, k) prompt in full
            tp = planner.plan_tokens(
                [
                    Query(tmpl.context([train[i] for i in prefix], q), tmpl.continuations(q))
                    for q in queries
                ],
                "",
            )
            naive += tp.naive
            scored += tp.scored
            cands += tp.candidates
        scale = 256 / len(queries)
        total = total + TokenPlan(
            round(naive * scale),
            round(engine * scale),
            round(scored * scale),
            round(cands * scale),
            fb,
        )
    # 8 datasets x 5 trials from 4 datasets x 1 trial
    total = TokenPlan(*(v * 2 * 5 for v in _fields(total)))
    models = list(PARAMS)[6:14]
    return (
        total,
        models,
        len(models),
        f"4 offline GLUE tasks x 2, 1 trial x 5, {args.sample_eval} of 256 queries",
    )


def tapt(planner, args):
    from evalsci.data import hf_classification as hfc
    from evalsci.lm.scoring import Query, TokenPlan
    from evalsci.studies.tapt.settings import resolved_settings
    from evalsci.studies.tapt.training import zero_shot

    zs = resolved_settings(scale="paper_zero_shot").training.settings[0].zero_shot
    frame = hfc.load_frame("sst2", glue_root=Path(args.mirror) / "glue")
    texts = frame["text"].tolist()[: args.sample_eval]
    total = TokenPlan(0, 0, 0, 0, 0)
    train_tokens = 0
    for name in sorted(hfc.PAPER_DATASETS):
        spec = hfc.get_spec(name)
        prefix, rest = zero_shot.prompts(planner.tok, texts, spec, zs.chat_template)
        tp = planner.plan_tokens(
            [Query(r, [" " + c for c in spec.class_names]) for r in rest], prefix
        )
        train_tokens += sum(min(zs.max_length, len(planner.encode(prefix + r))) for r in rest)
        total = total + tp
    # per task: 20 subsamples x 100 texts x 3 scorings x 2 variants; sampled texts scaled
    scale = 20 * 100 / len(texts) * 3 * 2
    total = TokenPlan(*(round(v * scale) for v in _fields(total)))
    train = train_tokens * 20 * 100 / len(texts) * 2 * 2 * 3  # 2 adapters, 2 variants, fwd+bwd
    return total, ["Mistral-7B-v0.3"], 1, f"SST-2 texts as proxy, {len(texts)} per task", train


def _fields(p):
    return (p.naive, p.engine, p.scored, p.candidates, p.fallbacks)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--mirror",
        default=os.environ.get("EVALSCI_MIRROR", str(REPO.parent / "shared" / "released")),
    )
    ap.add_argument("--sample-prompts", type=int, default=4, help="baselines prompts per cell")
    ap.add_argument("--sample-eval", type=int, default=16, help="mc_icl / tapt queries")
    ap.add_argument("--studies", default="baselines,mc_icl,tapt", help="comma-separated")
    ap.add_argument("--mfu", type=float, default=0.3)
    ap.add_argument("--peak-tflops", type=float, default=312.0)
    ap.add_argument(
        "--smoke",
        action="store_true",
        help="baselines: one task, 1-shot, one prompt, two queries, a tiny tokenizer; seconds, no real number (CI)",
    )
    args = ap.parse_args()
    if args.smoke:
        args.studies, args.sample_prompts, args.sample_eval = "baselines", 1, 2
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    from evalsci.lm.load import load_tokenizer, tiny_tokenizer
    from evalsci.lm.scoring import Planner

    # the SmolLM2 tokenizer comes from its GGUF (~10 s to parse); the smoke test's tiny one
    # is enough to run every line
    tok = tiny_tokenizer() if args.smoke else load_tokenizer("smollm2")
    print(
        f"throughput assumption: MFU {args.mfu:.0%} of {args.peak_tflops:.0f} TFLOP/s; "
        "tokenizer: SmolLM2 (proxy)"
    )
    rows = []
    for study, fn, kw in (
        ("baselines", baselines, dict(option_tokens="authors", max_length=512)),
        ("mc_icl", mc_icl, dict(option_tokens="span", add_special_tokens=False)),
        ("tapt", tapt, dict(option_tokens="span")),
    ):
        if study not in args.studies.split(","):
            continue
        out = fn(Planner(tok, **kw), args)
        tp, models, n_models, how = out[:4]
        hours_engine = sum(gpu_hours(tp.engine, PARAMS[m], args) for m in models)
        hours_naive = sum(gpu_hours(tp.naive, PARAMS[m], args) for m in models)
        print(f"\n{study} ({how}; per model, x {n_models} models)")
        print(
            f"  naive {tp.naive / 1e6:,.1f} M tokens, engine {tp.engine / 1e6:,.1f} M tokens: "
            f"{tp.naive / tp.engine:.1f}x fewer ({tp.candidates / 1e6:,.2f} M candidates, "
            f"{tp.fallbacks / 1e6:,.2f} M of them scored in full: truncated or a BPE merge "
            f"at the boundary; {tp.scored / 1e6:,.1f} M scored tokens)"
        )
        print(
            f"  GPU-hours, all {n_models} models: engine {hours_engine:,.1f}, naive "
            f"{hours_naive:,.1f}"
        )
        if len(out) > 4:
            train = out[4]
            h = gpu_hours(train, PARAMS[models[0]], args)
            print(
                f"  QLoRA training: {train / 1e6:,.1f} M forward-equivalent tokens, {h:,.1f} GPU-hours"
            )
            hours_engine += h
        if study == "baselines":
            print(f"  Table 2 (full-precision twins) doubles it: {2 * hours_engine:,.1f} GPU-hours")
        print(f"  papers: {REPORTED[study]}")
        rows.append((study, hours_engine))
    print("\ntotal GPU-hours (engine, Table 2 excluded):", f"{sum(h for _, h in rows):,.1f}")


if __name__ == "__main__":
    main()
