"""The one adapter (workflow/scripts/call.py, evalsci.pipeline.jobs.call): every rule that runs it
names a function of the package whose parameters are the rule's names, has that function's
module as its input `code` (so that editing the module reruns the rule), and the registry names
the same function for the artefacts the rule makes (issue 33)."""

from __future__ import annotations

import inspect
from pathlib import Path
from types import SimpleNamespace

import pytest

from evalsci.pipeline import artefacts
from evalsci.pipeline.jobs import (
    CODE,
    FUNCTION,
    THREADS,
    call,
    module_of,
    recorded,
    rule_arguments,
    rule_function,
    rule_names,
)

from conftest import python_json

ROOT = Path(__file__).resolve().parents[1]
ADAPTER = ROOT / artefacts.ADAPTER
# Studies whose every rule runs through the adapter: all of them.
CONVERTED = ("baselines", "audit", "mc_icl", "assessors", "tapt")


@pytest.fixture(scope="module")
def rules(workflow_rules):
    return workflow_rules


def _called(rules):
    return [r for r in rules if r.script and Path(r.script).name == ADAPTER.name]


def test_the_studies_converted_run_every_rule_through_the_adapter(rules):
    for study in CONVERTED:
        mine = [r for r in rules if r.name.startswith(f"{study}_") and r.has_output]
        own = [r.name for r in mine if r not in _called(rules)]
        assert mine and not own, f"{study}: rules with a script of their own: {own}"
    left = {p.name for p in (ROOT / "workflow/scripts").glob("*.py")}
    assert not [n for n in left if n.startswith(CONVERTED)], "a converted study's script is left"


def test_every_called_function_takes_its_rules_names(rules):
    called, checked = _called(rules), 0
    for r in called:
        assert CODE in r.input and FUNCTION in r.params, r.name
        fn = rule_function(r.code, r.function)
        params = inspect.signature(fn).parameters
        names = rule_names(r.input, r.output, r.params)
        extra = any(p.kind is p.VAR_KEYWORD for p in params.values())
        unknown = [n for n in names if n not in params]
        assert extra or not unknown, f"rule {r.name}: {fn.__name__} takes no {unknown}"
        given = {*names, *r.wildcards, THREADS}
        if r.unpack:  # an input function names the rest per job; call() binds them then
            continue
        missing = [
            n
            for n, p in params.items()
            if p.default is p.empty
            and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)
            and n not in given
        ]
        assert not missing, f"rule {r.name} gives {fn.__name__} no {missing}"
        checked += 1
    assert checked >= 12


def test_the_code_input_is_the_functions_module(rules):
    for r in _called(rules):
        fn = rule_function(r.code, r.function)
        assert fn.__module__ == module_of(r.code), r.name
        assert Path(r.code).is_file() and Path(r.code).is_absolute(), r.name


def test_the_registry_names_the_function_its_rule_runs(rules):
    by_name = {r.name: r for r in rules}
    checked = 0
    for a in artefacts.artefacts():
        if a.build == "not_reproducible":
            continue
        r = by_name[a.rule]
        assert r in _called(rules), f"{a.id}: rule {a.rule} does not run the adapter"
        assert f"{module_of(r.code)}.{r.function}" == a.function, a.id
        checked += 1
    assert checked >= 12


def _job(tmp_path, fn_name, **named):
    """A stand-in for the `snakemake` object a script job gets: named inputs, outputs, params
    and wildcards, as Snakemake's Namedlist holds them."""
    from snakemake.iocontainers import InputFiles, OutputFiles, Params, Wildcards

    def namedlist(cls, items):
        out = cls()
        for name, value in items.items():
            out.append(value)
            out._add_name(name)
        return out

    return SimpleNamespace(
        rule="demo",
        input=namedlist(InputFiles, {CODE: str(ROOT / "src/evalsci/tables.py"), **named["i"]}),
        output=namedlist(OutputFiles, named["o"]),
        params=namedlist(Params, {FUNCTION: fn_name, **named.get("p", {})}),
        wildcards=namedlist(Wildcards, named.get("w", {})),
        threads=1,
        log=[str(tmp_path / "demo.log")],
    )


def test_call_passes_the_names_and_names_a_mismatch(tmp_path):
    import pandas as pd

    csv = tmp_path / "t.csv"
    pd.DataFrame({"a": [1]}).to_csv(csv, index=False)
    # evalsci.tables.write_table(df, outputs, ...): a rule whose names do not fit fails, naming
    # the rule and the function, before the function runs
    job = _job(tmp_path, "write_table", i={"table": str(csv)}, o={"outputs": str(tmp_path / "x")})
    with pytest.raises(TypeError, match=r"rule demo: evalsci\.tables\.write_table"):
        call(job)
    assert "rule demo" in (tmp_path / "demo.log").read_text()
    with pytest.raises(ValueError, match="repeats the input"):
        rule_names(["code", "x"], ["x"], ["function"])


def test_snakemake_records_every_rule_param(rules):
    """Snakemake reruns a job whose params changed, but records a param only when it is of a
    builtin type: a settings object (a frozen dataclass) given as is is dropped without a word,
    and a changed setting reruns nothing. Every rule's params are recorded (a settings object
    through `recorded`); a function of the wildcards is known per job and left out."""
    bad = {r.name: r.unrecorded for r in rules if r.unrecorded}
    assert not bad, f"params Snakemake would not record (wrap them in recorded()): {bad}"
    assert sum(1 for r in rules if r.params) >= 40  # the check saw the rules' params


# Every job of the default DAG (or of the recompute one), its params evaluated as Snakemake
# evaluates them per job (a function of the wildcards too), through Snakemake's own serializer.
_JOB_PARAMS = """
import contextlib, io, json, sys, tempfile
from pathlib import Path
from snakemake.api import SnakemakeApi
from snakemake.persistence import PersistenceBase
from snakemake.settings.types import ConfigSettings, DAGSettings, OutputSettings, ResourceSettings

config = json.loads(sys.argv[2])
with SnakemakeApi(OutputSettings()) as api:
    wf = api.workflow(
        ResourceSettings(cores=1),
        config_settings=ConfigSettings(config=config),
        snakefile=Path(sys.argv[1]),
        workdir=Path(tempfile.mkdtemp()),
    )
    with contextlib.redirect_stdout(io.StringIO()):
        wf.dag(DAGSettings()).summary()
    jobs = list(wf._workflow.dag.jobs)
    bad = sorted({
        f"{j.rule.name}.{k}: {type(v).__name__}"
        for j in jobs for k, v in j.params.items()
        if not isinstance(PersistenceBase._serialize_param_builtin(None, v), str)
    })
print(json.dumps({"jobs": len(jobs), "unrecorded": bad}))
"""


@pytest.mark.parametrize("config", [{}, {"recompute": True}], ids=["default", "recompute"])
def test_snakemake_records_every_param_of_every_job(config, mirror, tmp_path):
    """The same per job, where a param may be a function of the wildcards (assessors'
    `collection`: a Collection object, which Snakemake dropped)."""
    import json
    import os

    got = python_json(
        _JOB_PARAMS,
        str(ROOT / "Snakefile"),
        json.dumps(config),
        env={**os.environ, "EVALSCI_MIRROR": str(mirror)},
        cwd=tmp_path,
    )
    assert got["jobs"] >= 100, got
    assert not got["unrecorded"], f"params Snakemake would not record: {got['unrecorded']}"


def test_a_recorded_param_changes_with_its_object_and_reaches_the_function_as_itself():
    """The record is the object's repr (every field, nested ones too): it changes when a
    setting changes, survives the pickle into the job's script, and the function gets the
    object, not the wrapper."""
    import dataclasses
    import pickle

    from snakemake.iocontainers import InputFiles, OutputFiles, Params
    from snakemake.persistence import PersistenceBase

    from evalsci.studies.mc_icl.params import McIclSettings, Selection

    def record(value):  # Snakemake's own serializer of its params record
        return PersistenceBase._serialize_param_builtin(None, value)

    sel = Selection(models=("m",), datasets=("d",), set_size=1, z_threshold=1.0)
    s = McIclSettings("default", ("m",), ("d",), 3, 2, 2, 4, sel, "d", "d", False)
    nested = dataclasses.replace(s, selection=dataclasses.replace(sel, z_threshold=1.5))
    assert not isinstance(record(s), str)  # as is: dropped from the record
    assert isinstance(record(recorded(s)), str)
    assert record(recorded(s)) == record(recorded(dataclasses.replace(s)))
    assert record(recorded(s)) != record(recorded(dataclasses.replace(s, num_eval=5)))
    assert record(recorded(s)) != record(recorded(nested))  # a nested field counts
    back = pickle.loads(pickle.dumps(recorded(s)))
    assert back.value == s and record(back) == record(recorded(s))

    params = Params()
    params.append(back)
    params._add_name("params")
    job = SimpleNamespace(
        input=InputFiles(), output=OutputFiles(), params=params, wildcards={}, threads=1
    )
    assert rule_arguments(job, {"params": None}) == {"params": s}


def test_module_of_names_a_file_outside_the_package(tmp_path):
    assert module_of(ROOT / "src/evalsci/studies/baselines/steps.py") == (
        "evalsci.studies.baselines.steps"
    )
    with pytest.raises(ValueError, match="not a module of the evalsci package"):
        module_of(tmp_path / "x.py")


def test_a_converted_studys_rule_files_spell_no_path():
    """A converted study's rules name entries of its plan (evalsci.studies.<study>.plan,
    evalsci.audit.plan): its rule files spell no path of their own."""
    import re

    for study in CONVERTED:
        files = sorted((ROOT / "workflow/rules").glob(f"{study}*.smk"))
        assert files, study
        for smk in files:
            code = "\n".join(line.split("#", 1)[0] for line in smk.read_text().splitlines())
            spelled = re.findall(r"[\"'](?:results|logs|resources)/[^\"']*", code)
            assert not spelled, f"{smk.name} spells paths: {spelled}"
