"""The functions the `audit` rules run, one per rule (workflow/rules/audit.smk, through the one
adapter workflow/scripts/call.py): each takes its rule's named inputs, outputs and params as
keyword arguments, paths in, files out (tests/test_rule_calls.py holds the names to the rules).
The baselines study's own sources are read by that study (evalsci.studies.baselines.steps.
make_audit_runs; this package imports no study)."""

from __future__ import annotations

import logging

import pandas as pd

from evalsci.pipeline.jobs import atomic_path
from evalsci.tables import write_table

from . import columns, counts, sources  # figures (matplotlib): imported by the steps that draw
from . import maxrandom_requests as reqs

log = logging.getLogger(__name__)

TITLES = {
    "open_llm_leaderboard_v2": "Open LLM Leaderboard v2",
    "mizrahi_paraphrases": "Mizrahi et al.: best instruction paraphrase per model",
    "baselines_prompts": "Yauney & Mimno: every prompt of the 288 experiments",
    "openai_evals": "14 OpenAI LLMs (evals logs)",
}
# the t kind drawn in each source's runs figure
FIGURE_T_KIND = {
    "open_llm_leaderboard_v2": "runs",
    "mizrahi_paraphrases": "paraphrases",
    "baselines_prompts": "prompts",
    "openai_evals": "llms",
}


def write_csv(df: pd.DataFrame, path) -> None:
    with atomic_path(path) as tmp:
        df.to_csv(tmp, index=False)


def read_runs(path) -> pd.DataFrame:
    df = pd.read_csv(path, dtype={"labels": str, "task": str, "model": str, "run": str})
    missing = [c for c in columns.RUN_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"{path}: missing column(s) {missing}")
    df["shots"] = df["shots"].astype("Int64")
    return df


def make_runs(source: str, bundle, runs, scope=None) -> None:
    """Normalise one released source (its bundle) into its runs table; the leaderboard's also
    into its out-of-scope list (`scope`)."""
    out_runs = runs
    if source == "open_llm_leaderboard_v2":
        runs, out_of_scope = sources.leaderboard_runs(bundle)
        write_csv(out_of_scope, scope)
    elif source == "openai_evals":
        runs = sources.evals_runs(bundle)
    else:
        # mizrahi_paraphrases and baselines_prompts: evalsci.studies.baselines.audit_runs
        raise ValueError(f"audit source {source!r} is not read here; known {sources.SOURCES}")
    write_csv(runs, out_runs)
    log.info("%s: %d runs over %d tasks", source, len(runs), runs.task.nunique())


def _sweep_ts(leaderboard: pd.DataFrame, cfg: dict):
    marks = sorted(set(leaderboard.t.astype(int)))
    return reqs.sweep_ts(cfg["sweep"]["t_max"], cfg["sweep"]["points"], marks)


def make_requests(runs: list, requests, cfg: dict) -> None:
    """Every baseline and tail the audit needs, as one request file for the maxrandom rule."""
    from evalsci.maxrandom.requests import write_requests

    out = requests
    runs = pd.concat([read_runs(p) for p in runs], ignore_index=True)
    lb = runs[runs.source == "open_llm_leaderboard_v2"]
    df = reqs.build(runs, lb, _sweep_ts(lb, cfg))
    write_requests(df, out)
    log.info("%d baseline requests -> %s", len(df), out)


def make_tables(source: str, runs, baselines, scope, table: list, detail, figure: list) -> None:
    """Counts per task and t kind (runs above the standard / max baseline, flipped), the
    per-run detail with tail p-values, and each run against its task's baselines. `scope`: the
    leaderboard's out-of-scope list, or none."""
    from evalsci.maxrandom.requests import read_baselines

    runs_path, outputs, detail_out, figure_outputs = runs, table, detail, figure
    judged = counts.judge(read_runs(runs_path), read_baselines(baselines))
    df = counts.counts(judged, source)
    note = ""
    if scope:
        sc = pd.read_csv(scope)
        note = (
            "Out of scope (no random baseline): "
            + "; ".join(f"{r.task} ({r.runs} runs): {r.reason}" for r in sc.itertuples())
            + "."
        )
    write_table(df, outputs, markdown=counts.to_markdown(df, note))
    write_csv(judged, detail_out)
    from . import figures

    figures.runs_figure(judged, figure_outputs, TITLES[source], FIGURE_T_KIND[source])
    tot = df.groupby("t_kind")[["runs", "above_standard", "above_max", "flipped"]].sum()
    log.info("%s totals:\n%s", source, tot.to_string())


def make_sweep(detail, baselines, table: list, figure: list, cfg: dict) -> None:
    """The leaderboard's flipped share against t = 1 .. t_max (one run per model)."""
    from evalsci.maxrandom.requests import read_baselines

    outputs, figure_outputs = table, figure
    judged = pd.read_csv(detail, dtype={"labels": str, "task": str})
    ts = _sweep_ts(judged, cfg)
    sw = counts.sweep(judged, read_baselines(baselines), ts, t_kind="models")
    write_table(sw, outputs, floatfmt=".3f")
    marks = {k: int(judged[judged.t_kind == k].t.mode().iloc[0]) for k in ("runs", "models")}
    from . import figures

    figures.sweep_figure(
        sw, figure_outputs, TITLES["open_llm_leaderboard_v2"] + ": one run per model", marks
    )
