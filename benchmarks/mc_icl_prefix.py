"""Benchmark: Algorithm 1 with incremental prefix reuse vs naive per-k prompts.

One trial of Algorithm 1 (SmolLM2-135M on CPU, SST-2, small K, P and validation subsample)
is scored twice in one run:

- naive: as the harness would, every (permutation, k) prompt, k = 0..K for each of the P
  permutations, scored as full uncached sequences (`Scorer.score_uncached`);
- incremental: `evalsci.studies.mc_icl.inference.score_plan`: the demonstration prefix of a
  permutation is extended one demonstration at a time on its KV cache, each distinct prefix
  is scored once (k = 0 once per trial), and queries run on top of the cached prefix.

Both must give the same log-likelihoods (checked: to 1e-3 in float32; in bfloat16 to 0.5
nats, and the share of (prompt, query) pairs with the same prediction is printed: the engine
computes the output head in float32, so that bf16 disagreements come only from the
hidden states' rounding).

`--sweep 5,10,20` repeats the comparison for each K (with `--sweep-n` validation examples
each, fewer for larger K to keep the naive side's runtime sane: its tokens grow as K^2, the
incremental side's as K) and prints the measured ratio beside the token ratio, which is what
the ratio should approach when both paths process tokens at the same rate.

Times are process CPU seconds (user + sys; with one thread on a shared machine that is the
work done) with wall seconds beside them. The last line is `speedup: <ratio>x`, the CPU-time
ratio at `--K` (the first K of a sweep).

    EVALSCI_MIRROR=../shared/released .venv/bin/python benchmarks/mc_icl_prefix.py \\
        [--K 5] [--P 3] [--n 8] [--dataset sst2] [--threads 1] [--dtype float32]
        [--sweep 5,10,20 --sweep-n 8,4,2]
    .venv/bin/python benchmarks/mc_icl_prefix.py --smoke     # a tiny random model (CI)

`--incremental-only` times the incremental side alone (what a shard runs: the cost of an
Algorithm 1 run, e.g. `--K 4 --P 1 --n 32`; docs/mc_icl.md, "At CPU scale"), and
`--portable` sets the portable-arithmetic pins (evalsci.pipeline.determinism.PORTABLE_ENV)
before torch loads, to price them.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np


def compare(model, tok, args, K: int, n: int) -> dict:
    """Naive and incremental scoring of one trial plan; returns times, tokens, agreement."""
    from evalsci.lm.scoring import Query
    from evalsci.studies.mc_icl.inference import score_plan
    from evalsci.studies.mc_icl.sampler import eval_subsample, plan_trial, prefix_tree
    from evalsci.studies.mc_icl.shards import load_data, make_scorer
    from evalsci.studies.mc_icl.templates import template

    train, val = load_data(args.dataset, None)
    queries = [val[i] for i in eval_subsample(len(val), n, args.seed, args.dataset)]
    plan = plan_trial(len(train), K, args.P, args.seed, args.dataset, 0)
    tmpl = template(args.dataset)

    naive = make_scorer(model, tok)
    t0, c0 = time.perf_counter(), time.process_time()
    naive_ll = {}
    for p in range(0 if args.incremental_only else plan.P):
        for k in range(plan.K + 1):
            demos = tuple(int(i) for i in plan.permutations[p, :k])
            items = [
                Query(tmpl.context([train[i] for i in demos], q), tmpl.continuations(q))
                for q in queries
            ]
            naive_ll[demos] = np.array([s.sums for s in naive.score_uncached(items, "")])
    t_naive, c_naive = time.perf_counter() - t0, time.process_time() - c0

    inc = make_scorer(model, tok)
    t0, c0 = time.perf_counter(), time.process_time()
    inc_ll, _ = score_plan(inc, tmpl, train, queries, plan, progress=False)
    t_inc, c_inc = time.perf_counter() - t0, time.process_time() - c0

    if args.incremental_only:
        return dict(
            K=K, P=plan.P, n=len(queries), tokens=inc.stats.forward_tokens, cpu=c_inc, wall=t_inc
        )
    diff = max(float(np.abs(inc_ll[d] - naive_ll[d]).max()) for d in naive_ll)
    same = [(inc_ll[d].argmax(1) == naive_ll[d].argmax(1)) for d in naive_ll]
    return dict(
        K=K,
        P=plan.P,
        n=len(queries),
        prompts=plan.P * (plan.K + 1),
        distinct=len(prefix_tree(plan)),
        naive_tokens=naive.stats.forward_tokens,
        inc_tokens=inc.stats.forward_tokens,
        t_naive=t_naive,
        c_naive=c_naive,
        t_inc=t_inc,
        c_inc=c_inc,
        diff=diff,
        agree=float(np.mean(np.concatenate(same))),
        pairs=int(sum(len(s) for s in same)),
        cached=inc.stats.cached,
        fallbacks=inc.stats.fallback_boundary,
    )


def report(r: dict) -> None:
    print(f"K={r['K']} P={r['P']} n={r['n']}")
    print(
        f"  naive: {r['prompts']} prompts x {r['n']} queries, {r['naive_tokens']} tokens, "
        f"CPU {r['c_naive']:.1f} s (wall {r['t_naive']:.1f} s), "
        f"{r['naive_tokens'] / r['c_naive']:.1f} tokens per CPU s"
    )
    print(
        f"  incremental: {r['distinct']} distinct prompts, {r['inc_tokens']} tokens, "
        f"CPU {r['c_inc']:.1f} s (wall {r['t_inc']:.1f} s), "
        f"{r['inc_tokens'] / r['c_inc']:.1f} tokens per CPU s "
        f"(cached {r['cached']}, boundary fallbacks {r['fallbacks']})"
    )
    print(
        f"  max |log-likelihood difference| {r['diff']:.2e}; same prediction for "
        f"{r['agree']:.2%} of {r['pairs']} (prompt, query) pairs"
    )
    print(
        f"  ratio: token {r['naive_tokens'] / r['inc_tokens']:.2f}x, CPU time "
        f"{r['c_naive'] / r['c_inc']:.2f}x, wall time {r['t_naive'] / r['t_inc']:.2f}x"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", default="sst2")
    ap.add_argument("--K", type=int, default=5)
    ap.add_argument("--P", type=int, default=3)
    ap.add_argument("--n", type=int, default=8, help="validation examples")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--dtype", default="float32", choices=["float32", "bfloat16"])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sweep", default="", help="comma-separated K values, e.g. 5,10,20")
    ap.add_argument("--sweep-n", default="", help="validation examples per swept K")
    ap.add_argument(
        "--smoke",
        action="store_true",
        help="a tiny random Llama, K = P = 2, 2 examples: seconds (CI)",
    )
    ap.add_argument(
        "--incremental-only", action="store_true", help="time the incremental side alone"
    )
    ap.add_argument("--portable", action="store_true", help="portable arithmetic's pins")
    args = ap.parse_args()
    if args.portable:  # before torch is imported: the pins are read at load time
        from evalsci.pipeline.determinism import PORTABLE_ENV

        os.environ.update(PORTABLE_ENV)
    if args.smoke:
        args.K, args.P, args.n, args.sweep, args.sweep_n = 2, 2, 2, "", ""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    import torch

    from evalsci.lm.load import load_model, tiny_model
    from evalsci.lm.scoring import Query
    from evalsci.studies.mc_icl.shards import make_scorer

    torch.set_num_threads(args.threads)
    if args.smoke:  # the same code on a tiny random model: no real number
        model, tok = tiny_model("llama", seed=0)
    else:
        model, tok = load_model("smollm2", dtype=args.dtype)
    # warm-up (first forward passes allocate)
    make_scorer(model, tok).score_uncached([Query("warm up", [" a"])], "")

    Ks = [int(k) for k in args.sweep.split(",") if k] or [args.K]
    ns = [int(n) for n in args.sweep_n.split(",") if n] or [args.n] * len(Ks)
    if len(ns) != len(Ks):
        raise SystemExit(f"--sweep-n needs one value per K ({len(Ks)}), got {args.sweep_n!r}")
    print(f"dataset={args.dataset} dtype={args.dtype} threads={args.threads}")
    results = []
    for K, n in zip(Ks, ns, strict=True):
        r = compare(model, tok, args, K, n)
        if args.incremental_only:
            print(
                f"K={K} P={r['P']} n={r['n']}: {r['tokens']} tokens, CPU {r['cpu']:.1f} s (wall "
                f"{r['wall']:.1f} s), {r['tokens'] / r['cpu']:.1f} tokens per CPU s"
            )
            continue
        report(r)
        results.append(r)
        tol = 1e-3 if args.dtype == "float32" else 0.5
        if r["diff"] > tol:
            raise SystemExit(f"incremental and naive scores differ by {r['diff']} (> {tol})")
    if args.incremental_only:
        return
    if len(results) > 1:
        print("K  n  token ratio  CPU-time ratio")
        for r in results:
            print(
                f"{r['K']:<3d}{r['n']:<3d}{r['naive_tokens'] / r['inc_tokens']:10.2f}x"
                f"{r['c_naive'] / r['c_inc']:13.2f}x"
            )
    print(f"speedup: {results[0]['c_naive'] / results[0]['c_inc']:.2f}x")


if __name__ == "__main__":
    main()
