"""The claims ledger of paper 004 (Schoch & Ji): every claim, ours, and its verdict by the one
rule (evalsci.stats.agreement). Quotes, sections and the paper's values: reference.yaml,
`claims`.

The paper prints no numbers for its findings (figures only), so each finding is a qualitative
claim judged by a stated test (`judge_test`) on the recorded CPU-scale run (preset `cpu`,
scripts/recorded_run.sh; its findings table and run record are committed under
`recorded/cpu/` beside this module, the only copy of that run in the repository): the tests
are evalsci.studies.mc_icl.findings'. A finding that run cannot test is `untestable` with its
measured reason. Section 5.2 (the selected sets) and the claims about 8 models x 8 datasets
are untestable here, each with what would test it and its cost, measured on that run. The
setup claims (Section 4, Appendix B) are checked against the `paper` preset.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pandas as pd

from evalsci import reference, runrecord
from evalsci.claims.ledger import Claim, from_reference, write_csv
from evalsci.stats.agreement import Verdict, judge, judge_test, untestable
from evalsci.studies.mc_icl.plan import RECORDED_CPU, STUDY

SHARD_GROUP = "mc_icl/shard"
#: the ledger's artefact for claims judged on the recorded run
CPU_ARTEFACT = "mc_icl.findings (recorded cpu run)"
#: the paper preset's inference, planned without a GPU (docs/benchmarks.md, "Paper scale")
PAPER_COST = (
    "the paper preset (8 models x 8 datasets, 4 of them from the Hugging Face hub; "
    "`mc_icl.scale: paper`) on GPUs: about 42 A100-hours of inference by "
    "benchmarks/paper_scale.py (docs/benchmarks.md)"
)


def recorded_root() -> Path:
    """The committed copy of the recorded CPU-scale run, laid out as its results root (its doc
    blocks render from it: `python -m evalsci.pipeline.doctables --root <it> mc_icl_cpu_run`)."""
    return Path(str(resources.files("evalsci").joinpath(*RECORDED_CPU[1:])))


def _ref() -> dict:
    return reference.load(STUDY)["claims"]


def _row(id: str, **fields) -> Claim:
    return from_reference(STUDY, id, _ref()[id], **fields)


def verdict_of(rows: list[dict]) -> Verdict:
    """The verdict of a claim judged by one or more findings rows (all must support it): by
    `judge_test` on the rows' outcome, or `untestable` with the first row's measured reason."""
    outcomes = [r["outcome"] for r in rows]
    test = "; and ".join(dict.fromkeys(r["test"] for r in rows))
    if "untestable" in outcomes:
        r = rows[outcomes.index("untestable")]
        return untestable(f"{r['reason']} (a larger run would test it: {PAPER_COST})")
    outcome = (
        "supports"
        if all(o == "supports" for o in outcomes)
        else "contradicts"
        if "contradicts" in outcomes
        else "inconclusive"
    )
    return judge_test(outcome, exact=False, test=test)


def node_cost(record: dict, findings: pd.DataFrame) -> float:
    """CPU seconds per scored prompt (one prefix node: n validation queries) in the recorded
    run: its shards' CPU time over the prompts they scored (a zero-shot prompt per trial and K
    per curve, P = 1 per trial at the cpu preset; model loading included)."""
    shards = {g: j for g, j in record["benchmarked_jobs"].items() if g.startswith(SHARD_GROUP)}
    cpu = sum(j["cpu_s"] for j in shards.values())
    jobs = sum(j["jobs"] for j in shards.values())
    f = findings.iloc[0]
    return cpu / (jobs + int(f["curves"]) * int(f["K"]))


def selection_nodes(paper: dict) -> int:
    """Prompts Section 5.2 needs at the paper's design on one model and dataset: its trials'
    prefix trees (Algorithm 1, the paper's K, P and trials) and the three sets' (the set size,
    P permutations), counted with the sampler the runs use."""
    from evalsci.studies.mc_icl.sampler import plan_fixed, plan_trial, prefix_tree

    K, P = paper["num_demos"], paper["num_permutations"]  # noqa: N806
    size = paper["selection"]["set_size"]
    trials = sum(
        len(prefix_tree(plan_trial(10_000, K, P, 0, "sst2", t))) for t in range(paper["num_trials"])
    )
    sets = sum(
        len(prefix_tree(plan_fixed(list(range(size)), P, 0, "sst2", s)))
        for s in ("high", "low", "random")
    )
    return trials + sets


def build(findings: pd.DataFrame, record: dict, paper: dict) -> list[Claim]:
    """Every claim of paper 004 (reference.yaml `claims`, in its order)."""
    ref = _ref()
    run = (
        f"recorded cpu run, commit {record['commit'][:7]}, {record['start'][:10]}: "
        f"{', '.join(sorted(set(findings['model'])))} on "
        f"{', '.join(sorted(set(findings['dataset'])))}, K = {int(findings['K'].iloc[0])}, "
        f"{int(findings['curves'].iloc[0])} curves, n = {int(findings['n'].iloc[0])}"
    )
    by = {f: r for f, r in zip(findings["finding"], findings.to_dict("records"), strict=True)}
    per_node = node_cost(record, findings)
    sel_nodes = selection_nodes(paper)
    sel_cost = (
        f"Section 5.2 needs the paper's trials (Z-scores over {paper['num_trials']} trials of "
        f"K = P = {paper['num_demos']}) and the high, low and random sets of "
        f"{paper['selection']['set_size']} under {paper['num_permutations']} permutations: "
        f"{sel_nodes:,} prompts of n = {paper['num_eval']} per model and dataset, at the "
        f"recorded run's {per_node:.0f} CPU-s per prompt (SmolLM2, one thread) about "
        f"{sel_nodes * per_node / 3600:.0f} CPU-hours; on the paper's models: {PAPER_COST}"
    )
    rows = []
    for id, c in ref.items():
        names = c.get("finding")
        if names:
            names = [names] if isinstance(names, str) else names
            got = [by[n] for n in names]
            ours = "; ".join(r["ours"] or r["reason"] for r in got)
            unc = "; ".join(r["uncertainty"] for r in got if r["uncertainty"]) or "none: untested"
            rows.append(
                _row(
                    id,
                    ours=f"{ours} ({run})",
                    uncertainty=unc,
                    judged=verdict_of(got),
                    artefact=CPU_ARTEFACT,
                )
            )
        elif id.startswith("s52_"):
            rows.append(
                _row(
                    id,
                    ours="not run: the recorded cpu run has no Section 5.2 set runs",
                    uncertainty="none: not run",
                    judged=untestable(sel_cost),
                    artefact="mc_icl.figure4",
                )
            )
        elif id in ("s51_all_models_datasets", "s7_consistent_sizes"):
            rows.append(
                _row(
                    id,
                    ours="one model (SmolLM2-135M) on one dataset (SST-2) at CPU scale",
                    uncertainty="none: not run",
                    judged=untestable(PAPER_COST),
                    artefact="mc_icl.summary",
                )
            )
        elif id == "s4_100_permutations":
            n = paper["num_trials"] * paper["num_permutations"]
            rows.append(
                _row(
                    id,
                    ours=f"preset paper: {paper['num_trials']} trials x "
                    f"{paper['num_permutations']} permutations = {n}",
                    uncertainty="exact (the preset)",
                    judged=judge(n, c["value"]),
                    artefact="workflow/presets/mc_icl/paper.yaml",
                )
            )
        elif id == "appB_256_instances":
            rows.append(
                _row(
                    id,
                    ours=f"preset paper: num_eval = {paper['num_eval']}; recorded cpu run: "
                    f"n = {int(findings['n'].iloc[0])}",
                    uncertainty="exact (the presets)",
                    judged=judge(paper["num_eval"], c["value"]),
                    artefact="workflow/presets/mc_icl/paper.yaml",
                )
            )
        else:
            raise ValueError(f"reference.yaml claims.{id}: no rule judges it (mc_icl.claims)")
    return rows


def make_claims(findings, record, presets, claims) -> None:
    """Rule mc_icl_make_claims: results/mc_icl/claims.csv from the recorded CPU-scale run's
    committed findings and record, and the paper preset (`presets`: its files, default.yaml
    and paper.yaml, read through evalsci.settings)."""
    from evalsci.settings import preset

    del presets  # inputs so that a changed preset reruns the ledger
    found = pd.read_csv(findings, keep_default_na=False)
    rows = build(found, runrecord.load(record), preset(STUDY, "paper"))
    write_csv(rows, claims)
    for r in rows:
        print(f"{r.id}: {r.verdict}")
