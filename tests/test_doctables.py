"""Generated doc tables (evalsci.pipeline.doctables, rule docs_tables): every block has its place in its
doc, and a doc's block is what the result files give."""

from __future__ import annotations

import pytest
import yaml

from evalsci.pipeline import doctables
from evalsci.studies.assessors import doc_blocks as assessors_doc_blocks

from conftest import REPO

BLOCKS = doctables.blocks()


@pytest.mark.parametrize("name", sorted(BLOCKS))
def test_block_has_markers_once_in_its_doc(name):
    b = BLOCKS[name]
    text = (REPO / b.doc).read_text()
    start, end = b.markers()
    assert text.count(start) == 1 and text.count(end) == 1, f"{b.doc}: markers of {name}"
    assert text.index(start) < text.index(end)


@pytest.mark.parametrize("name", sorted(BLOCKS))
def test_doc_block_is_what_the_results_give(name):
    """Against the results of this checkout's own runs, where they exist (a developer's
    tree after `snakemake`); CI checks the baselines block from a real run instead
    (tests/test_baselines_study_workflow.py)."""
    b = BLOCKS[name]
    # a recorded run's block needs its record too (the default DAG writes none)
    missing = [i for i in b.reads if not (REPO / i).is_file()]
    if missing:
        pytest.skip(f"results not built in this checkout: {missing[0]}")
    assert doctables.current(b, REPO) == doctables.render(b, REPO), (
        f"{b.doc} is stale: run snakemake docs_tables"
    )


def test_write_replaces_only_the_block_and_names_missing_markers(tmp_path):
    doc = tmp_path / "docs" / "x.md"
    doc.parent.mkdir()
    doc.write_text("intro\n<!-- generated:t:start -->\nold\n<!-- generated:t:end -->\nrest\n")
    b = doctables.Block("t", "docs/x.md", {}, lambda paths: "")
    assert doctables.write(b, "| a |\n", tmp_path)
    assert doc.read_text() == (
        "intro\n<!-- generated:t:start -->\n| a |\n<!-- generated:t:end -->\nrest\n"
    )
    assert not doctables.write(b, "| a |\n", tmp_path)  # unchanged: not rewritten
    other = doctables.Block("u", "docs/x.md", {}, lambda paths: "")
    with pytest.raises(ValueError, match="markers of doc block 'u'"):
        doctables.current(other, tmp_path)


def test_render_names_a_missing_result_file(tmp_path):
    b = BLOCKS["baselines_claims"]
    with pytest.raises(FileNotFoundError, match="claims.csv"):
        doctables.render(b, tmp_path)


def test_rule_renders_only_blocks_of_enabled_studies_and_collections():
    every = doctables.buildable(
        ["baselines", "tapt", "assessors"], ["cfi_ground_truth", "predictaboard"]
    )
    assert {"baselines_claims", "tapt_beta_posteriors", "assessors_table3"} <= set(every)
    fewer = doctables.buildable(["baselines", "assessors"], ["cfi_ground_truth"])
    assert "tapt_beta_posteriors" not in fewer
    assert "assessors_figure2_cfi_ground_truth" in fewer
    assert "assessors_figure2_predictaboard" not in fewer and "assessors_nref" not in fewer
    # baselines Table 2 exists only from our own inference
    assert "baselines_table2" not in every
    assert "baselines_table2" in doctables.buildable(["baselines"], [], ["baselines"])


def _write(root, rel, df):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(path, index=False)


def test_tapt_comparisons_render_the_ledgers_rows(tmp_path):
    """Meta-analysis, recovery and PCA are the claims ledger's rows (one rule: judge*), so a
    recorded run's block and the default ledger judge alike."""
    import pandas as pd

    _write(
        tmp_path,
        "results/tapt/tables/meta_analysis.csv",
        pd.DataFrame(
            {"config": ["m100_n500"], "threshold": [0.04], "p_outside": [0.25], "n_slices": [100]}
        ),
    )
    _write(
        tmp_path,
        "results/tapt/tables/recovery.csv",
        pd.DataFrame({"beta_true": [0.0], "mean": [0.01], "hdi_5.5": [-0.02], "hdi_94.5": [0.03]}),
    )
    _write(
        tmp_path,
        "results/tapt/tables/pca.csv",
        pd.DataFrame(
            dict(
                effective_rank=[5, 20, 5, 20],
                n=[25, 25, 500, 500],
                bias_mean=[0.001, 0.2, 0.0, 0.01],
                bias_se=[0.01, 0.01, 0.01, 0.01],
            )
        ),
    )
    text = doctables.render(BLOCKS["tapt_comparisons"], tmp_path)
    rows = {r.split(" | ")[0].lstrip("| "): r.split(" | ") for r in text.splitlines()[2:]}
    # binomial SEs: sqrt(.25 .75 / 100) = 0.043, sqrt(.47 .53 / 500) = 0.022; |0.25 - 0.47| =
    # 0.22 > 0.005 + 2 x 0.049
    assert rows["s10-m100-n500"][3] == "0.25 (100 slices)"
    assert rows["s10-m100-n500"][-1].rstrip(" |") == "differs_unexplained"
    # recovery: 0 inside [-0.02, 0.03]
    assert rows["e1-recovery-null"][-1].rstrip(" |") == "within_noise"
    # PCA: n = 25 z = 14, n = 500 z = 0.71 (Holm over both: not shown, not contradicted)
    assert "n = 25: +0.199 ± 0.014; n = 500: +0.010 ± 0.014" in rows["g-pca"][3]
    assert rows["g-pca"][-1].rstrip(" |") == "within_noise"


def test_assessors_findings_tests_against_half_and_decides_no_verdict(tmp_path):
    """Test AUCs against 0.5 (Holm over the collection's split x method tests), paired
    differences with their SEs and stability; no verdict on the paper's claims (the claims
    ledger judges them, issue 42)."""
    import pandas as pd
    from scipy.stats import norm

    z = norm.isf(0.025)
    # (auc, se, diff to generic, se of the diff, stability)
    methods = {
        "random": dict(
            generic=(0.60, 0.02, 0.0, 0.0, 0.4),
            specific=(0.66, 0.02, 0.06, 0.02, float("nan")),
            all_train=(0.64, 0.02, 0.04, 0.03, 1.0),
            reference_only=(0.63, 0.02, 0.03, 0.02, 0.5),
            random_selector=(0.62, 0.02, 0.02, 0.02, 0.3),
        ),
        "ood_x": dict(
            generic=(0.56, 0.02, 0.0, 0.0, 0.2),
            specific=(0.45, 0.02, -0.11, 0.03, float("nan")),
            all_train=(0.50, 0.02, -0.06, 0.03, 1.0),
            reference_only=(0.51, 0.02, -0.05, 0.03, 0.9),
            random_selector=(0.53, 0.02, -0.03, 0.03, 0.6),
        ),
    }
    for c in assessors_doc_blocks.COLLECTIONS:
        rows = [
            dict(
                split=s,
                method=m,
                n_llms=4,
                auc_mean=a,
                se=se,
                ci_low=a - z * se,
                ci_high=a + z * se,
                p_above_half=norm.sf((a - 0.5) / se),
                diff_vs_generic=d,
                se_diff_vs_generic=sd,
                z=z,
                stability=st,
                within_noise=st < 0.5,
            )
            for s, ms in methods.items()
            for m, (a, se, d, sd, st) in ms.items()
        ]
        _write(tmp_path, f"results/assessors/{c}/tables/figure2_summary.csv", pd.DataFrame(rows))
    t3 = [
        dict(
            collection=c,
            split=s,
            features="similarity",
            selector=sel,
            classifier="xgboost",
            val_auc_mean=v,
            max_random_val_auc=0.56,
            stability=st,
        )
        for c in assessors_doc_blocks.COLLECTIONS
        for s, sel, v, st in (
            ("random", "random", 0.60, 0.4),
            ("ood_x", "clustering_irt", 0.58, 0.7),
        )
    ]
    _write(tmp_path, "results/assessors/tables/table3.csv", pd.DataFrame(t3))
    text = doctables.render(BLOCKS["assessors_findings"], tmp_path)
    row = {
        r.split(" | ")[0].lstrip("| "): r.split(" | ")[1]
        for r in text.splitlines()[2:]
        if r.startswith("| ")
    }
    key = next(k for k in row if k.startswith("out of distribution: (split, method) test AUCs"))
    # ood_x: generic 0.56 (z = 3, p 0.0013) and random selector 0.53 (z = 1.5, p 0.067);
    # Holm over the 10 tests: 0.0013 x k stays < 0.05, 0.067 does not
    assert row[key] == "1 of 5; generic assessor 1 of 1"
    assert row["Table 3 winners within noise (stability below 0.5)"] == "1 of 2"
    assert row[
        "in distribution: generic minus specific / all train / reference only (paired ± SE)"
    ] == ("-0.060 ± 0.020 / -0.040 ± 0.030 / -0.030 ± 0.020")
    # the rows that decided a verdict by themselves are gone: the ledger carries them
    assert not any(
        k.startswith(("non-reproductions", "random selector within", "out of distribution: splits"))
        for k in row
    )
    assert "The paper (" not in text


@pytest.mark.parametrize("name", sorted(BLOCKS))
def test_block_function_is_its_studys_and_imports(name):
    """Each study owns its blocks: the registry names a function of the study's own
    doc_blocks module (the audit's package is evalsci.audit, `evalsci reference`'s
    evalsci.assess), and it imports. The README's claims summary, over every study's ledger,
    is evalsci.claims.render's."""
    b = BLOCKS[name]
    owners = {
        "audit": "evalsci.audit.doc_blocks.",
        "claims": "evalsci.claims.render.",
        "reference": "evalsci.assess.doc_blocks.",
    }
    study = next(
        s for s in ("baselines", "tapt", "assessors", "mc_icl", *owners) if name.startswith(s)
    )
    owner = owners.get(study, f"evalsci.studies.{study}.doc_blocks.")
    assert b.function.startswith(owner), b.function
    assert callable(b.renderer())


def test_the_audit_blocks_show_the_commands_of_the_files_they_read():
    from evalsci.audit import doc_blocks

    pythia = dict(zip(("zero_shot", "five_shot"), doc_blocks.FILES, strict=True))
    for name in ("audit_worked_example", "audit_verdicts", "audit_quickstart"):
        inputs = dict(BLOCKS[name].inputs)
        assert inputs.pop("helm_run_spec", f"{doc_blocks.HELM_RUN}/run_spec.json") == (
            f"{doc_blocks.HELM_RUN}/run_spec.json"
        )
        assert inputs.items() <= pythia.items(), name


def test_a_block_names_its_inputs():
    """Each input has a name (its function looks it up by name): a list of files is refused,
    naming the entry."""
    from evalsci.pipeline import doctables as d

    entry = {"name": "x", "doc": "docs/x.md", "inputs": ["a.csv"], "render": "m.f"}
    with pytest.raises(ValueError, match=r"entry 1 \(x\): 'inputs' is a mapping"):
        d._parse({"blocks": [entry]})


def test_an_input_is_a_file_of_an_artefact_whose_path_the_registry_owns():
    """An input names an artefact of the registry and one of its files; the path is the
    registry's (issue 33: no path spelled twice). A result path spelled in the entry is refused
    with the name to use instead; so are an unknown artefact, a file it does not list and a name
    two of its files end in."""
    from evalsci.pipeline import artefacts
    from evalsci.pipeline import doctables as d

    def parse(ref):
        entry = {"name": "x", "doc": "docs/x.md", "inputs": {"t": ref}, "render": "m.f"}
        return d._parse({"blocks": [entry]})[0].inputs["t"]

    (table1_csv,) = [f for f in artefacts.get("baselines.table1").outputs if f.endswith(".csv")]
    assert parse("baselines.table1/table1.csv") == table1_csv
    with pytest.raises(ValueError, match=r"registry lists it as baselines\.table1/table1\.csv"):
        parse(table1_csv)
    with pytest.raises(ValueError, match="no artefact 'baselines.table99'"):
        parse("baselines.table99/table99.csv")
    with pytest.raises(ValueError, match="lists no file"):
        parse("baselines.table1/table3.csv")
    # assessors' per-collection files share their names: the path's last parts tell them apart
    with pytest.raises(ValueError, match="lists 2 file"):
        parse("assessors.figure2_data/figure2_summary.csv")
    one = parse("assessors.figure2_data/predictaboard/tables/figure2_summary.csv")
    assert one in artefacts.get("assessors.figure2_data").outputs and "predictaboard" in one
    # a checked-in fixture keeps its path in the repository
    assert parse("tests/fixtures/x.json") == "tests/fixtures/x.json"
    # every registered block reads registry files (or fixtures), never a spelled result path
    raw = yaml.safe_load((REPO / "src/evalsci/pipeline/doc_blocks.yaml").read_text())
    refs = [r for e in raw["blocks"] for r in (e.get("inputs") or {}).values()]
    assert refs and not [r for r in refs if r.startswith("results/")]


@pytest.mark.parametrize("name", sorted(n for n, b in BLOCKS.items() if b.record))
def test_a_recorded_runs_block_states_its_run(name):
    """A block from one recorded run (the tapt paper-scale blocks) opens with that run's
    record: its commit (one of this repository's), command, scale and exit status."""
    import re
    import subprocess

    b = BLOCKS[name]
    text = doctables.current(b, REPO)
    m = re.match(r"From the run: commit `([0-9a-f]{7})`", text)
    assert m, f"{b.doc}: block {name} does not state its run: {text[:200]!r}"
    assert "(exit status 0)" in text.split("\n")[0]
    if b.scale:  # a workflow run at a scale (a script's run, e.g. reference_lomo_rank, has none)
        assert f"scale `{b.scale}`" in text
        # in the command, or none named there for the default scale (the leaderboard LOMO run);
        # the run's command first (a resumed run's record names the resumed command after it)
        cmd = [c for c in text.split("\n")[0].split("`") if "snakemake" in c][0]
        assert f"scale: {b.scale}" in cmd or (b.scale == "default" and "scale" not in cmd), cmd
    git = ["git", "-C", str(REPO)]
    shallow = subprocess.run([*git, "rev-parse", "--is-shallow-repository"], capture_output=True)
    if shallow.returncode != 0 or shallow.stdout.strip() != b"false":
        pytest.skip("not a full git clone: the run's commit cannot be looked up")
    known = subprocess.run([*git, "cat-file", "-e", f"{m.group(1)}^{{commit}}"], check=False)
    assert known.returncode == 0, f"commit {m.group(1)} is not in this repository"
