"""Classifier training and prediction (Section 4.1 step 2, Appendix B).

As the author's `classification.py`: `AutoModelForSequenceClassification.from_pretrained(
path, num_labels=K)` adds a linear layer on the [CLS] embedding (BERT; through the pooler)
or on the last non-pad token (GPT-2-type; pad = eos), and *all* weights are finetuned on
train with HF Trainer (AdamW, lr 5e-5, weight_decay 0.01, linear schedule). Predictions are
the softmax of the logits; accuracy is mean(argmax == label).

Inputs are truncated at the model's maximum length by default (the author's classifier
tokenises without max_length: 512 tokens for BERT, 1024 for GPT-2), not at the 256 tokens
of pretraining; config `tapt.training.classifier.max_length` overrides it. Batches are
padded per batch (the author pads the whole set to its longest text; for these models,
which mask pads, the result is the same up to float rounding).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np

from evalsci.studies.tapt.training.pretrain import training_args
from evalsci.studies.tapt.training.settings import Classifier as ClassifierSettings

log = logging.getLogger(__name__)


def model_max_length(tokenizer, config) -> int:
    """The longest input the model takes: the smaller of the tokenizer's and the position
    embeddings' limits (tokenizers often report a huge sentinel)."""
    limits = [getattr(config, k, None) for k in ("max_position_embeddings", "n_positions")]
    limits = [int(x) for x in limits if x]
    tok_max = getattr(tokenizer, "model_max_length", None)
    if tok_max and tok_max < 1e9:
        limits.append(int(tok_max))
    return min(limits) if limits else 512


def _dataset(tokenizer, texts, labels, max_length):
    from datasets import Dataset

    enc = tokenizer(list(texts), truncation=True, max_length=max_length)
    cols = {"input_ids": enc["input_ids"], "attention_mask": enc["attention_mask"]}
    if "token_type_ids" in enc:
        cols["token_type_ids"] = enc["token_type_ids"]
    if labels is not None:
        cols["labels"] = [int(x) for x in labels]
    return Dataset.from_dict(cols)


class Classifier:
    """A finetuned sequence classifier and its Trainer (for batched prediction)."""

    def __init__(self, trainer, tokenizer, max_length: int, metrics: dict):
        self.trainer = trainer
        self.tokenizer = tokenizer
        self.max_length = max_length
        self.metrics = metrics

    def predict_proba(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), K) softmax probabilities."""
        import torch

        ds = _dataset(self.tokenizer, texts, None, self.max_length)
        logits = self.trainer.predict(ds).predictions
        if isinstance(logits, tuple):
            logits = logits[0]
        return torch.softmax(torch.as_tensor(logits, dtype=torch.float32), dim=-1).numpy()


def train_classifier(
    model_path: str,
    tokenizer,
    texts: Sequence[str],
    labels: Sequence[int],
    num_labels: int,
    *,
    settings: ClassifierSettings,
    epochs: float,
    batch_size: int,
    eval_batch_size: int,
    seed: int,
    device: str = "cpu",
    dtype: str = "float32",
    work_dir: str,
) -> Classifier:
    """Add a K-way linear head to `model_path` and finetune all weights on (texts, labels)
    (learning rate, weight decay and truncation: `settings`, config tapt.training.classifier).

    The head is initialised right after `set_seed(seed)`, so a shard gives the same model
    whenever it runs. `work_dir` is the Trainer's (unused) output directory.
    """
    import torch
    from transformers import (
        AutoModelForSequenceClassification,
        DataCollatorWithPadding,
        Trainer,
        set_seed,
    )

    torch.set_grad_enabled(True)
    set_seed(seed)
    model = AutoModelForSequenceClassification.from_pretrained(
        model_path, num_labels=num_labels, dtype=getattr(torch, dtype)
    )
    if model.config.pad_token_id is None:
        model.config.pad_token_id = tokenizer.pad_token_id
    max_length = settings.max_length or model_max_length(tokenizer, model.config)
    trainer = Trainer(
        model=model,
        args=training_args(
            work_dir,
            batch_size=batch_size,
            epochs=epochs,
            learning_rate=settings.learning_rate,
            weight_decay=settings.weight_decay,
            seed=seed,
            device=device,
            eval_batch_size=eval_batch_size,
        ),
        train_dataset=_dataset(tokenizer, texts, labels, max_length),
        data_collator=DataCollatorWithPadding(tokenizer),
    )
    out = trainer.train()
    metrics = dict(out.metrics)
    metrics["train_loss"] = float(out.training_loss)
    return Classifier(trainer, tokenizer, max_length, metrics)
