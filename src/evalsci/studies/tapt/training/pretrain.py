"""Task-adaptive pretraining (Sections 4.1-4.2, 8): MLM for BERT-type, CLM for GPT-2-type LMs.

As the author's `pretrain.py`: a freshly loaded pretrained LM is trained with its own
objective on unlabeled texts (extra or test), tokenised with truncation at 256 tokens,
with HF Trainer (AdamW, lr 1e-4, linear schedule without warmup, no weight decay) and
`DataCollatorForLanguageModeling` (mlm_probability 0.15 for MLM; for CLM the labels are the
inputs, pads masked). The trained model is saved (model + tokenizer) so the classifier
starts from it, exactly as the author's `_pretrained` directory.

BERT quirk kept on purpose: `BertForMaskedLM` has no pooler, so the saved checkpoint has
none and the classifier built from it (acc_extra, acc_test) starts from a freshly
initialised pooler, while acc_base starts from the original checkpoint's pooler.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence

from evalsci.studies.tapt.training.settings import Pretrain

log = logging.getLogger(__name__)

METHODS = ("mlm", "clm")


def _auto_class(method: str):
    from transformers import AutoModelForCausalLM, AutoModelForMaskedLM

    if method not in METHODS:
        raise ValueError(f"pretraining method must be one of {METHODS}, not {method!r}")
    return AutoModelForMaskedLM if method == "mlm" else AutoModelForCausalLM


def _collator(tokenizer, method: str, mlm_probability: float):
    from transformers import DataCollatorForLanguageModeling

    if method == "mlm" and tokenizer.mask_token is None:
        raise ValueError("MLM pretraining needs a tokenizer with a mask token")
    return DataCollatorForLanguageModeling(
        tokenizer, mlm=method == "mlm", mlm_probability=mlm_probability
    )


def _dataset(tokenizer, texts: Sequence[str], max_length: int):
    from datasets import Dataset

    enc = tokenizer(list(texts), truncation=True, max_length=max_length)
    return Dataset.from_dict(
        {"input_ids": enc["input_ids"], "attention_mask": enc["attention_mask"]}
    )


def training_args(
    out_dir: str,
    *,
    batch_size: int,
    epochs: float,
    learning_rate: float,
    seed: int,
    device: str,
    weight_decay: float = 0.0,
    eval_batch_size: int = 8,
    **extra,
):
    """HF TrainingArguments shared by every training step (nothing saved, no reporting)."""
    from transformers import TrainingArguments

    return TrainingArguments(
        output_dir=out_dir,
        per_device_train_batch_size=batch_size,
        per_device_eval_batch_size=eval_batch_size,
        num_train_epochs=epochs,
        learning_rate=learning_rate,
        weight_decay=weight_decay,
        optim=extra.pop("optim", "adamw_torch"),
        seed=seed,
        save_strategy="no",
        logging_strategy=extra.pop("logging_strategy", "no"),
        report_to=[],
        disable_tqdm=True,
        use_cpu=not str(device).startswith("cuda"),
        dataloader_num_workers=0,
        **extra,
    )


def pretrain(
    model_path: str,
    tokenizer,
    texts: Sequence[str],
    out_dir: str,
    *,
    settings: Pretrain,
    method: str,
    epochs: float,
    batch_size: int,
    seed: int,
    device: str = "cpu",
    dtype: str = "float32",
    work_dir: str | None = None,
) -> dict:
    """Pretrain a fresh copy of `model_path` on `texts` (learning rate, truncation and MLM
    masking: `settings`, config tapt.training.pretrain); save it to `out_dir`.

    Returns the Trainer's metrics (`train_loss`, `train_runtime`, ...) plus `num_tokens`.
    """
    import tempfile

    import torch
    from transformers import Trainer, set_seed

    torch.set_grad_enabled(True)
    set_seed(seed)
    model = _auto_class(method).from_pretrained(model_path, dtype=getattr(torch, dtype))
    if model.config.pad_token_id is None:
        model.config.pad_token_id = tokenizer.pad_token_id
    ds = _dataset(tokenizer, texts, settings.max_length)
    with tempfile.TemporaryDirectory(dir=work_dir) as tmp:
        trainer = Trainer(
            model=model,
            args=training_args(
                tmp,
                batch_size=batch_size,
                epochs=epochs,
                learning_rate=settings.learning_rate,
                seed=seed,
                device=device,
            ),
            train_dataset=ds,
            data_collator=_collator(tokenizer, method, settings.mlm_probability),
        )
        out = trainer.train()
    model.save_pretrained(out_dir)
    tokenizer.save_pretrained(out_dir)
    metrics = dict(out.metrics)
    metrics["train_loss"] = float(out.training_loss)
    metrics["num_tokens"] = int(sum(len(x) for x in ds["input_ids"]))
    del trainer, model
    return metrics


def lm_loss(
    model_path: str,
    tokenizer,
    texts: Sequence[str],
    *,
    settings: Pretrain,
    method: str,
    seed: int = 0,
    batch_size: int = 16,
    device: str = "cpu",
) -> float:
    """Mean token loss of the LM objective on `texts`, truncated and masked as pretraining
    (`settings`) does (MLM masks drawn with `seed`, so two models are compared on the same
    masked positions)."""
    import torch
    from transformers import set_seed

    model = _auto_class(method).from_pretrained(model_path, dtype=torch.float32).to(device)
    model.eval()
    ds = _dataset(tokenizer, texts, settings.max_length)
    collate = _collator(tokenizer, method, settings.mlm_probability)
    set_seed(seed)
    total, count = 0.0, 0
    with torch.no_grad():
        for start in range(0, len(ds), batch_size):
            batch = collate([ds[j] for j in range(start, min(start + batch_size, len(ds)))])
            batch = {k: v.to(device) for k, v in batch.items()}
            logits = model(
                input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]
            ).logits
            labels = batch["labels"]
            if method == "clm":
                logits, labels = logits[:, :-1], labels[:, 1:]
            mask = labels != -100
            lp = torch.nn.functional.cross_entropy(
                logits[mask].float(), labels[mask], reduction="sum"
            )
            total += float(lp)
            count += int(mask.sum())
    if count == 0:
        return math.nan
    return total / count
