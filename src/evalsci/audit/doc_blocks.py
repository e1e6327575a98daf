"""The numbers docs/audit.md quotes, generated from the audit's result files (never typed):
doc block `audit_findings` (registered in evalsci/pipeline/doc_blocks.yaml), written by rule
docs_tables (`snakemake --cores 2 docs_tables`); tests fail when docs/audit.md differs from the
results.

Also the worked example and the verdicts' examples of docs/audit.md and the README's quick
start (blocks `audit_worked_example`, `audit_verdicts`, `audit_quickstart`): `evalsci audit` run on published
lm-evaluation-harness output committed as a fixture, EleutherAI/pythia's `evals/` results for
Pythia-160M (tests/fixtures/audit/lm_eval/published/, source beside it). Their inputs are
fixtures, not workflow results, so rule docs_tables does not render them
(`doctables.buildable` keeps results/ inputs); tests/test_doctables.py checks them against the
fixtures, and this writes them again:

    python -c "from evalsci.pipeline.doctables import blocks, render, write; b = blocks();
    [write(b[n], render(b[n])) for n in ('audit_worked_example', 'audit_verdicts',
    'audit_quickstart')]"
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

SWEEP_TS = (1, 10, 78, 159, 1000, 10000)


COUNTED = ["runs", "above_standard", "above_max", "flipped"]
TESTED = ["above_standard_test", "above_max_test"]


def _totals(df: pd.DataFrame) -> dict:
    s = df[COUNTED + TESTED].sum()
    return {k: int(v) for k, v in s.items()}


def _line(tot: dict) -> str:
    share = tot["flipped"] / tot["above_standard"] if tot["above_standard"] else float("nan")
    return (
        f"{tot['runs']} runs, {tot['above_standard']} above the standard baseline, "
        f"{tot['above_max']} above the max random baseline: {tot['flipped']} flipped "
        f"({100 * share:.1f}% of those above the standard baseline); as tests (Holm, "
        f"0.05): {tot['above_standard_test']} above the standard, {tot['above_max_test']} "
        "above the max"
    )


def findings(paths: dict[str, Path]) -> str:
    """The findings from the audit's counts tables (doc_blocks.yaml names them)."""
    lb = pd.read_csv(paths["open_llm_leaderboard_v2"])
    out = [
        "**Open LLM Leaderboard v2** (every multiple-choice task: "
        f"{lb.task.nunique()} tasks, of which {lb.task.str.startswith('BBH/').sum() // 2} "
        "BBH, 3 MuSR, MMLU-Pro):",
        "",
    ]
    for kind, desc in (
        ("runs", "t = rows of the file (every run)"),
        ("models", "t = distinct models (last run per model)"),
    ):
        d = lb[lb.t_kind == kind]
        out.append(f"- {desc}: {_line(_totals(d))}.")
    runs_t = lb[lb.t_kind == "runs"].set_index("task")
    mod_t = lb[lb.t_kind == "models"].set_index("task")
    w = runs_t.loc["BBH/web_of_lies"]
    out.append(
        f"- BBH web_of_lies (n = {w.n}, 2 choices): {w.above_standard} of {w.runs} runs "
        f"beat p = 1/2, {w.above_max} beat the expected best of t = {w.t} random guessers; "
        f"with one run per model, {mod_t.loc['BBH/web_of_lies'].above_standard} of "
        f"{mod_t.loc['BBH/web_of_lies'].runs} and {mod_t.loc['BBH/web_of_lies'].above_max}."
    )
    top = runs_t.sort_values("flipped", ascending=False).head(5)
    out.append(
        "- Most flipped runs (t = rows): "
        + "; ".join(f"{t} {r.flipped} of {r.above_standard}" for t, r in top.iterrows())
        + "."
    )
    for group in ("BBH", "MuSR", "MMLU-Pro"):
        d = lb[(lb.t_kind == "models") & lb.task.str.startswith(group)]
        out.append(f"- {group}, one run per model: {_line(_totals(d))}.")
    sw = pd.read_csv(paths["open_llm_leaderboard_v2_sweep"])
    allg = sw[sw.group == "all"].set_index("t")
    pts = [t for t in SWEEP_TS if t in allg.index]
    out.append(
        "- Flipped share against t (one run per model, all tasks): "
        + ", ".join(f"t = {t}: {100 * allg.loc[t, 'flipped_share']:.1f}%" for t in pts)
        + "."
    )
    out.append("")
    mz = pd.read_csv(paths["mizrahi_paraphrases"])
    for suite in ("BBH", "BBL"):
        d = mz[mz.task.str.startswith(suite + "/")]
        out.append(
            f"**Mizrahi et al., {suite}** (each model's best paraphrase, t = paraphrases, "
            f"{d.t.min()}-{d.t.max()}): {_line(_totals(d))}."
        )
    bp = pd.read_csv(paths["baselines_prompts"])
    out.append(
        f"**Yauney & Mimno's 288 experiments** (every prompt against the best of its "
        f"experiment's t prompts): {_line(_totals(bp))}."
    )
    ev = pd.read_csv(paths["openai_evals"])
    out.append(
        f"**14 OpenAI LLMs** (t = 14): {_line(_totals(ev))}; per dataset: "
        + "; ".join(
            f"{r.task} (n = {r.n}, {r.choices} choices) {r.above_standard}/{r.above_max}/{r.flipped}"
            for r in ev.itertuples()
        )
        + " (above standard / above max / flipped)."
    )
    return "\n".join(out) + "\n"


# ------------------------------------------------------- worked example, quick start
# The commands the blocks show, as a user types them from the checkout root: the files
# doc_blocks.yaml gives these blocks (tests/test_doctables.py holds them equal).
PYTHIA = "tests/fixtures/audit/lm_eval/published/pythia"
FILES = (f"{PYTHIA}/160m_step93000.json", f"{PYTHIA}/160m-5shot_step103000.json")
SHOWN = ["task", "accuracy", "n", "choices", "t", "standard", "max_baseline", "p_max", "verdict"]


def _audit(paths: list[Path], t: int | None = None, adjust: str = "holm"):
    from . import judge_inputs, read_inputs
    from .judge import t_summary

    found = read_inputs(paths)
    _, judged = judge_inputs(found, t=t, adjust=adjust)
    return judged, t_summary(judged), found.skipped


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def _fmt(df: pd.DataFrame) -> str:
    return df.to_markdown(index=False, floatfmt=".4g") + "\n"


def worked_example(paths) -> str:
    """Doc block `audit_worked_example`: `evalsci audit` on Pythia-160M's two published
    evaluations (fixtures), the verdict counts, the t lines and the flipped scores."""
    from .judge import family_line, verdict_counts

    files = [paths["zero_shot"], paths["five_shot"]]
    judged, summary, skipped = _audit(files)
    lines = [
        "```bash",
        f"evalsci audit {FILES[0]} \\",
        f"              {FILES[1]}",
        "```",
        "",
        f"{len(judged)} scores ({judged['task'].nunique()} tasks, two published evaluations of "
        f"Pythia-160M: 0-shot at step 93,000 and 5-shot at step 103,000); "
        f"{len(skipped)} tasks skipped, each listed with its reason (the first: "
        f"{skipped[0].task}, {skipped[0].reason.split(' (')[0]}). "
        "0.3 files hold accuracies only, so every count is `derived`. Verdicts (tests): "
        f"{verdict_counts(judged)}; the paper's point comparison (`point_verdict`): "
        f"{verdict_counts(judged, 'point_verdict')}. {_sentence(family_line(judged))}. "
        "What the command says about t:",
        "",
        *[f"    {s}" for s in summary],
        "",
        "The scores the point comparison puts above the standard baseline but not above the "
        "max (`point_verdict` above_standard_only), with their tested verdict, the first 12 by "
        "task:",
        "",
    ]
    flipped = judged[judged["point_verdict"] == "above_standard_only"]
    flipped = flipped.sort_values(["task", "source"])
    flipped = flipped.assign(file=[Path(s).name for s in flipped["source"].astype(str)])
    shown = [*SHOWN, "point_verdict"]
    body = _fmt(flipped[["file", *shown]].head(12)) if len(flipped) else "(none)\n"
    return "\n".join(lines) + "\n" + body


HELM_RUN = "tests/fixtures/audit/helm/runs/simple_mcqa:model=simple_model1"
VERDICT_SHOWN = ["task", "accuracy", "n", "choices", "t", "p_standard", "p_max", "p_below"]


def verdicts(paths) -> str:
    """Doc block `audit_verdicts`: each verdict defined in one sentence, with a real score that
    has it (Pythia-160M's two published evaluations and the HELM fixture runs, `--adjust
    none` so that each example's verdict reads from its own p-values), and the counts under
    each correction."""
    from .judge import VERDICT_MEANING, VERDICTS, verdict_counts
    from .terminal import short_models

    files = [paths["zero_shot"], paths["five_shot"], paths["helm_run_spec"].parent]
    judged = {a: _audit(files, adjust=a)[0] for a in ("none", "holm", "bh")}
    raw = judged["none"].sort_values(["task", "source"], kind="stable")
    short = short_models(raw["model"].astype(str))
    lines = [
        "```bash",
        f"evalsci audit {FILES[0]} \\",
        f"              {FILES[1]} \\",
        f"              '{HELM_RUN}' --adjust none",
        "```",
        "",
        "| verdict | meaning | example (the first by task) |",
        "| --- | --- | --- |",
    ]
    for v in reversed(VERDICTS):
        rows = raw[raw["verdict"] == v]
        if len(rows):
            r = rows.iloc[0]
            ex = (
                f"{short[r.model]} on {r.task}: {r.accuracy:.4g} of n = {r.n} ({r.choices} "
                f"choices, t = {r.t}); p_standard {r.p_standard:.3g}, p_max {r.p_max:.3g}, "
                f"p_below {r.p_below:.3g}; point_verdict {r.point_verdict}"
            )
        else:
            ex = "(none in these files)"
        lines.append(f"| `{v}` | {VERDICT_MEANING[v]} | {ex} |")
    lines.append("")
    lines.append(
        f"The same {len(raw)} scores: "
        + "; ".join(f"`--adjust {a}` {verdict_counts(j)}" for a, j in judged.items())
        + "."
    )
    return "\n".join(lines) + "\n"


def quickstart(paths) -> str:
    """Doc block `audit_quickstart` (README): the default output of one audit of a published
    file, with --t 10: the table's first rows, then the summary, family and legend."""
    from .judge import t_summary
    from .terminal import FALLBACK_WIDTH, report

    judged, _, skipped = _audit([paths["zero_shot"]], t=10)
    # the width of output to a pipe or file: the block must not follow the renderer's terminal
    lines = report(judged, skipped, t_summary(judged), FALLBACK_WIDTH).splitlines()
    rows = len(judged)
    head, tail = lines[:6], lines[2 + rows + 1 :]
    tail = tail[: next(i for i, x in enumerate(tail) if x.startswith("notes:"))]
    return (
        "```bash\n"
        f"evalsci audit {FILES[0]} --t 10   # were these the best of 10 checkpoints?\n"
        "```\n\n```text\n"
        + "\n".join([*head, f"... ({rows - 4} more rows)", "", *tail])
        + "\n... (then each note once, the files read, and every task skipped with its reason)\n"
        "```\n"
    )
