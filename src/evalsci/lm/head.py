"""The model as body + float32 output head, and the KV-cache helpers (transformers 5.x
DynamicCache) the scorer builds its passes on."""

from __future__ import annotations

import numpy as np


def kv_layers(cache) -> list[tuple]:
    return [(layer.keys, layer.values) for layer in cache.layers]


def new_cache(model, kvs):
    """A DynamicCache holding `kvs` (tensors or views such as `expand`), laid out for
    `model`'s layers.

    Plain full-attention layers take the tensors as they are: the next forward pass
    concatenates the new keys onto them (one copy), so an expanded prefix is materialised
    once per batch instead of twice. Other layer types (sliding windows) go through their
    own `update`.
    """
    from transformers import DynamicCache
    from transformers.cache_utils import DynamicLayer

    cache = DynamicCache(config=model.config)
    kvs = list(kvs)
    if not kvs:
        return cache
    if len(cache.layers) != len(kvs):  # lazily built layer list
        return DynamicCache(ddp_cache_data=kvs, config=model.config)
    for layer, (k, v) in zip(cache.layers, kvs, strict=True):
        if type(layer) is DynamicLayer:
            layer.lazy_initialization(k, v)
            layer.keys, layer.values = k, v
        else:
            layer.update(k, v)
    return cache


# ---------------------------------------------------------------------------------------
# The model as body + output head
# ---------------------------------------------------------------------------------------
# Model types whose logits are exactly `lm_head(base_model(...).last_hidden_state)`: no
# soft-capping or scaling after the head. For these the head runs only at the positions
# whose next-token distribution is read, and in float32 whatever the model's dtype: a bf16
# logit of magnitude ~20 is rounded to 1/8, which alone moved cached and fresh scores of the
# same candidate by tenths of a nat (issue 15).
_SPLIT_HEAD_TYPES = frozenset(
    {"llama", "mistral", "gpt2", "gpt_neo", "gpt_neox", "opt", "olmo", "olmo2", "falcon", "qwen2"}
)
_LSE_ROWS = 256  # rows of float32 logits held at once (256 x 50k vocab = 50 MB)


class Head:
    """Runs the model and turns its output states into float32 log-probabilities.

    Split mode (`body` set): `run` returns final hidden states, the float32 head is applied
    here. Otherwise (other model types, custom heads): `run` asks the model itself for the
    logits of the selected positions (`logits_to_keep` as a boolean mask) and upcasts them.
    A PEFT model is unwrapped to its (adapter-injected) base model, so adapters still apply.
    The float32 copy of a bf16 head weight is taken once: score with a Scorer made after
    any training of the head.
    """

    def __init__(self, model):
        import torch

        self.model = model
        inner = model.get_base_model() if hasattr(model, "get_base_model") else model
        self.body = None
        cfg = getattr(inner, "config", None)
        if getattr(cfg, "model_type", None) in _SPLIT_HEAD_TYPES:
            head = inner.get_output_embeddings()
            body = getattr(inner, getattr(inner, "base_model_prefix", ""), None)
            if (
                type(head) is torch.nn.Linear
                and head.weight.is_floating_point()
                and isinstance(body, torch.nn.Module)
                and body is not inner
            ):
                self.body = body
                self.weight = head.weight.detach().float()
                self.bias = None if head.bias is None else head.bias.detach().float()

    @property
    def split(self) -> bool:
        return self.body is not None

    def run(self, input_ids, attention_mask, position_ids, cache, select):
        """One forward pass; returns (states of the positions where `select` [B, N] is
        True, in row-major order, and the cache)."""
        kw = dict(
            input_ids=input_ids,
            attention_mask=attention_mask,
            position_ids=position_ids,
            past_key_values=cache,
            use_cache=True,
        )
        if self.body is not None:
            out = self.body(**kw)
            return out.last_hidden_state[select], out.past_key_values
        out = self.model(**kw, logits_to_keep=select)
        logits = out.logits
        if logits.dim() == 3:  # a model that ignores logits_to_keep
            logits = logits[select] if logits.shape[1] == select.shape[1] else logits.flatten(0, 1)
        return logits, out.past_key_values

    def logits(self, states):
        """float32 logits of states (split mode) or the upcast logits themselves."""
        import torch

        if self.body is None:
            return states.float()
        return torch.nn.functional.linear(states.float(), self.weight, self.bias)

    def log_softmax(self, states):
        import torch

        return torch.log_softmax(self.logits(states), dim=-1)

    def target_lp(self, states, rows, targets) -> np.ndarray:
        """log p(targets[i] | state rows[i]) in float64, float32 arithmetic throughout.

        The normaliser is computed in chunks of rows (the full [rows, vocab] float32 logits
        are never held at once); the target logit is one dot product per read.
        """
        import torch

        if len(rows) == 0:
            return np.zeros(0)
        with torch.inference_mode():
            return self._target_lp(states, rows, targets)

    def _target_lp(self, states, rows, targets) -> np.ndarray:
        import torch

        rows = torch.as_tensor(rows, dtype=torch.long, device=states.device)
        targets = torch.as_tensor(targets, dtype=torch.long, device=states.device)
        lse = torch.cat(
            [
                torch.logsumexp(self.logits(states[s : s + _LSE_ROWS]), dim=-1)
                for s in range(0, states.shape[0], _LSE_ROWS)
            ]
        )
        if self.body is None:
            tgt = states[rows, targets].float()
        else:
            tgt = (states[rows].float() * self.weight[targets]).sum(-1)
            if self.bias is not None:
                tgt = tgt + self.bias[targets]
        return (tgt - lse[rows]).double().cpu().numpy()
