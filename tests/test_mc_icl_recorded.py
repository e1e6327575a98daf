"""The recorded CPU-scale mc_icl run's committed copy (src/evalsci/studies/mc_icl/recorded/cpu,
laid out as the run's results root): its record is a finished run at scale cpu, its findings
are what evalsci.studies.mc_icl.findings computes from its committed shard, the docs' block of
that run is what the copy renders, and the claims ledger builds from it."""

from __future__ import annotations

import io

import pandas as pd
import pytest

from evalsci import runrecord
from evalsci.pipeline import doctables
from evalsci.settings import preset
from evalsci.studies.mc_icl.claims import build, recorded_root
from evalsci.studies.mc_icl.findings import findings
from evalsci.studies.mc_icl.plan import RECORD
from evalsci.studies.mc_icl.scores import read_scores
from evalsci.studies.mc_icl.templates import num_choices

from conftest import REPO

ROOT = recorded_root()
FINDINGS = ROOT / "results/mc_icl/tables/findings.csv"


def test_the_record_is_a_finished_cpu_scale_run():
    rec = runrecord.load(ROOT / RECORD)
    assert rec["rc"] == 0 and rec["scale"] == "cpu"
    assert rec["benchmarked_jobs"] and rec["cpu"]


def test_findings_are_recomputed_from_the_committed_shard():
    shards = sorted(ROOT.glob("results/mc_icl/scores/*/*/trial*.parquet"))
    assert shards
    sc = read_scores(shards)
    got = findings(sc, {d: num_choices(d) for d in sc["dataset"].unique()})
    buf = io.StringIO()
    got.to_csv(buf, index=False)
    assert buf.getvalue() == FINDINGS.read_text()


def test_the_docs_block_is_the_copys_rendering():
    block = doctables.blocks()["mc_icl_cpu_run"]
    assert doctables.current(block, REPO) == doctables.render(block, ROOT)


def test_the_claims_build_from_the_copy():
    found = pd.read_csv(FINDINGS, keep_default_na=False)
    rows = build(found, runrecord.load(ROOT / RECORD), preset("mc_icl", "paper"))
    judged = [r for r in rows if r.artefact.startswith("mc_icl.findings")]
    assert len(rows) >= 10 and judged
    # every finding row judged on the run says which run it rests on
    assert all("recorded cpu run" in r.ours for r in judged)


@pytest.mark.parametrize("name", ["plateau", "erratic", "late_best", "one_shot_below"])
def test_the_cpu_run_tests_the_findings_it_can(name):
    """K = 20 and n = 256: the plateau, single-curve and one-shot findings are tested, not
    untestable (unless the model is at chance, which the row then says)."""
    f = pd.read_csv(FINDINGS, keep_default_na=False).set_index("finding")
    assert f.loc[name, "outcome"] != "untestable" or "at chance" in f.loc[name, "reason"]
