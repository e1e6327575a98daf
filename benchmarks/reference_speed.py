"""`evalsci reference` select + predict on a 10,000-item x 100-model matrix (issue 36: < 60 s).

Each verb runs with the defaults of the code it runs (selector and estimator), unless
`--selector` names one: the current default against the baseline revision's default.

Responses are drawn from a 2PL IRT model (abilities and difficulties N(0, 1), 20 tasks of 500
items), written as the tidy per-item CSV, and both verbs run as `python -m evalsci.cli`, timed
end to end (interpreter start and reading included), wall and CPU seconds (the child's user +
system time). The baseline is the same commands on the source tree of `--baseline` (a git
revision, exported with `git archive`; the current tree is copied at the start), interleaved with the current tree's in each repeat so
both see the same load; both accuracy tables are compared column by column. A third reference
is reading the CSV alone.

    python benchmarks/reference_speed.py [--selector NAME] [--baseline fbc564f] [--repeats 2]
        [--smoke]   (1,000 items x 20 known models, one repeat: that it runs, not its speed)
"""

from __future__ import annotations

import argparse
import io
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]


def matrix(n_models=101, n_items=10_000, seed=0):
    rng = np.random.default_rng(seed)
    theta, b = rng.normal(size=n_models), rng.normal(size=n_items)
    y = (rng.random((n_models, n_items)) < 1 / (1 + np.exp(-(theta[:, None] - b)))).astype(int)
    model = np.repeat([f"m{i:03d}" for i in range(n_models)], n_items)
    item = np.tile(np.arange(n_items), n_models)
    return pd.DataFrame(
        {
            "model": model,
            "task": "t" + (item // 500).astype(str),
            "item": item,
            "correct": y.ravel(),
        }
    )


def _timed(args: list[str], src: Path) -> tuple[float, float, str]:
    """(wall s, CPU s, stdout) of `python -m evalsci.cli ARGS` with `src` first on the path."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "evalsci.cli", *args], env=env, check=True,
                         capture_output=True, text=True)  # fmt: skip
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, out.stdout


def both_verbs(d: Path, src: Path, selector: str | None, tag: str) -> tuple[dict, pd.DataFrame]:
    ref = d / f"ref_{tag}.csv"
    chosen = ["--selector", selector] if selector else []  # else the code's own default
    ws, cs, _ = _timed(["reference", "select", str(d / "known.csv"), "--n", "100", *chosen,
                        "--out", str(ref)], src)  # fmt: skip
    wp, cp, out = _timed(["reference", "predict", str(d / "known.csv"), "--reference",
                          str(ref), "--new", str(d / "new.csv")], src)  # fmt: skip
    t = {"select_wall": ws, "select_cpu": cs, "predict_wall": wp, "predict_cpu": cp}
    return t, pd.read_csv(io.StringIO(out))


def run(selector: str | None, baseline: str, repeats: int, smoke: bool = False) -> None:
    n_models, n_items = (21, 1_000) if smoke else (101, 10_000)
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        df = matrix(n_models, n_items)
        new_model = f"m{n_models - 1:03d}"  # the last: the new model
        df[df["model"] != new_model].to_csv(d / "known.csv", index=False)
        df[df["model"] == new_model].to_csv(d / "new.csv", index=False)
        old = d / "baseline"
        old.mkdir()
        tar = subprocess.run(["git", "-C", str(ROOT), "archive", baseline, "src"],
                             check=True, capture_output=True).stdout  # fmt: skip
        subprocess.run(["tar", "-x", "-C", str(old)], input=tar, check=True)
        new = d / "current" / "src"  # a snapshot: edits during the run change nothing
        shutil.copytree(ROOT / "src", new, ignore=shutil.ignore_patterns("__pycache__"))
        read = [
            "-c",
            "import sys, time; from evalsci.assess.responses import read_responses; "
            "t = time.perf_counter(); read_responses([sys.argv[1]]); "
            "print(time.perf_counter() - t)",
            str(d / "known.csv"),
        ]
        t_read = float(subprocess.run([sys.executable, *read], check=True, text=True,
                                      capture_output=True,
                                      env={**os.environ, "PYTHONPATH": str(new)}
                                      ).stdout)  # fmt: skip
        rows, tables = [], {}
        for rep in range(repeats):
            for tag, src in (("baseline", old / "src"), ("current", new)):
                t, tables[tag] = both_verbs(d, src, selector, tag)
                rows.append({"repeat": rep, "code": tag, **t})
                print(f"repeat {rep} {tag}: " + ", ".join(f"{k} {v:.1f}" for k, v in t.items()),
                      flush=True)  # fmt: skip
        same_refs = (d / "ref_baseline.csv").read_text() == (d / "ref_current.csv").read_text()
    r = pd.DataFrame(rows)
    r["total_wall"] = r["select_wall"] + r["predict_wall"]
    r["total_cpu"] = r["select_cpu"] + r["predict_cpu"]
    med = r.groupby("code")[["select_wall", "predict_wall", "total_wall", "total_cpu"]].median()
    a = tables["baseline"].merge(tables["current"], on=["model", "task"], suffixes=("_b", "_c"))
    diff = (a["accuracy_estimate_b"] - a["accuracy_estimate_c"]).abs()
    wid_b, wid_c = (a["high_b"] - a["low_b"]).mean(), (a["high_c"] - a["low_c"]).mean()
    print(f"load average {os.getloadavg()[0]:.1f}, cores {os.cpu_count()}, selector "
          f"{selector or 'each code default'}, "
          f"baseline {baseline}; read the CSV alone {t_read:.1f} s")  # fmt: skip
    print(med.round(1).to_string())
    b, c = med.loc["baseline"], med.loc["current"]
    print(
        f"select + predict: current {c.total_wall:.1f} s wall ({c.total_cpu:.1f} s CPU), "
        f"baseline {b.total_wall:.1f} s wall ({b.total_cpu:.1f} s CPU): "
        f"{b.total_wall / c.total_wall:.1f} x faster (wall), {b.total_cpu / c.total_cpu:.1f} x "
        f"(CPU); same reference items: {same_refs}; task accuracy estimates differ by at most "
        f"{diff.max():.4f} (mean {diff.mean():.4f}, {len(a)} tasks); mean interval width "
        f"{wid_c:.4f} (baseline {wid_b:.4f})"
    )


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--selector", default=None, help="default: each code's own default")
    ap.add_argument("--baseline", default="fbc564f", help="git revision of the baseline code")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--smoke", action="store_true",
                    help="1,000 items x 20 known models, one repeat (that it runs)")  # fmt: skip
    a = ap.parse_args()
    run(a.selector, a.baseline, 1 if a.smoke else a.repeats, a.smoke)
