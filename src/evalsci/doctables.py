"""Generated "ours vs the paper" tables in docs/ (showyourwork's rule: no number typed by hand).

Each block is a function from result files (and the studies' reference.yaml) to Markdown,
registered with `@block`. In its doc, a block sits between two markers:

    <!-- generated:baselines_table1:start -->
    ...  (written by rule docs_tables; do not edit)
    <!-- generated:baselines_table1:end -->

Rule `docs_tables` renders every block from the workflow's results and writes it into its doc;
tests fail when a doc's block differs from what the results give. To add a block (another study,
an audit), write a renderer in your own module and decorate it:

    from evalsci.doctables import block

    @block("audit_summary", doc="docs/audit.md", inputs=["results/audit/tables/summary.csv"])
    def _audit_summary(paths):          # {input: Path} -> Markdown
        ...

and add the module to `PLUGINS` below so the rule and the tests see it.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from evalsci import reference

#: modules that register blocks besides this one (imported by `blocks()`)
PLUGINS: tuple[str, ...] = (
    "evalsci.studies.audit.findings",
    "evalsci.studies.mc_icl.tables",
    "evalsci.studies.baselines.table2",
)


@dataclass(frozen=True)
class Block:
    name: str
    doc: str
    inputs: tuple[str, ...]
    render: Callable[[dict[str, Path]], str]
    # made only by our own inference (the study's recompute path), not from released data
    recompute: bool = False

    def markers(self) -> tuple[str, str]:
        return (f"<!-- generated:{self.name}:start -->", f"<!-- generated:{self.name}:end -->")


_BLOCKS: dict[str, Block] = {}


def block(name: str, doc: str, inputs, recompute: bool = False) -> Callable:
    """Register a renderer `fn(paths: {input: Path}) -> str` as the block `name` of `doc`;
    `recompute`: its inputs exist only when the study recomputes (rule docs_tables skips it
    otherwise)."""

    def register(fn):
        if name in _BLOCKS and _BLOCKS[name].render is not fn:
            raise ValueError(f"doc block {name!r} is registered twice")
        _BLOCKS[name] = Block(name, doc, tuple(inputs), fn, recompute)
        return fn

    return register


def blocks() -> dict[str, Block]:
    for mod in PLUGINS:
        importlib.import_module(mod)
    return dict(_BLOCKS)


def render(b: Block, root: str | Path = ".") -> str:
    """The block's Markdown from the result files under `root` (a workflow's workdir)."""
    paths = {i: Path(root) / i for i in b.inputs}
    missing = [str(p) for p in paths.values() if not p.is_file()]
    if missing:
        raise FileNotFoundError(f"doc block {b.name}: missing result file(s) {missing}")
    text = b.render(paths)
    return text if text.endswith("\n") else text + "\n"


def current(b: Block, doc_root: str | Path = ".") -> str:
    """The block as it stands in its doc (between its markers)."""
    path = Path(doc_root) / b.doc
    start, end = b.markers()
    m = re.search(re.escape(start) + r"\n(.*?)" + re.escape(end), path.read_text(), re.S)
    if not m:
        raise ValueError(f"{path}: markers of doc block {b.name!r} not found ({start})")
    return m.group(1)


def write(b: Block, content: str, doc_root: str | Path = ".") -> bool:
    """Put `content` between the block's markers in its doc; True when the doc changed."""
    path = Path(doc_root) / b.doc
    start, end = b.markers()
    text = path.read_text()
    current(b, doc_root)  # markers present, else a clear error
    new = re.sub(
        re.escape(start) + r"\n.*?" + re.escape(end),
        lambda _: f"{start}\n{content}{end}",
        text,
        count=1,
        flags=re.S,
    )
    if new != text:
        path.write_text(new)
    return new != text


# ----------------------------------------------------------------------------- formatting
def _md(df: pd.DataFrame) -> str:
    head = "| " + " | ".join(df.columns) + " |"
    sep = "| " + " | ".join("---" for _ in df.columns) + " |"
    rows = ["| " + " | ".join(str(v) for v in r) + " |" for r in df.itertuples(index=False)]
    return "\n".join([head, sep, *rows]) + "\n"


def _pct(num: int, den: int) -> str:
    return f"{100 * num / den:.1f}%"


# ------------------------------------------------------------------------------ baselines
@block(
    "baselines_table1",
    doc="docs/baselines.md",
    inputs=[
        "results/baselines/tables/table1.csv",
        "results/baselines/tables/table3.csv",
        "results/baselines/tables/section53.csv",
    ],
)
def _baselines_table1(paths) -> str:
    t1 = pd.read_csv(paths["results/baselines/tables/table1.csv"])
    ref = reference.load("baselines")
    above_std = int(t1["verdict"].isin(["above_standard_only", "above_both"]).sum())
    above_max = int((t1["verdict"] == "above_both").sum())
    dis = above_std - above_max
    p = ref["table1"]
    rows = [
        [
            "Table 1 (288 experiments): above standard / above max / disagreements",
            f"{len(t1)}: {above_std} / {above_max} / {dis} ({_pct(dis, above_std)})",
            f"{p['experiments']}: {p['above_standard']} / {p['above_max']} / "
            f"{p['disagreements']} ({p['percent_flipped']:.1f}%)",
        ]
    ]
    t3 = pd.read_csv(paths["results/baselines/tables/table3.csv"]).set_index("model").loc["Total"]

    def trio(kind, suffix=""):
        return " / ".join(f"{t3[f'{m}_{kind}{suffix}']:.2f}" for m in ("accuracy", "auroc", "aupr"))

    rows.append(
        [
            "Table 3 total, accuracy / AUROC / AUPR: standard; max",
            f"{trio('standard')}; {trio('max')}",
            f"{trio('standard', '_paper')}; {trio('max', '_paper')}",
        ]
    )
    s53 = pd.read_csv(paths["results/baselines/tables/section53.csv"])
    for _, r in s53[s53["experiments_paper"].notna()].iterrows():
        rows.append(
            [
                f"Sec. 5.3 {r['suite']} ({r['protocol']}): experiments, above standard, "
                "above max (% flipped)",
                f"{r['experiments']}, {r['above_standard']}, {r['above_max']} "
                f"({r['percent_flipped']:.1f}%)",
                f"{int(r['experiments_paper'])}, {int(r['above_standard_paper'])}, "
                f"{int(r['above_max_paper'])} ({r['percent_flipped_paper']:.1f}%)",
            ]
        )
    return _md(pd.DataFrame(rows, columns=["artefact", "ours", "paper"]))


@block("baselines_quirks", doc="docs/baselines.md", inputs=["results/baselines/checks/quirks.md"])
def _baselines_quirks(paths) -> str:
    """What rule baselines_make_per_example_check finds in the released data (its quirks.md
    without the headings)."""
    text = paths["results/baselines/checks/quirks.md"].read_text()
    body = "\n".join(line for line in text.splitlines() if not line.startswith("#"))
    return re.sub(r"\n{3,}", "\n\n", body).strip() + "\n"


# ----------------------------------------------------------------------------------- tapt
@block(
    "tapt_table1",
    doc="docs/tapt.md",
    inputs=["results/tapt/tables/table1.csv", "results/tapt/tables/task_level.csv"],
)
def _tapt_table1(paths) -> str:
    """Table 1 (16 cells) and the Section 7 task-level claims, ours against the paper."""
    t = pd.read_csv(paths["results/tapt/tables/table1.csv"])
    conc = reference.load("tapt")["conclusions"]

    def cell(ours, paper):
        # ours to 3 decimals; the paper's value as printed
        return (
            f"{100 * ours:.3f}% ({round(100 * paper, 4):g}%)"
            if pd.notna(paper)
            else f"{100 * ours:.3f}%"
        )

    out = pd.DataFrame(
        {
            "m": t["m"],
            "n": t["n"],
            "LM": t["lm"],
            "boost, ours (paper)": [
                cell(o, p) for o, p in zip(t["boost_mean"], t["boost_paper"], strict=True)
            ],
            "bias, ours (paper)": [
                cell(o, p) for o, p in zip(t["bias_mean"], t["bias_paper"], strict=True)
            ],
        }
    )
    tl = pd.read_csv(paths["results/tapt/tables/task_level.csv"])
    neg = tl[tl["boost"] < 0].sort_values("dataset")
    ref_neg, ref_sign = conc["task_boost_negative"], conc["task_bias_sign"]
    lines = [
        _md(out),
        f"Section 7 (per task, averaged over every (m, n, LM)): tasks with boost < 0: "
        f"{', '.join(neg['dataset'])} (smallest {100 * neg['boost'].min():.2f}%); paper: "
        f"{', '.join(ref_neg['tasks'])}, both above {100 * ref_neg['min']:.0f}%. Bias signs: "
        f"{int((tl['bias'] > 0).sum())} positive, {int((tl['bias'] < 0).sum())} negative, "
        f"{int((tl['bias'] == 0).sum())} zero, max |bias| {100 * tl['bias'].abs().max():.2f}%; "
        f"paper: {ref_sign['positive']} / {ref_sign['negative']}, all "
        f"< {100 * ref_sign['max_abs']:.0f}%.",
    ]
    return "\n".join(lines)


@block(
    "tapt_beta_posteriors", doc="docs/tapt.md", inputs=["results/tapt/tables/beta_posteriors.csv"]
)
def _tapt_beta(paths) -> str:
    t = pd.read_csv(paths["results/tapt/tables/beta_posteriors.csv"])

    def pct(v):
        return f"{100 * v:+.2f}%"

    out = pd.DataFrame(
        {
            "configuration": t["config"],
            "comparison": t["comparison"],
            "variant": t["variant"],
            "beta mean [89% HDI]": [
                f"{m:.3f} [{lo:.3f}, {hi:.3f}]"
                for m, lo, hi in zip(t["mean"], t["hdi_5.5"], t["hdi_94.5"], strict=True)
            ],
            "average difference [89% HDI]": [
                f"{pct(m)} [{pct(lo)}, {pct(hi)}]"
                for m, lo, hi in zip(
                    t["ppd_mean"], t["ppd_hdi_5.5"], t["ppd_hdi_94.5"], strict=True
                )
            ],
            "draws/chain": t["draws_per_chain"].map(lambda v: f"{int(v):,}"),
            "checks": t["diagnostics_ok"].map({True: "pass", False: "fail"}),
        }
    )
    return _md(out)


@block(
    "tapt_comparisons",
    doc="docs/tapt.md",
    inputs=[
        "results/tapt/tables/permutation_tests.csv",
        "results/tapt/tables/meta_analysis.csv",
        "results/tapt/tables/recovery.csv",
        "results/tapt/tables/pca.csv",
    ],
)
def _tapt_comparisons(paths) -> str:
    """Permutation tests (App. D.1, Sec. 8, 9), meta-analysis (Sec. 10), recovery (App. E.1)
    and PCA (App. G), ours against the paper's statements in reference.yaml."""
    conc = reference.load("tapt")["conclusions"]
    tests = pd.read_csv(paths["results/tapt/tables/permutation_tests.csv"])

    def family(config_pred, comparison, alternative):
        return tests[
            tests["config"].map(config_pred)
            & (tests["comparison"] == comparison)
            & (tests["alternative"] == alternative)
        ]

    rows = []
    main = family(lambda c: c.startswith("m"), "bias", "greater")
    n_cells = main.groupby(["config", "lm"]).ngroups
    alpha = conc["permutation_main"]["alpha"]
    rows.append(
        [
            f"App. D.1: main permutation tests ({n_cells} (m, n, LM) x "
            f"{main['dataset'].nunique()} tasks, H1 bias > 0, BH)",
            f"{int((main['p_adjusted'] < alpha).sum())} significant at {alpha}",
            f"{conc['permutation_main']['significant']} significant",
        ]
    )
    over = family(lambda c: "epochs" in c, "bias", "greater")
    ref_over = conc["permutation_overtraining"]
    named = over[over["config"].isin(ref_over["configs"])]
    mins = named.groupby("config", sort=False)["p_adjusted"].min().reindex(ref_over["configs"])
    rows.append(
        [
            f"Sec. 8: overtraining, {' and '.join(ref_over['configs'])} (BH): smallest "
            "adjusted p; raw p < 0.05",
            "; ".join(f"{p:.2f}" for p in mins) + "; "
            f"{int((named['p_value'] < 0.05).sum())} raw p < 0.05, "
            f"{int((named['p_adjusted'] < alpha).sum())} significant",
            f"all adjusted p > {ref_over['min_p_adjusted']}",
        ]
    )
    others = over[~over["config"].isin(ref_over["configs"]) & (over["p_adjusted"] < alpha)]
    rows.append(
        [
            "Sec. 8: the other overtraining configurations, BH-significant tasks",
            ", ".join(
                f"{r.config} {r.dataset} (adjusted p {r.p_adjusted:.2f})"
                for r in others.itertuples()
            )
            or "none",
            "not discussed",
        ]
    )
    fn4 = conc["overtraining_boost_negative_tests"]
    neg = family(lambda c: c == fn4["config"], "boost", "less")
    rows.append(
        [
            f"Sec. 8 footnote 4: {fn4['config']}, H1 boost < 0",
            f"{int((neg['p_value'] < fn4['alpha']).sum())} of {len(neg)} raw p < {fn4['alpha']}",
            f"{fn4['count']} of 25",
        ]
    )
    zs = conc["zero_shot_tasks"]
    z = family(lambda c: c == zs["config"], "bias", "greater")
    rows.append(
        [
            f"Sec. 9: zero-shot ({zs['config']}) bias per task: positive / negative / 0; "
            "smallest adjusted p",
            f"{int((z['mean_diff'] > 0).sum())} / {int((z['mean_diff'] < 0).sum())} / "
            f"{int((z['mean_diff'] == 0).sum())}; {z['p_adjusted'].min():.2f}",
            f"{zs['positive']} / {zs['negative']} / 0; all > {zs['min_p_adjusted']}",
        ]
    )
    meta = pd.read_csv(paths["results/tapt/tables/meta_analysis.csv"])
    ref_meta = {r[0]: r for r in conc["meta_analysis"]["rows"]}
    for r in meta.itertuples():
        paper = ref_meta.get(r.config)
        rows.append(
            [
                f"Sec. 10 meta-analysis, {r.config}, P(\\|mean of beta\\| > {r.threshold:g})",
                f"{r.p_outside:.2f} ({int(r.n_slices)} slices)",
                f"{paper[3]:.2f} (500 slices)" if paper else "n/a",
            ]
        )
    rec = pd.read_csv(paths["results/tapt/tables/recovery.csv"])
    rows.append(
        [
            "App. E.1 recovery: true beta -> posterior mean [89% HDI]",
            "; ".join(
                f"{t:g} -> {m:.3f} [{lo:.3f}, {hi:.3f}]"
                for t, m, lo, hi in zip(
                    rec["beta_true"], rec["mean"], rec["hdi_5.5"], rec["hdi_94.5"], strict=True
                )
            ),
            "both recovered (Figure 8)",
        ]
    )
    pca = pd.read_csv(paths["results/tapt/tables/pca.csv"])
    lo_n, hi_n = pca["n"].min(), pca["n"].max()
    ranks = sorted(pca["effective_rank"].unique())

    def by_rank(n):
        b = pca[pca["n"] == n].set_index("effective_rank")["bias_mean"]
        return ", ".join(f"{b[k]:.3f}" for k in ranks)

    rows.append(
        [
            f"App. G PCA: mean bias at effective rank {', '.join(map(str, ranks))}",
            f"n = {lo_n}: {by_rank(lo_n)}; n = {hi_n}: {by_rank(hi_n)}",
            f'"{conc["pca"]["text"]}"',
        ]
    )
    return _md(pd.DataFrame(rows, columns=["artefact", "ours", "paper"]))


# ------------------------------------------------------------------------------ assessors
ASSESSOR_COLLECTIONS = ("cfi_ground_truth", "predictaboard")
_METHOD_ORDER = ("specific", "generic", "random_selector", "reference_only", "all_train")


def _assessors_figure2(collection: str):
    fig2 = f"results/assessors/{collection}/tables/figure2.csv"
    base = "results/assessors/maxrandom/baselines.csv"

    def render_block(paths) -> str:
        from evalsci.studies.assessors.maxrandom_requests import read_answers

        d = pd.read_csv(paths[fig2])
        mean = d.groupby(["split", "method"], sort=False)["auc"].mean().unstack("method")
        mean = mean[[m for m in _METHOD_ORDER if m in mean.columns]]
        mr = read_answers(paths[base])
        mr = mr[
            (mr["collection"] == collection)
            & (mr["search"] == "generic")
            & (mr["eval_set"] == "test")
        ]
        t = sorted(set(mr["t"].astype(int)))
        col = f"max random (t={t[0]})" if len(t) == 1 else "max random"
        mean[col] = mr.groupby("split")["expected_max"].mean().reindex(mean.index)
        out = mean.reset_index().rename(columns={m: m.replace("_", " ") for m in _METHOD_ORDER})
        for c in out.columns[1:]:
            out[c] = out[c].map(lambda v: f"{v:.3f}" if pd.notna(v) else "n/a")
        return _md(out)

    return block(f"assessors_figure2_{collection}", doc="docs/assessors.md", inputs=[fig2, base])(
        render_block
    )


for _c in ASSESSOR_COLLECTIONS:
    _assessors_figure2(_c)


@block("assessors_table3", doc="docs/assessors.md", inputs=["results/assessors/tables/table3.csv"])
def _assessors_table3(paths) -> str:
    t = pd.read_csv(paths["results/assessors/tables/table3.csv"], keep_default_na=False)
    cols = [
        "collection",
        "split",
        "features",
        "selector",
        "classifier",
        "val_auc_mean",
        "max_random_val_auc",
        "features_paper",
        "selector_paper",
        "classifier_paper",
    ]
    out = t[[c for c in cols if c in t.columns]].copy()
    for c in ("val_auc_mean", "max_random_val_auc"):
        if c in out:
            out[c] = out[c].map(lambda v: f"{float(v):.3f}" if v != "" else "n/a")
    return _md(
        out.rename(columns={"val_auc_mean": "val AUC", "max_random_val_auc": "max random val AUC"})
    )


def _figure2_means(path, baselines, collection: str) -> pd.DataFrame:
    """Mean test AUC over the test LLMs per (split, method), with the max random line (the
    expected best of t random scorers on the test LLMs' test sets) as column `max_random`."""
    from evalsci.studies.assessors.maxrandom_requests import read_answers

    d = pd.read_csv(path)
    mean = d.groupby(["split", "method"], sort=False)["auc"].mean().unstack("method")
    mr = read_answers(baselines)
    mr = mr[
        (mr["collection"] == collection) & (mr["search"] == "generic") & (mr["eval_set"] == "test")
    ]
    mean["max_random"] = mr.groupby("split")["expected_max"].mean().reindex(mean.index)
    return mean


@block(
    "assessors_findings",
    doc="docs/assessors.md",
    inputs=[
        *(f"results/assessors/{c}/tables/figure2.csv" for c in ASSESSOR_COLLECTIONS),
        "results/assessors/maxrandom/baselines.csv",
        "results/assessors/tables/table3.csv",
    ],
)
def _assessors_findings(paths) -> str:
    """The numbers behind "Against the paper's findings": per collection, in distribution
    (split `random`) and out of distribution (the held-out-dataset splits)."""
    base = paths["results/assessors/maxrandom/baselines.csv"]
    t3 = pd.read_csv(paths["results/assessors/tables/table3.csv"], keep_default_na=False)
    findings = reference.load("assessors")["findings"]
    rows = {}
    for c in ASSESSOR_COLLECTIONS:
        m = _figure2_means(paths[f"results/assessors/{c}/tables/figure2.csv"], base, c)
        ind, ood = m.loc["random"], m.drop(index="random")
        win = t3[t3["collection"] == c].set_index("split")
        best = ood.drop(columns="max_random").max(axis=1)

        def f3(v):
            return f"{v:.3f}" if pd.notna(v) else "n/a"

        rows[c] = {
            "in distribution: generic / specific / all train / reference only / random "
            "selector": " / ".join(
                f3(ind.get(k))
                for k in ("generic", "specific", "all_train", "reference_only", "random_selector")
            ),
            "in distribution: max random line (test); chosen combination's validation AUC vs "
            "max random validation AUC": f"{f3(ind['max_random'])}; {f3(float(win.loc['random', 'val_auc_mean']))} vs "
            f"{f3(float(win.loc['random', 'max_random_val_auc']))}",
            "random selector >= generic (splits)": f"{int((m['random_selector'] >= m['generic']).sum())} of {len(m)}",
            "Table 3 winning selectors (splits)": ", ".join(
                f"{k} {v}" for k, v in win["selector"].value_counts().items()
            ),
            "Table 3 winning features (splits)": ", ".join(
                f"{k} {v}" for k, v in win["features"].value_counts().items()
            ),
            "out of distribution: range of the methods' mean test AUC": f"{ood.drop(columns='max_random').min().min():.3f}-"
            f"{ood.drop(columns='max_random').max().max():.3f} (in distribution "
            f"{ind.drop('max_random').min():.3f}-{ind.drop('max_random').max():.3f})",
            "out of distribution: splits whose best method is below the max random line": f"{int((best < ood['max_random']).sum())} of {len(ood)}",
            "out of distribution: splits where the specific assessor is below 0.5": f"{int((ood['specific'] < 0.5).sum())} of {len(ood)}",
            "out of distribution: chosen combinations' validation AUC": f"{win.drop(index='random')['val_auc_mean'].astype(float).min():.3f}-"
            f"{win.drop(index='random')['val_auc_mean'].astype(float).max():.3f}",
        }
    out = pd.DataFrame(rows).rename_axis("").reset_index()
    paper = "\n".join(
        f'- {k.replace("_", " ")}: "{v}"' for k, v in findings.items() if k != "source"
    )
    return _md(out) + f"\nThe paper ({findings['source']}):\n\n" + paper + "\n"


NREF_FIGURES = {"cfi_ground_truth": "figure8", "predictaboard": "figure9"}


@block(
    "assessors_nref",
    doc="docs/assessors.md",
    inputs=[f"results/assessors/{c}/tables/{f}.csv" for c, f in NREF_FIGURES.items()],
)
def _assessors_nref(paths) -> str:
    """Mean AUC of the generic assessor against n_ref, in distribution (split `random`) and
    out of distribution (mean over the OOD splits), on validation and test LLMs."""
    rows = []
    for c, f in NREF_FIGURES.items():
        d = pd.read_csv(paths[f"results/assessors/{c}/tables/{f}.csv"])
        d = d.assign(
            where=d["split"].map(
                lambda s: "in distribution" if s == "random" else "out of distribution"
            )
        )
        m = d.groupby(["where", "eval_set", "n_ref"])["auc"].mean().unstack("n_ref")
        for (where, eval_set), r in m.iterrows():
            rows.append(
                {
                    "collection (figure)": f"{c} ({f})",
                    "splits": where,
                    "LLMs": eval_set,
                    **{f"n_ref={k}": f"{v:.2f}" for k, v in r.items()},
                }
            )
    return _md(pd.DataFrame(rows).fillna("n/a"))


def buildable(studies, collections, recomputing=()) -> list[str]:
    """Names of the blocks whose result files this configuration makes: every input under
    `results/<study>/` of an enabled study, and, for assessors, of an enabled collection;
    a recompute-only block only when its study is in `recomputing`."""

    def ok(path: str) -> bool:
        parts = path.split("/")
        if parts[0] != "results" or parts[1] not in studies:
            return False
        return (
            parts[1] != "assessors"
            or parts[2] in ("tables", "maxrandom")
            or parts[2] in collections
        )

    def wanted(b: Block) -> bool:
        return not b.recompute or all(i.split("/")[1] in recomputing for i in b.inputs)

    return sorted(n for n, b in blocks().items() if all(ok(i) for i in b.inputs) and wanted(b))


def write_all(
    results_root: str | Path, doc_root: str | Path, out: str | Path, names=None
) -> list[str]:
    """Render the blocks `names` (default: all) from `results_root`, write each into its doc
    under `doc_root`, and all of them to `out` (the rule's output). Returns the names of the
    blocks whose doc changed."""
    from evalsci.workflow import atomic_path

    every = blocks()
    changed, parts = [], []
    for name in sorted(every if names is None else names):
        b = every[name]
        content = render(b, results_root)
        parts.append(f"## {name} ({b.doc})\n\n{content}")
        if write(b, content, doc_root):
            changed.append(name)
    with atomic_path(out) as tmp:
        tmp.write_text("\n".join(parts))
    print("changed:", changed or "none")
    return changed
