"""The worked example of docs/audit.md and the README's quick start, generated (doc blocks
`audit_worked_example` and `audit_quickstart`, evalsci.doctables): `evalsci audit` run on
published lm-evaluation-harness output committed as a test fixture, EleutherAI/pythia's
`evals/` results for Pythia-160M (tests/fixtures/audit/lm_eval/published/, source beside it).

The blocks' inputs are fixtures, not workflow results, so rule docs_tables does not render them
(`doctables.buildable` keeps results/ inputs); tests/test_doctables.py checks them against the
fixtures, and this renders them again:

    python -c "from evalsci.doctables import write_all; write_all('.', '.', '/dev/null',
               names=['audit_worked_example', 'audit_quickstart'])"
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from evalsci.doctables import block

PYTHIA = "tests/fixtures/audit/lm_eval/published/pythia"
FILES = (f"{PYTHIA}/160m_step93000.json", f"{PYTHIA}/160m-5shot_step103000.json")
SHOWN = ["task", "accuracy", "n", "choices", "t", "standard", "max_baseline", "p_max", "verdict"]


def _audit(paths: list[Path], t: int | None = None):
    from . import judge_inputs, read_inputs
    from .judge import t_summary

    found = read_inputs(paths)
    _, judged = judge_inputs(found, t=t)
    return judged, t_summary(judged), found.skipped


def _fmt(df: pd.DataFrame) -> str:
    return df.to_markdown(index=False, floatfmt=".4g") + "\n"


@block("audit_worked_example", doc="docs/audit.md", inputs=list(FILES))
def _worked_example(paths) -> str:
    files = [paths[f] for f in FILES]
    judged, summary, skipped = _audit(files)
    counts = judged.groupby("verdict", observed=False).size()
    lines = [
        "```bash",
        f"evalsci audit {FILES[0]} \\",
        f"              {FILES[1]}",
        "```",
        "",
        f"{len(judged)} scores ({judged['task'].nunique()} tasks, two published evaluations of "
        f"Pythia-160M: 0-shot at step 93,000 and 5-shot at step 103,000); "
        f"{len(skipped)} tasks or files skipped with their reasons on stderr. Verdicts: "
        + ", ".join(f"{k} {int(v)}" for k, v in counts.items())
        + ". What the command prints on stderr about t:",
        "",
        *[f"    {s}" for s in summary],
        "",
        "The scores whose verdict the max random baseline changes (above the standard "
        "baseline, not above the max), the first 12 by task:",
        "",
    ]
    flipped = judged[judged["verdict"] == "above_standard_only"].sort_values(["task", "source"])
    body = _fmt(flipped[SHOWN].head(12)) if len(flipped) else "(none)\n"
    return "\n".join(lines) + "\n" + body


@block("audit_quickstart", doc="README.md", inputs=[FILES[0]])
def _quickstart(paths) -> str:
    judged, _, _ = _audit([paths[FILES[0]]], t=10)
    rows = judged.sort_values("task").head(4)
    return (
        "```bash\n"
        f"evalsci audit {FILES[0]} --t 10   # were these the best of 10 checkpoints?\n"
        "```\n\n" + _fmt(rows[SHOWN])
    )
