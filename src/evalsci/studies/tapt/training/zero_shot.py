"""Zero-shot classification after pretraining on task prompts (Section 9, Appendix H).

Prompt (the paper's ag_news example; the author's `_dum.py`):

    Your task is to classify a given text as one of these categories:
    {class names, one per line}

    {task description}

    ### Text: {text[:1000]}
     ### Answer:

If the tokenizer has a chat template (and `chat_template` is `auto`), the author renders
the instruction as the system message (only when the template mentions 'system', else it
is prepended to the user message), `### Text: ...` as the user message and ` ### Answer:` as
the assistant message, then strips the trailing EOS; without a template the parts are
concatenated. We do the same, and also strip whitespace after the EOS (ChatML templates
end a message with EOS + newline, which the author's `removesuffix(eos)` leaves in place).

Pretraining ("unanswered task prompts"): a LoRA adapter (r 16, alpha 32, dropout 0.05, no
bias, every linear layer) is trained with the causal LM loss over all prompt tokens, one
epoch, lr 2e-4, truncation at 512 tokens. With a 4-bit base (QLoRA: `quantize: auto` on
CUDA, `quantize: nf4` anywhere) the base model is loaded in bitsandbytes NF4 with double
quantisation through `evalsci.lm.load`, prepared with `peft.prepare_model_for_kbit_training`
and gradient checkpointing, and trained with paged 8-bit AdamW, as the author (bf16 compute
and mixed precision on CUDA; float32 compute on CPU, where bitsandbytes >= 0.50 runs the
4-bit layers and the 8-bit optimiser, the latter unpaged: paging is a CUDA feature). The
base stays frozen and 4-bit: only the LoRA matrices train (tests/test_tapt_qlora.py).
On CPU `quantize: auto` keeps a float32 base and plain AdamW: the same LoRA adapter without
the 4-bit base (4-bit on CPU saves memory, not time). The packing variant
(`pack: true`, `mistral-qlora-zero-shot-packing`) trains on `packed_prompts` instead: 8 texts
per sequence under one instruction, batch size 1, truncation at 8192 tokens.

Classification (no training on labels): the probability of each class name completing
the prompt. As CAPPr (`predict_proba`, the author's scorer): each completion is
`" " + class_name`, its score is the mean log-probability of its tokens, and the class
probabilities are the normalised exp of those means (a softmax). The instruction shared
by all prompts is run once and its KV cache reused (`evalsci.lm.scoring.Scorer`).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from os.path import commonprefix

import numpy as np

from evalsci.data.hf_classification import NUM_CHARACTERS_MAX, DatasetSpec
from evalsci.studies.tapt.training.pretrain import training_args
from evalsci.studies.tapt.training.settings import Lora, ZeroShot

log = logging.getLogger(__name__)

QUERY_TEMPLATE = "### Text:"
RESPONSE_TEMPLATE = " ### Answer:"
# The adapter's fixed settings (the author's); its rank, alpha and dropout are config
# tapt.training.zero_shot.lora (Lora).
LORA = {"bias": "none", "target_modules": "all-linear"}


def instruction(class_names: Sequence[str], task_description: str) -> str:
    return (
        "Your task is to classify a given text as one of these categories:\n"
        + "\n".join(class_names)
        + "\n\n"
        + f"{task_description}\n\n"
    )


def _system_role(tokenizer) -> str | None:
    template = getattr(tokenizer, "chat_template", None) or ""
    return "system" if "'system'" in template else None


def _render(tokenizer, messages: list[dict], use_template: bool) -> str:
    if not use_template:
        return "".join(m["content"] for m in messages)
    text = tokenizer.apply_chat_template(messages, tokenize=False)
    eos = tokenizer.eos_token
    stripped = text.rstrip()
    if eos and stripped.endswith(eos):
        return stripped[: -len(eos)]
    return text.removesuffix(eos) if eos else text


def _setup(tokenizer, spec: DatasetSpec, chat_template: str) -> tuple[bool, str, str | None]:
    """(use the chat template?, instruction, role of the instruction message or None)."""
    if chat_template not in ("auto", "none"):
        raise ValueError(f"chat_template must be auto or none, not {chat_template!r}")
    use_template = bool(chat_template == "auto" and getattr(tokenizer, "chat_template", None))
    role = _system_role(tokenizer) if use_template else None
    return use_template, instruction(spec.class_names, spec.task_description), role


def _messages(instr: str, query: str, role: str | None) -> list[dict]:
    """The instruction as the system message when the template has that role, else
    prepended to the user message (the author's `_dum.py`)."""
    if role is None:
        return [{"role": "user", "content": instr + query}]
    return [{"role": role, "content": instr}, {"role": "user", "content": query}]


def prompts(
    tokenizer, texts: Sequence[str], spec: DatasetSpec, chat_template: str
) -> tuple[str, list[str]]:
    """(instruction prefix, per-text remainder): prefix + remainder[i] is the full prompt
    for texts[i], ending in " ### Answer:" (`chat_template`: config
    tapt.training.zero_shot.chat_template)."""
    use_template, instr, role = _setup(tokenizer, spec, chat_template)
    full = []
    for text in texts:
        msgs = _messages(instr, f"{QUERY_TEMPLATE} {text[:NUM_CHARACTERS_MAX]}\n", role)
        msgs.append({"role": "assistant", "content": RESPONSE_TEMPLATE})
        full.append(_render(tokenizer, msgs, use_template))
    # The shared part: the common prefix of all prompts up to the first "### Text:".
    common = commonprefix(full) if len(full) > 1 else full[0]
    cut = common.find(QUERY_TEMPLATE)
    prefix = common[:cut] if cut >= 0 else common
    return prefix, [p[len(prefix) :] for p in full]


def packed_prompts(
    tokenizer,
    texts: Sequence[str],
    spec: DatasetSpec,
    per_sequence: int,
    chat_template: str,
) -> list[str]:
    """Pretraining sequences of the packing variant (`mistral-qlora-zero-shot-packing`):
    each consecutive group of `per_sequence` texts (the author's pretraining batch size, 8)
    becomes one sequence, the instruction followed by the group's "### Text: ..." blocks
    joined by blank lines, with no answer line. The author trains on these with batch size
    1 and max_seq_length 8192, so the adapter sees several texts of the task per step."""
    if per_sequence < 1:
        raise ValueError(f"per_sequence must be >= 1, not {per_sequence}")
    use_template, instr, role = _setup(tokenizer, spec, chat_template)
    out = []
    for start in range(0, len(texts), per_sequence):
        group = texts[start : start + per_sequence]
        query = "\n\n".join(f"{QUERY_TEMPLATE} {t[:NUM_CHARACTERS_MAX]}" for t in group)
        out.append(_render(tokenizer, _messages(instr, query, role), use_template))
    return out


def _lora_config(lora: Lora):
    from peft import LoraConfig, TaskType

    return LoraConfig(
        task_type=TaskType.CAUSAL_LM,
        r=lora.r,
        lora_alpha=lora.lora_alpha,
        lora_dropout=lora.lora_dropout,
        **LORA,
    )


def train_adapter(
    model_spec,
    prompt_texts: Sequence[str],
    *,
    settings: ZeroShot,
    epochs: float,
    batch_size: int,
    max_length: int,
    seed: int,
    device: str = "cpu",
    dtype: str | None = None,
    work_dir: str,
):
    """A freshly loaded base LM with a (Q)LoRA adapter trained on `prompt_texts` (learning
    rate, LoRA and quantisation: `settings`, config tapt.training.zero_shot; `max_length`:
    its `max_length`, or `packing_max_length` for packed sequences).

    Returns (peft model in eval mode, tokenizer, metrics)."""
    import torch
    from datasets import Dataset
    from peft import get_peft_model, prepare_model_for_kbit_training
    from transformers import DataCollatorForLanguageModeling, Trainer, set_seed

    from evalsci.lm.load import load_model

    spec = {**model_spec, "quantize": settings.quantize}
    model, tok = load_model(spec, device=device, dtype=dtype)
    torch.set_grad_enabled(True)  # load_model switches autograd off for inference
    four_bit = bool(getattr(model, "is_loaded_in_4bit", False))
    model.config.use_cache = False
    if four_bit:
        model.gradient_checkpointing_enable()
        model = prepare_model_for_kbit_training(model)
    set_seed(seed)
    model = get_peft_model(model, _lora_config(settings.lora))
    n_trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    tok.padding_side = "right"
    enc = tok(list(prompt_texts), truncation=True, max_length=max_length)
    ds = Dataset.from_dict({"input_ids": enc["input_ids"], "attention_mask": enc["attention_mask"]})
    cuda = str(device).startswith("cuda")
    bf16 = cuda and torch.cuda.is_bf16_supported()
    trainer = Trainer(
        model=model,
        args=training_args(
            work_dir,
            batch_size=batch_size,
            epochs=epochs,
            learning_rate=settings.learning_rate,
            seed=seed,
            device=device,
            optim="paged_adamw_8bit" if four_bit else "adamw_torch",
            bf16=bf16,
            logging_strategy="steps",
            logging_steps=1,
        ),
        train_dataset=ds,
        data_collator=DataCollatorForLanguageModeling(tok, mlm=False),
    )
    out = trainer.train()
    metrics = dict(out.metrics)
    # the loss of every optimiser step, in order (space-separated: one CSV cell)
    losses = [h["loss"] for h in trainer.state.log_history if "loss" in h]
    metrics.update(
        step_losses=" ".join(f"{x:.6g}" for x in losses),
        train_loss=float(out.training_loss),
        trainable_parameters=int(n_trainable),
        four_bit=four_bit,
        num_sequences=len(ds),
        num_tokens=int(sum(len(x) for x in ds["input_ids"])),
    )
    model.config.use_cache = True
    model.eval()
    torch.set_grad_enabled(False)
    return model, tok, metrics


def load_base(model_spec, *, quantize: str, device: str = "cpu", dtype: str | None = None):
    """The base LM for acc_base (no adapter), 4-bit on CUDA when quantize (config
    tapt.training.zero_shot.quantize) is auto; `dtype` None is the loader's default (float32
    on CPU, bf16 compute on CUDA)."""
    from evalsci.lm.load import load_model

    return load_model({**model_spec, "quantize": quantize}, device=device, dtype=dtype)


def predict_proba(
    model,
    tokenizer,
    prefix: str,
    remainders: Sequence[str],
    class_names: Sequence[str],
    *,
    batch_size: int = 16,
) -> np.ndarray:
    """(len(remainders), K): CAPPr-style class probabilities with the prefix cached."""
    import torch

    from evalsci.lm.scoring import Query, Scorer

    options = [" " + c for c in class_names]
    scorer = Scorer(
        model, tokenizer, option_tokens="span", max_rows=max(1, batch_size * len(options))
    )
    with torch.no_grad():
        cached = scorer.prefix(prefix)
        scores = scorer.score([Query(r, options) for r in remainders], cached)
    means = np.stack([s.means for s in scores])
    if not np.isfinite(means).all():
        raise RuntimeError("a class name got no scored tokens (empty completion?)")
    z = means - means.max(axis=1, keepdims=True)
    p = np.exp(z)
    return p / p.sum(axis=1, keepdims=True)
