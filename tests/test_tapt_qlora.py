"""QLoRA on the real embedded model, on CPU (paper 002 Section 9, Appendix H): SmolLM2-135M
loaded in bitsandbytes NF4 with double quantisation, a LoRA adapter (r 16, alpha 32, dropout
0.05, every linear layer) trained with paged 8-bit AdamW through the tapt zero-shot trainer
(`zero_shot.train_adapter`, what rule tapt_zero_shot_shard runs with `quantize: nf4`).

What QLoRA means, checked: the loss falls; the base stays 4-bit (210 `Linear4bit` layers whose
packed uint8 weights are bit-identical to a fresh NF4 load) and frozen, so only the LoRA
matrices train and change; the adapter saved and loaded onto a fresh NF4 base gives identical
logits. Kept cheap for CI: 4 prompts of at most 48 tokens, 3 optimiser steps.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("bitsandbytes")
pytest.importorskip("peft")

pytestmark = [pytest.mark.lm, pytest.mark.slow]

TEXTS = [
    "a gripping, beautifully acted film",
    "dull, overlong and badly written",
    "the best thing I have seen this year",
    "I walked out after twenty minutes",
]
BASE_PREFIX = "base_model.model."


def _linear4bit(model) -> dict:
    import bitsandbytes as bnb

    return {
        name.removeprefix(BASE_PREFIX).replace(".base_layer", ""): mod
        for name, mod in model.named_modules()
        if isinstance(mod, bnb.nn.Linear4bit)
    }


@pytest.fixture(scope="module")
def qlora(smollm2_checkpoint, tmp_path_factory):
    from evalsci.data import hf_classification as hfc
    from evalsci.lm.load import load_model
    from evalsci.studies.tapt.settings import resolved_settings
    from evalsci.studies.tapt.training import zero_shot

    torch.set_num_threads(1)  # two threads on a shared 2-core machine spin-wait
    spec = {"checkpoint": str(smollm2_checkpoint)}
    reference, tok = load_model({**spec, "quantize": "nf4"}, device="cpu")
    ref_state = {k: v.detach().clone() for k, v in reference.state_dict().items()}
    ref_4bit = {k: m.weight.detach().clone() for k, m in _linear4bit(reference).items()}
    del reference
    s = hfc.get_spec("sst2")
    prefix, rest = zero_shot.prompts(tok, TEXTS, s, chat_template="none")
    zs = resolved_settings(training={"zero_shot": {"quantize": "nf4"}}).training.settings[0]
    model, tok, metrics = zero_shot.train_adapter(
        spec,
        [prefix + r for r in rest],
        settings=zs.zero_shot,
        epochs=3,  # one batch of 4: three steps on the same prompts
        batch_size=4,
        max_length=48,
        seed=42,
        device="cpu",
        work_dir=str(tmp_path_factory.mktemp("qlora")),
    )
    return {
        "spec": spec,
        "model": model,
        "tok": tok,
        "metrics": metrics,
        "ref_state": ref_state,
        "ref_4bit": ref_4bit,
        "probe": tok([prefix + rest[0]], return_tensors="pt"),
    }


def test_loss_falls_over_the_qlora_steps(qlora):
    m = qlora["metrics"]
    assert m["four_bit"] is True
    losses = [float(x) for x in m["step_losses"].split()]
    assert len(losses) == 3
    assert all(b < a for a, b in zip(losses[:-1], losses[1:], strict=True)), losses


def test_base_stays_4bit_and_only_lora_trains(qlora):
    model, ref_state = qlora["model"], qlora["ref_state"]
    layers = _linear4bit(model)
    # SmolLM2: 30 layers x (q, k, v, o, gate, up, down); lm_head (tied) stays unquantised
    assert len(layers) == 210 and set(layers) == set(qlora["ref_4bit"])
    for name, mod in layers.items():
        w = mod.weight
        assert w.dtype == torch.uint8 and not w.requires_grad, name
        assert torch.equal(w, qlora["ref_4bit"][name]), f"{name}: packed NF4 weights changed"
    trainable = {n for n, p in model.named_parameters() if p.requires_grad}
    assert trainable and all(".lora_A." in n or ".lora_B." in n for n in trainable)
    assert len(trainable) == 2 * 210  # A and B of every linear layer
    assert (
        sum(p.numel() for n, p in model.named_parameters() if n in trainable)
        == (qlora["metrics"]["trainable_parameters"])
    )
    # LoRA B starts at zero (peft): after training every B has moved
    for n, p in model.named_parameters():
        if ".lora_B." in n:
            assert p.abs().max() > 0, n
    # every non-LoRA tensor (norms, embeddings, quantisation state) is exactly as loaded
    state = {
        k.removeprefix(BASE_PREFIX).replace(".base_layer", ""): v
        for k, v in model.state_dict().items()
        if "lora_" not in k
    }
    assert set(state) == set(ref_state)
    changed = [
        k for k, v in state.items() if not torch.equal(v.to(ref_state[k].dtype), ref_state[k])
    ]
    assert not changed, changed[:5]


def test_adapter_saved_and_reloaded_gives_identical_logits(qlora, tmp_path):
    from peft import PeftModel

    from evalsci.lm.load import load_model

    model = qlora["model"]
    model.save_pretrained(tmp_path / "adapter")
    base, _ = load_model({**qlora["spec"], "quantize": "nf4"}, device="cpu")
    reloaded = PeftModel.from_pretrained(base, tmp_path / "adapter").eval()
    with torch.no_grad():
        a = model(**qlora["probe"]).logits
        b = reloaded(**qlora["probe"]).logits
    assert torch.equal(a, b)
    with torch.no_grad(), reloaded.disable_adapter():
        c = reloaded(**qlora["probe"]).logits
    assert not torch.allclose(a, c)  # the adapter matters: without it the logits differ
