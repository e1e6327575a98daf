"""The settings of one tapt recompute run (evalsci.studies.tapt.training.settings.RunSettings):
built and checked once, while the configuration is parsed, from the resolved `tapt.training`;
they carry the author's hyperparameters (paper 002, Appendix: "experiment.sh lists
hyperparameters used for each classification task"), and a bad key fails at parse time
naming it. No torch needed."""

from __future__ import annotations

import dataclasses

import pytest

from evalsci.studies.tapt.settings import resolved_settings
from evalsci.studies.tapt.training.settings import RunSettings, TrainingConfigError

# The author's cloud_scripts/.../experiment.sh (kddubey/pretrain-on-test), typed in from its
# blocks: (pretraining batch size, classifier batch size, eval batch size, classifier epochs)
# per LM and dataset group, and each LM's pretraining epochs (run.py's default 2; the GPT-2
# blocks pass --num_train_epochs_pretrain 1).
EXPERIMENT_SH = {
    ("bert", "yahoo_answers_topics"): (8, 16, 64, 1),
    ("bert", "enron_spam"): (8, 4, 32, 1),
    ("bert", "FRENK-hate-en"): (8, 8, 32, 1),
    ("bert", "ag_news"): (16, 16, 64, 3),
    ("bert", "trec"): (16, 16, 64, 3),
    ("gpt2", "yahoo_answers_topics"): (8, 4, 16, 1),
    ("gpt2", "blog_authorship_corpus"): (8, 4, 32, 1),
    ("gpt2", "FRENK-hate-en"): (8, 8, 32, 1),
    ("gpt2", "app_reviews"): (16, 8, 64, 3),
    ("gpt2", "rotten_tomatoes"): (16, 16, 64, 3),
}
PRETRAIN_EPOCHS = {"bert": 2, "gpt2": 1}
MODELS = {"bert": "bert-base-uncased", "gpt2": "gpt2"}  # run.py's LM configs


@pytest.fixture(scope="module")
def paper():
    return resolved_settings(scale="paper").training


@pytest.mark.parametrize(("lm", "dataset"), sorted(EXPERIMENT_SH))
def test_paper_run_settings_carry_the_authors_hyperparameters(paper, lm, dataset):
    s = paper.run_settings(lm, dataset)
    assert isinstance(s, RunSettings)
    hp = s.hyperparameters
    got = (hp.batch_size_pretrain, hp.batch_size_train, hp.batch_size_eval, hp.epochs_train)
    assert got == EXPERIMENT_SH[lm, dataset]
    assert (s.lm, s.dataset, s.lm_type.model) == (lm, dataset, MODELS[lm])
    assert s.lm_type.pretrain_epochs == PRETRAIN_EPOCHS[lm]
    assert s.lm_type.method == {"bert": "mlm", "gpt2": "clm"}[lm] and not s.lm_type.pack
    # Section 4.1: the author's pretrain.py (lr 1e-4, 256 tokens, 15% masked) and the HF
    # Trainer's AdamW defaults for the classifier (lr 5e-5; weight decay 0.01 as the author)
    assert dataclasses.astuple(s.pretrain) == (1e-4, 256, 0.15)
    assert (s.classifier.learning_rate, s.classifier.weight_decay) == (5e-5, 0.01)
    assert (s.seed, s.split_seed) == (42, 42)  # random_state 42 + i (the author's)


def test_every_run_of_the_paper_grid_has_its_settings(paper):
    """One RunSettings per (LM type, dataset), built at parse time: 2 x 25."""
    assert len(paper.settings) == 2 * 25
    assert {(s.lm, s.dataset) for s in paper.settings} == {
        (lm, d) for lm in paper.lms for d in paper.datasets
    }


def test_zero_shot_runs_of_section_9():
    """Appendix H: QLoRA on Mistral-7B, r 16, alpha 32, dropout 0.05, one epoch; the packing
    variant packs 8 texts (its pretraining batch size) into one 8192-token sequence."""
    t = resolved_settings(scale="paper_zero_shot").training
    plain = t.run_settings("mistral-qlora-zero-shot", "ag_news")
    packed = t.run_settings("mistral-qlora-zero-shot-packing", "ag_news")
    for s in (plain, packed):
        assert s.lm_type.zero_shot and s.lm_type.model == "Mistral-7B-v0.3"
        assert s.lm_type.pretrain_epochs == 1
        assert dataclasses.astuple(s.zero_shot.lora) == (16, 32, 0.05)
        assert s.zero_shot.learning_rate == 2e-4
    assert (plain.lm_type.pack, packed.lm_type.pack) == (False, True)
    assert packed.hyperparameters.batch_size_pretrain == 8
    assert packed.zero_shot.packing_max_length == 8192


def test_snakemake_records_the_run_settings_param():
    """The shard rules pass a run's settings as a param: Snakemake stores a param's repr only
    for builtin types (else it drops it without a word), so a RunSettings must be one for a
    change of its values to rerun the run's shards."""
    from snakemake.persistence import PersistenceBase

    def recorded(value):  # the serializer of Snakemake's params record (no instance state)
        return PersistenceBase._serialize_param_builtin(None, value)

    s = resolved_settings().training.run_settings("bert", "sst2")
    changed = s._replace(hyperparameters=dataclasses.replace(s.hyperparameters, batch_size_train=4))
    assert isinstance(recorded(s), str) and isinstance(recorded(changed), str)
    assert recorded(s) != recorded(changed)
    assert recorded(s) == recorded(resolved_settings().training.run_settings("bert", "sst2"))


@pytest.mark.parametrize(
    ("training", "key", "needle"),
    [
        (
            {"lm_types": {"bert": {"hyperparameters": "no_table"}}},
            "tapt.training.lm_types.bert.hyperparameters",
            "no table 'no_table'",
        ),
        (
            {"hyperparameters": {"bert": {"default": {"batch_size_train": 4}}}},
            "tapt.training.hyperparameters.bert",
            "sst2 lacks ['batch_size_pretrain', 'batch_size_eval', 'epochs_train']",
        ),
        ({"lm_types": {"bert": {"pack": True}}}, "tapt.training.lm_types.bert.pack", "zero-shot"),
        ({"lms": ["nolm"]}, "tapt.training.lm_types", "no LM type 'nolm'"),
        (
            {"n": [32, 64], "num_subsamples": [2]},
            "tapt.training.num_subsamples",
            "1 values for 2 n values",
        ),
    ],
)
def test_a_bad_key_fails_when_the_settings_are_built(training, key, needle):
    """At parse time (TaptSettings.of, which the workflow runs while it is read), not in a
    shard job, with the key named."""
    with pytest.raises(TrainingConfigError) as e:
        resolved_settings(training=training)
    assert f"config {key} " in str(e.value) and needle in str(e.value)
