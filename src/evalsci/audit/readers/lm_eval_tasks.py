"""The known-task table: lm-eval task name -> output type and number of options.

Built from lm-evaluation-harness's own task YAMLs by `scripts/build_lm_eval_task_table.py`
(`lm_eval_tasks.csv`, one row per task with the YAML file that fixes the count), plus
hand-kept rows with their primary source (`lm_eval_tasks_extra.csv`, which wins). Used when a
results file has no samples (the samples say each item's options exactly) and no literal
`doc_to_choice` in its own `configs`. lm-eval 0.3 task names are mapped to their 0.4 names:
0.3's `hendrycksTest-<subject>` is the MMLU subject of github.com/hendrycks/test, which 0.4
calls `mmlu_<subject>` (its tasks/mmlu/README.md names that homepage).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import cache
from importlib import resources

FIXED = ("list", "dict", "jinja_list")  # bases that fix the count in the YAML itself


@dataclass(frozen=True)
class KnownTask:
    task: str
    output_type: str
    options: int | None  # None: per item, from the data (only samples can say)
    basis: str  # list, dict, jinja_list, function, template, field, none
    source: str  # the YAML file under lm_eval/tasks/ (or the hand-kept row's citation)
    table: str  # which table file and the lm-eval version it was built from

    @property
    def provenance(self) -> str:
        return f"known-task table ({self.table}: {self.source})"


def _rows(name: str) -> tuple[str, list[dict]]:
    text = resources.files(__package__).joinpath(name).read_text(encoding="utf-8")
    lines = text.splitlines()
    head = lines[0].lstrip("# ").strip() if lines and lines[0].startswith("#") else name
    body = [ln for ln in lines if not ln.startswith("#")]
    return head, list(csv.DictReader(body))


@cache
def table() -> dict[str, KnownTask]:
    out: dict[str, KnownTask] = {}
    for name in ("lm_eval_tasks.csv", "lm_eval_tasks_extra.csv"):
        head, rows = _rows(name)
        label = name if name.endswith("extra.csv") else f"{name}, {head.split(' from ')[-1]}"
        for r in rows:
            k = r["options"].strip()
            out[r["task"]] = KnownTask(
                r["task"], r["output_type"], int(k) if k else None, r["basis"], r["source"], label
            )
    return out


def v04_name(task: str) -> str:
    """lm-eval 0.4's name for a 0.3 task name."""
    if task.startswith("hendrycksTest-"):
        return "mmlu_" + task.removeprefix("hendrycksTest-")
    return task


def lookup(task: str) -> KnownTask | None:
    """The table's row for `task` (a 0.4 name, or a 0.3 name through `v04_name`)."""
    t = table()
    return t.get(task) or t.get(v04_name(task))


def _template_list_len(text: str) -> int | None:
    """Length of a Jinja template that is exactly one literal list, e.g. "{{['a', x]}}"."""
    import jinja2
    import jinja2.nodes

    try:
        ast = jinja2.Environment().parse(text)
    except jinja2.TemplateSyntaxError:
        return None
    if len(ast.body) != 1 or not isinstance(ast.body[0], jinja2.nodes.Output):
        return None
    nodes = [
        n
        for n in ast.body[0].nodes
        if not (isinstance(n, jinja2.nodes.TemplateData) and not n.data.strip())
    ]
    if len(nodes) == 1 and isinstance(nodes[0], jinja2.nodes.List):
        return len(nodes[0].items)
    return None


def options_of(doc_to_choice: object) -> tuple[int | None, str]:
    """(number of options, basis) that a task config's `doc_to_choice` fixes by itself:
    a literal list or dict, or a Jinja template that is one literal list (basis list, dict,
    jinja_list). Otherwise (None, why): a Python function, a template over the document or a
    document field name gives each item its own options, which only the samples record."""
    if isinstance(doc_to_choice, list):
        return len(doc_to_choice), "list"
    if isinstance(doc_to_choice, dict):
        return len(doc_to_choice), "dict"
    if isinstance(doc_to_choice, str):
        # lm-eval writes a function into a results file's configs as its repr or source text
        if doc_to_choice.startswith("!function ") or doc_to_choice.lstrip().startswith(
            ("def ", "<function")
        ):
            return None, "function"
        if "{{" in doc_to_choice or "{%" in doc_to_choice:
            k = _template_list_len(doc_to_choice)
            return (k, "jinja_list") if k is not None else (None, "template")
        return None, "field"
    return None, "none"
