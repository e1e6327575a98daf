"""The tapt training path (paper 002, Sections 4, 8, 9) with tiny random models.

What is asserted is the paper's procedure: the registry matches the authors' released
results (25 tasks, their class counts), train is stratified with floor(m/K) rows per class,
extra/train/test are disjoint with n rows each, splits depend only on the subsample index
(shared across LMs), pretraining lowers the LM loss (and 2 epochs lower it further,
Section 8), the QLoRA adapter has the paper's 41,943,040 parameters on Mistral-7B, the
prompt is the paper's ag_news format, and a killed run resumes to the same accuracies.csv.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytestmark = pytest.mark.lm

torch = pytest.importorskip("torch")

from evalsci.data import hf_classification as hfc  # noqa: E402
from evalsci.studies.tapt.settings import Training, resolved_settings  # noqa: E402
from evalsci.studies.tapt.training import settings, splits  # noqa: E402
from evalsci.studies.tapt.training import shards as train_shards  # noqa: E402


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    """One torch thread: on a shared 2-core machine two threads spin-wait 10x slower."""
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


# Paper Table 2: number of classes of the 25 tasks.
TABLE2_CLASSES = {
    "ag_news": 4,
    "amazon_counterfactual_en": 2,
    "app_reviews": 5,
    "blog_authorship_corpus": 2,
    "clickbait_notclickbait_dataset": 2,
    "climate_fever": 4,
    "craigslist_bargains": 6,
    "disaster_response_messages": 3,
    "emo": 4,
    "emotion": 6,
    "enron_spam": 2,
    "financial_phrasebank": 3,
    "FRENK-hate-en": 2,
    "hyperpartisan_news_detection": 2,
    "limit": 2,
    "massive": 18,
    "movie_rationales": 2,
    "mtop_domain": 11,
    "patent-classification": 9,
    "rotten_tomatoes": 2,
    "silicone": 4,
    "trec": 6,
    "tweets_hate_speech_detection": 2,
    "yahoo_answers_topics": 10,
    "yelp_review_full": 5,
}


# ---------------------------------------------------------------------------------------
# Registry
# ---------------------------------------------------------------------------------------
def test_registry_matches_table2_and_released_results(mirror):
    assert set(hfc.PAPER_DATASETS) == set(TABLE2_CLASSES)
    for key, k in TABLE2_CLASSES.items():
        assert hfc.get_spec(key).num_classes == k, key
    # The released accuracies use the same directory names and record num_classes.
    root = mirror / "kddubey-pretrain-on-test/analysis/accuracies_from_paper/m50/n50/bert"
    assert {p.name for p in root.iterdir()} == set(TABLE2_CLASSES)
    for key in TABLE2_CLASSES:
        released = pd.read_csv(root / key / "accuracies.csv")["num_classes"].unique()
        assert released.tolist() == [hfc.get_spec(key).num_classes], key
    # hub names with owner resolve too
    assert hfc.get_spec("SetFit/enron_spam").key == "enron_spam"


def test_spec_file_errors_name_the_file_and_entry(tmp_path):
    """The table lives in `hf_classification.yaml`; a bad entry names the file and entry."""
    bad = tmp_path / "specs.yaml"
    bad.write_text(
        "- {key: a, hub: a, class_names: [x, y], task_description: t}\n"
        "- {key: b, hub: b, class_names: [x], task_description: t, trust_remote_code: true}\n"
    )
    with pytest.raises(hfc.ClassificationDataError, match=r"specs\.yaml: entry 1 \(b\)"):
        hfc.load_specs(bad)
    bad.write_text("- {key: a, hub: a, class_names: [x], task_description: t}\n" * 2)
    with pytest.raises(hfc.ClassificationDataError, match="duplicate key 'a'"):
        hfc.load_specs(bad)
    # `drop_long` is the author's < 1000-character filter; lists become tuples
    good = tmp_path / "good.yaml"
    good.write_text(
        "- {key: a, hub: a, class_names: [x, y], task_description: t, drop_long: true}\n"
    )
    (spec,) = hfc.load_specs(good).values()
    assert spec.max_chars == 1000 and spec.class_names == ("x", "y")


def test_processing_follows_the_authors_setup(tmp_path):
    app = pd.DataFrame({"review": ["bad", "ok", "great"], "star": [1, 3, 5], "x": 0})
    assert hfc.process(hfc.get_spec("app_reviews"), app)["label"].tolist() == [0, 2, 4]

    blog = pd.DataFrame(
        {"text": ["short", "x" * 1000, "also short"], "gender": ["male", "female", "female"]}
    )
    out = hfc.process(hfc.get_spec("blog_authorship_corpus"), blog)
    assert out["label"].tolist() == [1, 0] and out.index.tolist() == [0, 2]

    yahoo = pd.DataFrame(
        {"question_title": ["Why?"], "question_content": ["Because."], "topic": [3]}
    )
    assert hfc.process(hfc.get_spec("yahoo_answers_topics"), yahoo)["text"][0] == "Why?\nBecause."

    hyper = pd.DataFrame({"title": ["A headline", "", None], "hyperpartisan": [True, False, True]})
    out = hfc.process(hfc.get_spec("hyperpartisan_news_detection"), hyper)
    assert out["text"].tolist() == ["A headline"] and out["label"].tolist() == [1]
    assert hfc.get_spec("hyperpartisan_news_detection").config == "bypublisher"
    assert hfc.get_spec("silicone").config == "dyda_da"
    assert hfc.get_spec("climate_fever").split == "test"

    with pytest.raises(hfc.ClassificationDataError, match="outside 0..4"):
        hfc.process(hfc.get_spec("app_reviews"), app.assign(star=[1, 3, 6]))
    with pytest.raises(hfc.ClassificationDataError, match="missing columns"):
        hfc.process(hfc.get_spec("app_reviews"), app.drop(columns="star"))

    # local files go through `datasets` and the same processing
    path = tmp_path / "app.tsv"
    app.to_csv(path, sep="\t", index=False)
    local = hfc.load_frame("app_reviews", data_files=path)
    assert local["label"].tolist() == [0, 2, 4] and local["text"].tolist() == ["bad", "ok", "great"]


# ---------------------------------------------------------------------------------------
# Splits (Section 4)
# ---------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(0)
    labels = rng.choice(3, size=600, p=[0.6, 0.3, 0.1])
    return pd.DataFrame(
        {"text": [f"text {i}" for i in range(600)], "label": labels},
        index=pd.RangeIndex(1000, 1600, name="index_from_full_split"),
    )


def test_split_is_stratified_disjoint_and_seeded_by_subsample(frame):
    m, n = 20, 50
    s = splits.split(frame, m, n, i=1)
    assert s.random_state == 43  # the author's 42 + i
    # train: floor(20 / 3) = 6 rows of each class, 18 in all
    assert s.train["label"].value_counts().to_dict() == {0: 6, 1: 6, 2: 6}
    assert len(s.extra) == len(s.test) == n
    idx = [set(x.index) for x in (s.train, s.extra, s.test)]
    assert not (idx[0] & idx[1] or idx[0] & idx[2] or idx[1] & idx[2])
    assert all(ix <= set(frame.index) for ix in idx)
    # the same (m, n, i) gives the same split whatever runs it; another i gives another
    again = splits.split(frame.copy(), m, n, i=1)
    for a, b in zip(
        (s.train, s.extra, s.test), (again.train, again.extra, again.test), strict=True
    ):
        assert a.index.tolist() == b.index.tolist()
    other = splits.split(frame, m, n, i=2)
    assert other.test.index.tolist() != s.test.index.tolist()
    # test is not stratified: its class counts follow the data, not m/K
    assert s.test["label"].value_counts()[0] > s.test["label"].value_counts()[2]
    with pytest.raises(splits.SplitError):
        splits.split(frame, 2, n, i=1)  # m < K
    with pytest.raises(splits.SplitError):
        splits.split(frame, m, 400, i=1)  # not enough rows for 2n


def test_config_runs_and_hyperparameter_tables():
    cfg = _config({})
    cfg["datasets"] = ["sst2", "yahoo_answers_topics"]
    cfg["hyperparameters"]["bert"]["yahoo_answers_topics"] = {
        "batch_size_pretrain": 8,
        "epochs_train": 1,
    }
    t = Training.from_config(cfg)
    # the dataset's row over the table's default row, key by key
    hp = t.run_settings("bert", "yahoo_answers_topics").hyperparameters
    assert (hp.batch_size_pretrain, hp.batch_size_train, hp.batch_size_eval) == (8, 8, 8)
    assert hp.epochs_train == 1
    assert t.run_settings("bert", "sst2").hyperparameters.batch_size_pretrain == 8
    cfg.update(n=[50, 100, 200, 500], num_subsamples=[100, 100, 50, 20], m=[50, 100])
    t = Training.from_config(cfg)
    assert t.num_subsamples(200) == 50
    assert len(t.runs) == 2 * 4 * len(cfg["lms"]) * len(cfg["datasets"])
    with pytest.raises(KeyError, match="no run"):
        t.run_settings("zs", "sst2")  # an LM type the config does not run
    with pytest.raises(settings.TrainingConfigError, match="no LM type"):
        Training.from_config({**cfg, "lms": ["nope"]})


# ---------------------------------------------------------------------------------------
# Tiny models
# ---------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """Directories of a tiny BERT (MiniLM's tokenizer), GPT-2 and Llama, random weights."""
    from transformers import AutoTokenizer, BertConfig, BertForMaskedLM

    from evalsci.lm.load import tiny_model
    from evalsci.studies.tapt.training.models import minilm_dir

    root = tmp_path_factory.mktemp("tiny")
    tok = AutoTokenizer.from_pretrained(minilm_dir())
    torch.manual_seed(0)
    bert = BertForMaskedLM(
        BertConfig(
            vocab_size=tok.vocab_size,
            hidden_size=32,
            num_hidden_layers=2,
            num_attention_heads=2,
            intermediate_size=64,
            max_position_embeddings=128,
        )
    )
    bert.save_pretrained(root / "bert")
    tok.save_pretrained(root / "bert")
    for arch in ("gpt2", "llama"):
        model, t = tiny_model(arch, seed=0)
        model.save_pretrained(root / arch)
        t.save_pretrained(root / arch)
    return {k: str(root / k) for k in ("bert", "gpt2", "llama")}


def _config(models: dict) -> dict:
    """A resolved config `tapt.training` (the default preset's, with every schema default)
    with tiny models and small batches: one optimiser step per classifier and per
    pretraining run."""
    import copy

    from evalsci.settings import resolved

    hp = {
        "default": {
            "batch_size_pretrain": 8,
            "batch_size_train": 8,
            "batch_size_eval": 8,
            "epochs_train": 1,
        }
    }
    cfg = copy.deepcopy(resolved()["tapt"]["training"])
    cfg["classifier"]["max_length"] = 64
    return cfg | {
        "lms": ["bert", "gpt2"],
        "datasets": ["sst2"],
        "m": [8],
        "n": [8],
        "num_subsamples": 2,
        "device": "cpu",
        "lm_types": {
            "bert": {
                "model": models.get("bert", "x"),
                "method": "mlm",
                "pretrain_epochs": 1,
                "hyperparameters": "bert",
            },
            "gpt2": {
                "model": models.get("gpt2", "x"),
                "method": "clm",
                "pretrain_epochs": 1,
                "hyperparameters": "bert",
            },
            "zs": {
                "model": models.get("llama", "x"),
                "method": "zero-shot",
                "pretrain_epochs": 1,
                "hyperparameters": "bert",
            },
        },
        "hyperparameters": {"bert": hp},
    }


def _run_settings(cfg: dict, lm: str) -> settings.RunSettings:
    """The run settings of (lm, sst2), built as the workflow builds them, at parse time."""
    return Training.from_config({**cfg, "lms": [lm]}).run_settings(lm, "sst2")


@pytest.fixture(scope="module")
def sst2(mirror):
    return hfc.load_frame("sst2", glue_root=mirror / "glue")


@pytest.mark.parametrize("method", ["clm", "mlm"])
def test_pretraining_lowers_the_lm_loss(tiny, sst2, tmp_path, method):
    import dataclasses

    from evalsci.studies.tapt.training import models, pretrain

    path = tiny["gpt2" if method == "clm" else "bert"]
    tok = models.load_tokenizer(path)
    texts = sst2["text"].iloc[:16].tolist()
    pre = dataclasses.replace(resolved_settings().training.settings[0].pretrain, learning_rate=1e-3)
    before = pretrain.lm_loss(path, tok, texts, settings=pre, method=method)
    losses = {}
    for epochs in (1, 2):
        out = tmp_path / f"{method}{epochs}"
        metrics = pretrain.pretrain(
            path,
            tok,
            texts,
            str(out),
            settings=pre,
            method=method,
            epochs=epochs,
            batch_size=4,
            seed=0,
            work_dir=str(tmp_path),
        )
        assert np.isfinite(metrics["train_loss"])
        losses[epochs] = pretrain.lm_loss(str(out), tok, texts, settings=pre, method=method)
    # pretraining on the texts lowers their loss, and overtraining (Section 8) lowers it more
    assert losses[1] < before - 0.01
    assert losses[2] < losses[1]


def test_shards_schema_shared_splits_and_resume_after_interrupt(tiny, sst2, tmp_path, monkeypatch):
    from evalsci.studies.tapt.training import pretrain

    cfg = _config(tiny)
    s_gpt2 = _run_settings(cfg, "gpt2")
    ref = train_shards.run_subsamples(
        s_gpt2, sst2, m=8, n=8, subsamples=[1, 2], shard_dir=tmp_path / "ref", device="cpu"
    )
    train_shards.merge(ref, tmp_path / "ref_acc")

    # A kill in the middle of subsample 2 (while pretraining on test) leaves shard 1 done
    # and nothing of shard 2.
    real = pretrain.pretrain
    state = {"n": 0}

    def killed(*args, **kwargs):
        state["n"] += 1
        if state["n"] == 4:  # subsample 2: extra (3), then test (4)
            raise KeyboardInterrupt("killed")
        return real(*args, **kwargs)

    monkeypatch.setattr(pretrain, "pretrain", killed)
    shard_dir = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        train_shards.run_subsamples(
            s_gpt2, sst2, m=8, n=8, subsamples=[1, 2], shard_dir=shard_dir, device="cpu"
        )
    assert train_shards.ShardPaths.of(shard_dir, 1).done()
    assert sorted(p.name for p in shard_dir.iterdir()) == [
        "001.accuracies.csv",
        "001.metrics.csv",
        "001.predictions.csv.gz",
    ]
    monkeypatch.setattr(pretrain, "pretrain", real)

    done = []

    def counting(*args, **kwargs):
        done.append(kwargs["i"])
        return train_shards.run_shard(*args, **kwargs)

    shards = train_shards.run_subsamples(
        s_gpt2,
        sst2,
        m=8,
        n=8,
        subsamples=[1, 2],
        shard_dir=shard_dir,
        device="cpu",
        shard_fn=counting,
    )
    assert done == [2]  # only the missing shard is redone
    acc_path = train_shards.merge(shards, tmp_path / "acc")
    # identical to the uninterrupted run, byte for byte
    assert acc_path.read_bytes() == (tmp_path / "ref_acc" / "accuracies.csv").read_bytes()

    acc = pd.read_csv(acc_path)
    assert list(acc.columns) == ["base", "extra", "test", "majority", "num_classes", "majority_all"]
    assert len(acc) == 2
    assert ((acc[["base", "extra", "test", "majority"]] * 8) % 1 == 0).all().all()
    assert (acc["num_classes"] == 2).all()
    assert acc["majority_all"].iloc[0] == pytest.approx(
        sst2["label"].value_counts(normalize=True).max()
    )
    preds = pd.read_csv(tmp_path / "acc" / "predictions.csv.gz")
    probs = preds.filter(like="pred_prob_")
    assert probs.shape[1] == 2 * 3
    for method in ("base", "extra", "test"):
        p = preds[[f"pred_prob_0_{method}", f"pred_prob_1_{method}"]].to_numpy()
        assert np.allclose(p.sum(axis=1), 1, atol=1e-5)
        # accuracies.csv is the accuracy of these probabilities
        for i, grp in preds.groupby("subsample"):
            pg = grp[[f"pred_prob_0_{method}", f"pred_prob_1_{method}"]].to_numpy()
            assert acc[method].iloc[i - 1] == pytest.approx(
                np.mean(pg.argmax(1) == grp["label"].to_numpy())
            )
    # the majority column is the test split's majority rate
    for i, grp in preds.groupby("subsample"):
        assert acc["majority"].iloc[i - 1] == pytest.approx(
            grp["label"].value_counts(normalize=True).max()
        )

    # Another LM type (BERT, MLM) sees the same test texts for the same subsample.
    s_bert = _run_settings(cfg, "bert")
    bert = train_shards.run_subsamples(
        s_bert, sst2, m=8, n=8, subsamples=[1], shard_dir=tmp_path / "bert", device="cpu"
    )
    b = pd.read_csv(bert[0].predictions)
    g = preds[preds["subsample"] == 1]
    assert b["index_from_full_split"].tolist() == g["index_from_full_split"].tolist()
    met = pd.read_csv(bert[0].metrics)
    assert met["step"].tolist() == [
        "classifier_base",
        "pretrain_extra",
        "classifier_extra",
        "pretrain_test",
        "classifier_test",
    ]


# ---------------------------------------------------------------------------------------
# Zero-shot (Section 9)
# ---------------------------------------------------------------------------------------
def test_prompt_is_the_papers_ag_news_format():
    from evalsci.lm.load import tiny_tokenizer
    from evalsci.studies.tapt.training import zero_shot

    tok = tiny_tokenizer()  # no chat template: parts are concatenated
    spec = hfc.get_spec("ag_news")
    prefix, rest = zero_shot.prompts(tok, ["Bombardier CEO Quits", "Other news"], spec, "auto")
    assert prefix == (
        "Your task is to classify a given text as one of these categories:\n"
        "World\nSports\nBusiness\nSci/Tech\n\n"
        "The text is a news article. Answer with its topic.\n\n"
    )
    assert rest == [
        "### Text: Bombardier CEO Quits\n ### Answer:",
        "### Text: Other news\n ### Answer:",
    ]
    long_text = "z" * 1500  # texts are cut at 1000 characters
    assert zero_shot.prompts(tok, [long_text], spec, "auto")[1][0].count("z") == 1000


def test_packing_joins_eight_texts_under_one_instruction_without_answers():
    """Section 9 packing (kddubey/pretrain-on-test, `pack=True` zero-shot training): each consecutive batch of 8 texts becomes
    one sequence, the instruction then the "### Text:" blocks joined by blank lines."""
    from evalsci.lm.load import tiny_tokenizer
    from evalsci.studies.tapt.training import zero_shot

    tok = tiny_tokenizer()
    spec = hfc.get_spec("ag_news")
    texts = [f"news item {i}" for i in range(10)] + ["y" * 1500]
    packed = zero_shot.packed_prompts(tok, texts, spec, per_sequence=8, chat_template="auto")
    prefix, _ = zero_shot.prompts(tok, texts, spec, "auto")
    assert len(packed) == 2  # 11 texts: 8 + 3
    assert packed[0] == prefix + "\n\n".join(f"### Text: news item {i}" for i in range(8))
    assert packed[1].startswith(prefix + "### Text: news item 8\n\n### Text: news item 9")
    assert all("### Answer:" not in p for p in packed)
    assert packed[1].endswith("### Text: " + "y" * 1000)  # texts are still cut at 1000 chars
    with pytest.raises(ValueError, match="per_sequence"):
        zero_shot.packed_prompts(tok, texts, spec, per_sequence=0, chat_template="auto")


def test_packing_is_only_for_zero_shot():
    cfg = _config({})
    cfg["lm_types"]["bert"]["pack"] = True
    with pytest.raises(settings.TrainingConfigError, match=r"lm_types\.bert\.pack"):
        Training.from_config(cfg)


def test_qlora_adapter_has_the_papers_parameter_count():
    """Appendix H: the adapters add 41,943,040 trainable parameters to Mistral 7B (with the
    LoRA settings of the configuration's defaults)."""
    from peft import get_peft_model
    from transformers import MistralConfig, MistralForCausalLM

    from evalsci.studies.tapt.training import zero_shot

    cfg = MistralConfig(
        vocab_size=32768,
        hidden_size=4096,
        intermediate_size=14336,
        num_hidden_layers=32,
        num_attention_heads=32,
        num_key_value_heads=8,
    )
    with torch.device("meta"):
        model = MistralForCausalLM(cfg)
    lora = resolved_settings().training.settings[0].zero_shot.lora
    peft_model = get_peft_model(model, zero_shot._lora_config(lora))
    n = sum(p.numel() for p in peft_model.parameters() if p.requires_grad)
    assert n == 41_943_040


def test_class_probabilities_are_cappr_means_with_cached_prefix(tiny):
    from evalsci.lm.load import load_model
    from evalsci.studies.tapt.training import zero_shot

    model, tok = load_model({"checkpoint": tiny["llama"]}, device="cpu")
    spec = hfc.get_spec("sst2")
    prefix, rest = zero_shot.prompts(tok, ["a fine film", "dull and long"], spec, "auto")
    probs = zero_shot.predict_proba(model, tok, prefix, rest, spec.class_names)
    # reference: full sequences, mean log-prob of each " class name", normalised exp
    for row, r in zip(probs, rest, strict=True):
        means = []
        for c in spec.class_names:
            ctx = tok(prefix + r).input_ids
            full = tok(prefix + r + " " + c).input_ids
            assert full[: len(ctx)] == ctx
            with torch.no_grad():
                lp = torch.log_softmax(model(torch.tensor([full])).logits[0].float(), -1)
            means.append(np.mean([lp[j - 1, full[j]].item() for j in range(len(ctx), len(full))]))
        ref = np.exp(means) / np.exp(means).sum()
        assert np.allclose(row, ref, atol=1e-4)


@pytest.mark.slow
@pytest.mark.parametrize(("pack", "quantize"), [(False, "auto"), (True, "auto"), (False, "nf4")])
def test_zero_shot_shard(tiny, sst2, tmp_path, pack, quantize):
    """The zero-shot shard rule's path; quantize nf4 = QLoRA on a 4-bit base on CPU (the
    real model's QLoRA: tests/test_tapt_qlora.py)."""
    cfg = _config(tiny)
    cfg["lm_types"]["zs"]["pack"] = pack
    cfg["zero_shot"]["quantize"] = quantize
    s = _run_settings(cfg, "zs")
    shards = train_shards.run_subsamples(
        s, sst2, m=8, n=8, subsamples=[1], shard_dir=tmp_path, lm_models={}, device="cpu"
    )
    acc = pd.read_csv(shards[0].accuracies)
    a = acc[["base", "extra", "test"]].to_numpy()
    assert ((a >= 0) & (a <= 1)).all()
    preds = pd.read_csv(shards[0].predictions)
    assert not np.allclose(preds["pred_prob_0_base"], preds["pred_prob_0_extra"])
    met = pd.read_csv(shards[0].metrics)
    assert met["step"].tolist() == ["pretrain_extra", "pretrain_test"]
    # tiny Llama: r=16 on q,k,v,o,gate,up,down of 2 layers (hidden 64, kv 32, mlp 128)
    per_layer = 16 * ((64 + 64) * 2 + (64 + 32) * 2 + (64 + 128) * 3)
    assert (met["trainable_parameters"] == 2 * per_layer).all()
    # CPU: auto = LoRA on the full-precision base; nf4 = QLoRA on the 4-bit base
    assert (met["four_bit"] == (quantize == "nf4")).all()
    losses = met["step_losses"].astype(str).str.split()  # one step reads back as a float
    assert (losses.str.len() == 1).all()  # 8 prompts in one batch, or 1 packed sequence
    # n = 8 texts: 8 prompts of batch 8, or one packed sequence of all 8 (batch 1)
    assert (met["num_sequences"] == (1 if pack else 8)).all()
    assert (met["packed"] == pack).all()


# ---------------------------------------------------------------------------------------
# Workflow wiring (dry run: the DAG, not the training)
# ---------------------------------------------------------------------------------------
@pytest.mark.workflow
def test_recompute_dag_has_one_gpu_shard_per_subsample(tmp_path, mirror):
    from conftest import snakemake

    proc = snakemake(
        tmp_path,
        "-n",
        "--config",
        "recompute=True",
        "--",
        "results/tapt/recompute/manifest.csv",
        mirror=mirror,
    )
    out = proc.stdout + proc.stderr
    counts = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit():
            counts[parts[0]] = int(parts[1])
    # default config: 2 LM types x 1 dataset x 1 (m, n) x 3 subsamples
    assert counts["tapt_train_shard"] == 6
    assert counts["tapt_train_merge"] == 2
    assert counts["tapt_train_manifest"] == 1
    assert "gpu=1" in out  # shard jobs declare the GPU resource for the cluster profile


def test_the_workflow_names_the_shard_files_the_resumable_runner_writes():
    """The plan's shard files of a run (the workflow's shard rule outputs, the merge's inputs)
    are the files `run_subsamples` writes and finds done after a kill (ShardPaths.of), one
    per subsample, 1-based and 3 digits wide, in subsample order."""
    from pathlib import Path

    from evalsci.studies.tapt.plan import plan
    from evalsci.studies.tapt.settings import resolved_settings

    s = resolved_settings(training={"n": [32, 64], "num_subsamples": [2, 11]})
    p = plan(s)
    for n, count in ((32, 2), (64, 11)):
        files = p.shard_files(16, n, "bert", "sst2")
        assert [len(v) for v in files.values()] == [count] * 3
        for i in range(1, count + 1):
            want = train_shards.ShardPaths.of(Path(files["accuracies"][0]).parent, i)
            got = [files[k][i - 1] for k in ("accuracies", "predictions", "metrics")]
            assert got == [str(want.accuracies), str(want.predictions), str(want.metrics)]
        assert files["accuracies"][-1].endswith(f"/m16/n{n}/bert/sst2/{count:03d}.accuracies.csv")


@pytest.mark.parametrize("cpu_dtype", ["float32", "bfloat16"])
def test_training_loads_models_in_config_lm_cpu_dtype(tiny, sst2, tmp_path, monkeypatch, cpu_dtype):
    """config lm.cpu_dtype reaches the classifier and the MLM/CLM pretraining on CPU (it
    was hard-coded float32); float32 stays the default, so default outputs do not change."""
    from evalsci.studies.tapt.training import classify

    seen = {}

    class Stop(Exception):
        pass

    def record(*args, **kwargs):
        seen.update(kwargs)
        raise Stop

    monkeypatch.setattr(classify, "train_classifier", record)
    s = _run_settings(_config(tiny), "gpt2")
    paths = train_shards.ShardPaths.of(tmp_path, 1)
    with pytest.raises(Stop):
        train_shards.run_shard(
            s, sst2, m=8, n=8, i=1, paths=paths, device="cpu", cpu_dtype=cpu_dtype
        )
    assert seen["dtype"] == cpu_dtype and seen["device"] == "cpu"


def test_a_models_own_dtype_wins_over_lm_cpu_dtype(tiny, sst2, tmp_path, monkeypatch):
    """config lm.models.<name>.dtype overrides lm.cpu_dtype, as for inference."""
    from evalsci.studies.tapt.training import classify

    seen = {}

    class Stop(Exception):
        pass

    def record(*args, **kwargs):
        seen.update(kwargs)
        raise Stop

    monkeypatch.setattr(classify, "train_classifier", record)
    s = _run_settings(_config(tiny), "gpt2")
    own = {s.lm_type.model: {"checkpoint": s.lm_type.model, "dtype": "bfloat16"}}
    with pytest.raises(Stop):
        train_shards.run_shard(
            s,
            sst2,
            m=8,
            n=8,
            i=1,
            paths=train_shards.ShardPaths.of(tmp_path, 1),
            lm_models=own,
            device="cpu",
            cpu_dtype="float32",
        )
    assert seen["dtype"] == "bfloat16"
