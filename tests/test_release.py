"""A releasable package (issue 46): an OSI license, a citation file that cites the software and
the four papers it reproduces, one version (evalsci.__version__) that pyproject, `evalsci
--version`, CITATION.cff and the changelog all show."""

from __future__ import annotations

import re
import subprocess
import sys

import tomllib
import yaml

import evalsci

from conftest import REPO

STUDIES = {  # study -> (family names of the paper's authors, a word of its title)
    "baselines": ({"Yauney", "Mimno"}, "Stronger Random Baselines"),
    "tapt": ({"Dubey"}, "task-adaptive pretraining"),
    "assessors": ({"Pacchiardi", "Cheke", "Hernández-Orallo"}, "100 instances"),
    "mc_icl": ({"Schoch", "Ji"}, "Monte Carlo Sampling"),
}


def test_the_license_is_mit_and_pyproject_says_so():
    text = (REPO / "LICENSE").read_text()
    assert text.startswith("MIT License") and "WITHOUT WARRANTY OF ANY KIND" in text
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]


def test_one_version():
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert "version" not in pyproject["project"] and pyproject["project"]["dynamic"] == ["version"]
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "evalsci.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", evalsci.__version__)
    cli = subprocess.run(
        [sys.executable, "-m", "evalsci.cli", "--version"], capture_output=True, text=True
    )
    assert cli.returncode == 0 and cli.stdout.strip() == f"evalsci {evalsci.__version__}"
    cff = yaml.safe_load((REPO / "CITATION.cff").read_text())
    assert str(cff["version"]) == evalsci.__version__
    newest = re.search(r"^## \[(\d+\.\d+\.\d+)\]", (REPO / "CHANGELOG.md").read_text(), re.M)
    assert newest and newest[1] == evalsci.__version__


def test_the_citation_cites_the_software_and_the_four_papers():
    cff = yaml.safe_load((REPO / "CITATION.cff").read_text())
    assert cff["cff-version"] == "1.2.0" and cff["type"] == "software"
    assert cff["license"] == "MIT" and cff["title"] and cff["authors"] and cff["message"]
    refs = cff["references"]
    assert len(refs) == len(STUDIES)
    for study, (authors, title) in STUDIES.items():
        (ref,) = [r for r in refs if f"`{study}`" in r.get("notes", "")]
        assert ref["type"] == "article" and title.lower() in ref["title"].lower(), ref
        assert {a["family-names"] for a in ref["authors"]} == authors, ref
