"""A model's own name inside the strings results files give for it.

lm-eval records its `--model_args` (`pretrained=EleutherAI/pythia-160m,revision=step93000,...`)
where other harnesses have a model name: the name is the value of one of NAME_KEYS, the rest are
settings. The terminal table shortens models with it, the Every Eval Ever writer files them by
it (`developer/model`).
"""

from __future__ import annotations

#: argument names that carry the model's own name (lm-eval model_args)
NAME_KEYS = ("pretrained", "model", "model_name", "model_id", "path", "peft")


def model_parts(model: str) -> tuple[str, list[str]]:
    """(the model's own name, the other key=value arguments) of one model string."""
    if "=" not in model:
        return model, []
    args = [a for a in model.split(",") if a]
    named = [a.split("=", 1)[1] for a in args if a.split("=", 1)[0] in NAME_KEYS]
    rest = [a for a in args if a.split("=", 1)[0] not in NAME_KEYS]
    return (named[0] if named else model), rest
