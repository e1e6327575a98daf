"""Entry points of the workflow scripts: paths in, files out (one function per rule)."""

from __future__ import annotations

import logging

import pandas as pd

from evalsci.tables import write_table
from evalsci.workflow import atomic_path

from . import counts, sources  # figures (matplotlib): imported by the steps that draw
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
    missing = [c for c in sources.RUN_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"{path}: missing column(s) {missing}")
    df["shots"] = df["shots"].astype("Int64")
    return df


def make_runs(source: str, inputs: dict, out_runs, out_scope=None) -> None:
    """Normalise one released source into its runs table."""
    if source == "open_llm_leaderboard_v2":
        runs, scope = sources.leaderboard_runs(inputs["bundle"])
        write_csv(scope, out_scope)
    elif source == "openai_evals":
        runs = sources.evals_runs(inputs["bundle"])
    else:
        # mizrahi_paraphrases and baselines_prompts: evalsci.studies.baselines.audit_runs
        raise ValueError(f"audit source {source!r} is not read here; known {sources.SOURCES}")
    write_csv(runs, out_runs)
    log.info("%s: %d runs over %d tasks", source, len(runs), runs.task.nunique())


def _sweep_ts(leaderboard: pd.DataFrame, cfg: dict):
    marks = sorted(set(leaderboard.t.astype(int)))
    return reqs.sweep_ts(cfg["sweep"]["t_max"], cfg["sweep"]["points"], marks)


def make_requests(runs_paths: list, out, cfg: dict) -> None:
    from evalsci.maxrandom.requests import write_requests

    runs = pd.concat([read_runs(p) for p in runs_paths], ignore_index=True)
    lb = runs[runs.source == "open_llm_leaderboard_v2"]
    df = reqs.build(runs, lb, _sweep_ts(lb, cfg))
    write_requests(df, out)
    log.info("%d baseline requests -> %s", len(df), out)


def make_tables(
    source: str, runs_path, baselines, outputs: list, detail_out, figure_outputs, scope=None
) -> None:
    from evalsci.maxrandom.requests import read_baselines

    judged = counts.judge(read_runs(runs_path), read_baselines(baselines))
    df = counts.counts(judged, source)
    note = ""
    if scope is not None:
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


def make_sweep(detail, baselines, outputs: list, figure_outputs, cfg: dict) -> None:
    from evalsci.maxrandom.requests import read_baselines

    judged = pd.read_csv(detail, dtype={"labels": str, "task": str})
    ts = _sweep_ts(judged, cfg)
    sw = counts.sweep(judged, read_baselines(baselines), ts, t_kind="models")
    write_table(sw, outputs, floatfmt=".3f")
    marks = {k: int(judged[judged.t_kind == k].t.mode().iloc[0]) for k in ("runs", "models")}
    from . import figures

    figures.sweep_figure(
        sw, figure_outputs, TITLES["open_llm_leaderboard_v2"] + ": one run per model", marks
    )
