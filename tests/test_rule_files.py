"""The rule files keep their conventions (docs/workflow.md, Layout): named input
functions, not lambdas; one helper for the maxrandom exchange files; each study's helpers in
its one <study>_common.smk, named <STUDY>_ (constants), <study>_ (functions) or _<study>_
(evalsci imports); no other rule file defines a function."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "workflow" / "rules"
STUDIES = ("baselines", "tapt", "assessors", "mc_icl", "audit")
FILES = [ROOT / "Snakefile", *sorted(RULES.glob("*.smk"))]


def _code(path: Path) -> str:
    """The file without comments (a comment may describe a path or a lambda)."""
    return "\n".join(line.split("#", 1)[0] for line in path.read_text().splitlines())


def test_no_lambdas():
    bad = [p.name for p in FILES if re.search(r"\blambda\b", _code(p))]
    assert not bad, f"use a named input function in <study>_common.smk: {bad}"


def test_the_maxrandom_files_are_named_by_one_helper():
    bad = [p.name for p in FILES if p.name != "common.smk" and re.search(r"/maxrandom/", _code(p))]
    assert not bad, f"use maxrandom_file(study, name) from common.smk: {bad}"


def test_one_common_file_per_study_and_functions_only_there():
    for study in STUDIES:
        assert (RULES / f"{study}_common.smk").is_file(), study
    commons = {f"{s}_common.smk" for s in STUDIES} | {"common.smk"}
    bad = [p.name for p in FILES if p.name not in commons and re.search(r"^def ", _code(p), re.M)]
    assert not bad, f"functions belong in the study's <study>_common.smk: {bad}"


def test_a_studys_helpers_carry_its_name():
    for study in STUDIES:
        text = _code(RULES / f"{study}_common.smk")
        names = re.findall(r"^(?:def |)([A-Za-z_]\w*)(?:\(| =)", text, re.M)
        names += re.findall(r"^from \S+ import (?:\S+ as )?(\w+)", text, re.M)
        names += re.findall(r"^import (\w+)", text, re.M)
        ok = (f"{study.upper()}_", f"{study}_", f"_{study}_", f"_{study.upper()}_")
        # the study's config section is <STUDY> itself; `re` is the standard module
        bad = [n for n in names if not n.startswith(ok) and n not in (study.upper(), "re")]
        assert not bad, f"{study}_common.smk: helpers not named for the study: {bad}"


def test_parse_time_side_effects_are_setup_smks_alone():
    """Issue 33: sys.path, the environment and the config change in one place a reader finds,
    workflow/rules/setup.smk, which the Snakefile includes before any other rule file."""
    effect = re.compile(
        r"\bsys\.path\.|os\.environ\[.*\]\s*=|os\.environ\.(?:setdefault|update|pop)"
        r"|^config\[.*\]\s*=|\bconfig\.(?:update|clear|pop|setdefault)\("
        r"|\bapply_portable\(|\bprepend_pythonpath\(",
        re.M,
    )
    bad = [p.name for p in FILES if p.name != "setup.smk" and effect.search(_code(p))]
    assert not bad, f"parse-time side effects belong in setup.smk: {bad}"
    includes = re.findall(r'^include: "workflow/rules/(\w+)\.smk"', _code(ROOT / "Snakefile"), re.M)
    assert includes[0] == "setup", includes
