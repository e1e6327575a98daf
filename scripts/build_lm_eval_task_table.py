"""Rebuild the audit's known-task table from lm-evaluation-harness's own task definitions.

    python scripts/build_lm_eval_task_table.py    # needs `lm-eval` (the dev extra)

For every task that the installed lm-eval defines in YAML, one row: its `output_type`, and
for a multiple-choice task its number of options where the task definition itself fixes it:
a literal `doc_to_choice` list or dict, or a Jinja template that is a literal list
(`"{{[a, b, c]}}"`). A `doc_to_choice` naming a document field, a template over a field or a
Python function depends on the data (the datasets are not available offline), so the row
says so and leaves the count empty: the audit then needs the run's samples. Each row names
the YAML file (relative to `lm_eval/tasks/`, following `include:`) that holds the field
(`doc_to_choice` for a multiple-choice task, else `output_type`). Columns:
  task, output_type, options (empty where the YAML does not fix it),
  basis (list | dict | jinja_list: counted from the literal; function | template | field:
         per item from the data, so only the samples can say; none: no doc_to_choice),
  source (the YAML file).

The table is written to src/evalsci/audit/readers/lm_eval_tasks.csv (sorted, so the same
lm-eval gives the same bytes) with the lm-eval version in its first line. Rows added by
hand, where a primary source states the count but the YAML does not, live in
src/evalsci/audit/readers/lm_eval_tasks_extra.csv with their citation and are not touched.
"""

from __future__ import annotations

import csv
import io
import sys
from pathlib import Path

import yaml

from evalsci.audit.readers.lm_eval_tasks import options_of

OUT = Path(__file__).resolve().parents[1] / "src/evalsci/audit/readers/lm_eval_tasks.csv"
FIELDS = ("task", "output_type", "options", "basis", "source")


def _raw(path: Path) -> dict:
    """One YAML file without following `include:` (`!function` kept as its text)."""

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_constructor("!function", lambda ld, node: "!function " + ld.construct_scalar(node))
    with open(path, "rb") as fh:
        cfg = yaml.load(fh, Loader=Loader)  # noqa: S506 (SafeLoader subclass)
    return cfg if isinstance(cfg, dict) else {}


def _field(path: Path, key: str, root: Path, seen=None) -> tuple[object, Path] | None:
    """(value, file that sets it) for `key`, following lm-eval's include rule: the file's
    own value wins over its includes, and later includes over earlier ones."""
    seen = set() if seen is None else seen
    path = path.resolve()
    if path in seen:
        return None
    seen.add(path)
    cfg = _raw(path)
    if key in cfg:
        return cfg[key], path
    inc = cfg.get("include")
    found = None
    for i in inc if isinstance(inc, list) else [inc] if inc else []:
        p = Path(i) if Path(i).is_absolute() else path.parent / i
        if p.is_file():
            found = _field(p, key, root, seen) or found
    return found


def rows(tasks_root: Path) -> list[dict]:
    from lm_eval.tasks._index import Kind, TaskIndex

    out = []
    for name, e in sorted(TaskIndex.build([tasks_root]).items()):
        if e.kind is not Kind.TASK or e.yaml_path is None:
            continue
        otype = (e.cfg or {}).get("output_type") or "generate_until"  # TaskConfig's default
        rel = lambda p: p.resolve().relative_to(tasks_root.resolve()).as_posix()  # noqa: E731
        if otype != "multiple_choice":
            src = _field(e.yaml_path, "output_type", tasks_root)
            where = rel(src[1]) if src else rel(e.yaml_path)
            out.append(dict(task=name, output_type=otype, options="", basis="", source=where))
            continue
        found = _field(e.yaml_path, "doc_to_choice", tasks_root)
        if found is None:
            k, basis, where = None, "none", rel(e.yaml_path)
        else:
            k, basis = options_of(found[0])
            where = rel(found[1])
        out.append(
            dict(
                task=name,
                output_type=otype,
                options="" if k is None else k,
                basis=basis,
                source=where,
            )
        )
    return out


def main() -> int:
    import lm_eval

    root = Path(lm_eval.__file__).parent / "tasks"
    buf = io.StringIO()
    buf.write(
        f"# built by scripts/build_lm_eval_task_table.py from lm-eval {lm_eval.__version__}\n"
    )
    w = csv.DictWriter(buf, fieldnames=FIELDS, lineterminator="\n")
    w.writeheader()
    table = rows(root)
    w.writerows(table)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(buf.getvalue())
    known = sum(1 for r in table if r["options"] != "")
    mc = sum(1 for r in table if r["output_type"] == "multiple_choice")
    print(
        f"{OUT}: {len(table)} tasks, {mc} multiple-choice, {known} with a fixed option count",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
