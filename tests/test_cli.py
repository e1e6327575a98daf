"""The `evalsci` command."""

from __future__ import annotations

import gzip
import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

from evalsci.cli import main
from evalsci.maxrandom import max_random_auc, max_random_baseline, max_random_tail, standard_tail


def run(capsys, *argv) -> tuple[int, str, str]:
    rc = main(list(argv))
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_baseline(capsys):
    rc, out, _ = run(capsys, "baseline", "--n", "100", "--p", "0.5", "--t", "10", "--t", "1e12")
    assert rc == 0
    assert "standard baseline (t=1): 0.500000" in out
    assert f"t=10: {max_random_baseline(100, 0.5, 10):.6f}" in out
    assert f"t=1000000000000: {max_random_baseline(100, 0.5, 1e12):.6f}" in out


def test_baseline_labels(capsys):
    rc, out, _ = run(capsys, "baseline", "--n", "100", "--labels", '{"2":50,"4":50}', "--t", "10")
    assert rc == 0
    assert f"{max_random_baseline(100, {2: 50, 4: 50}, 10):.6f}" in out
    assert "standard baseline (t=1): 0.375000" in out


def test_tail_prints_both(capsys):
    rc, out, _ = run(capsys, "tail", "--correct", "62", "--n", "100", "--p", "0.5", "--t", "10")
    assert rc == 0
    assert f"standard tail P(X >= 62): {standard_tail(62, 100, 0.5):.6g}" in out
    assert f"max tail P(max >= 62) t=10: {max_random_tail(62, 100, 0.5, 10):.6g}" in out
    rc, out, _ = run(capsys, "tail", "--accuracy", "0.29", "--n", "100", "--p", "0.25", "--t", "3")
    assert "correct = 29 of n = 100" in out  # rounded, not floored


def test_auc(capsys):
    rc, out, _ = run(capsys, "auc", "--n-pos", "20", "--n-neg", "30", "--t", "5")
    assert rc == 0 and f"{max_random_auc(20, 30, 5):.6f}" in out


def test_errors_are_clear(capsys):
    rc, _, err = run(capsys, "baseline", "--n", "0", "--p", "0.5", "--t", "10")
    assert rc == 2 and "n must be an integer >= 1, got n=0" in err
    rc, _, err = run(capsys, "baseline", "--n", "10", "--labels", '{"2": 9}', "--t", "3")
    assert rc == 2 and "sum to 9 examples, but n=10" in err
    rc, _, err = run(capsys, "tail", "--correct", "5", "--n", "10", "--p", "2", "--t", "3")
    assert rc == 2 and "p=2.0" in err
    with pytest.raises(SystemExit):
        main(["baseline", "--n", "10", "--t", "3"])  # neither --p nor --labels


def test_manifest(tmp_path, capsys):
    """Hashes a mirror (content of .gz files, names without .gz) with the pinned upstreams."""
    mirror = tmp_path / "mirror"
    src = mirror / "gyauney-stronger-random-baselines" / "results"
    src.mkdir(parents=True)
    (src / "a.json").write_text('{"x": 1}')
    with gzip.open(src / "b.csv.gz", "wt") as fh:
        fh.write("h\n1\n")
    (mirror / "gyauney-stronger-random-baselines" / "COMMIT").write_text("abc\n")
    out = tmp_path / "manifest.json"
    rc, stdout, _ = run(capsys, "manifest", str(mirror), "--output", str(out))
    assert rc == 0 and "wrote" in stdout
    text = out.read_text()
    manifest = json.loads(text)
    files = manifest["gyauney-stronger-random-baselines"]["files"]
    assert files == {
        "results/a.json": hashlib.sha256(b'{"x": 1}').hexdigest(),
        "results/b.csv": hashlib.sha256(b"h\n1\n").hexdigest(),
    }
    assert manifest["gyauney-stronger-random-baselines"]["upstream"]["commit"].startswith("836a551")
    assert text == json.dumps(manifest, indent=0, sort_keys=True) + "\n"
    rc, _, err = run(capsys, "manifest", str(tmp_path / "nope"), "--output", str(out))
    assert rc == 2 and "not a directory" in err


def test_console_script_entry_point():
    exe = Path(sys.executable).with_name("evalsci")
    cmd = [str(exe)] if exe.exists() else [shutil.which("evalsci") or "evalsci"]
    proc = subprocess.run(
        [*cmd, "baseline", "--n", "100", "--p", "0.5", "--t", "10"], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert "t=10: 0.576780" in proc.stdout


# --- issue 13 item 7: edges -----------------------------------------------------------------


def test_tail_correct_above_n_is_an_error(capsys):
    rc, out, err = run(capsys, "tail", "--correct", "101", "--n", "100", "--p", "0.5", "--t", "10")
    assert rc == 2 and "correct must be a count in 0..n, got correct=101 with n=100" in err
    assert out == ""
    with pytest.raises(ValueError, match="0..n"):
        max_random_tail(-1, 100, 0.5, 10)


@pytest.mark.parametrize(
    "labels", ['{"2": true, "4": 99}', '{"2": 1, "4": "99"}', '{"2": 1.5, "4": 98.5}']
)
def test_labels_reject_non_integer_counts(capsys, labels):
    rc, out, err = run(capsys, "baseline", "--n", "100", "--labels", labels, "--t", "10")
    assert rc == 2 and "must be an integer >= 0" in err
    assert out == ""


@pytest.mark.parametrize("bad_t", ["0", "-1", "2.5", "abc", "nan", "inf"])
def test_invalid_t_fails_before_printing_anything(capsys, bad_t):
    with pytest.raises(SystemExit) as e:
        main(["baseline", "--n", "100", "--p", "0.5", "--t", "10", "--t", bad_t])
    assert e.value.code == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert f"got {bad_t!r}" in out.err


@pytest.mark.parametrize("bad_t", [True, "10", [10, True], ["10"], np.array([True])])
def test_library_rejects_bool_and_string_t(bad_t):
    for call in (
        lambda: max_random_baseline(100, 0.5, bad_t),
        lambda: max_random_tail(60, 100, 0.5, bad_t),
        lambda: max_random_auc(20, 30, bad_t),
    ):
        with pytest.raises(ValueError, match="t must be"):
            call()


def test_library_rejects_bool_correct():
    with pytest.raises(ValueError, match="correct must be"):
        max_random_tail(True, 100, 0.5, 10)


def test_verify_names_the_changed_file(tmp_path, capsys, mirror):
    from evalsci.data import released

    out = released.materialise("multi_prompt", tmp_path / "multi_prompt", mirror=str(mirror))
    rc, stdout, _ = run(capsys, "verify", str(tmp_path))
    assert rc == 0 and f"ok {out}" in stdout
    f = sorted((out / "data").rglob("*.csv"))[0]
    f.write_text(f.read_text() + "1,2\n")
    released._VERIFIED.clear()
    rc, _, err = run(capsys, "verify", str(out))
    assert rc == 2 and f"{f} changed after it was verified" in err


def test_check_config_names_file_and_line(capsys, tmp_path):
    good, bad = tmp_path / "good.yaml", tmp_path / "bad.yaml"
    good.write_text("seed: 7\nstudies: [baselines]\n")
    bad.write_text("seed: [7\n")
    rc, out, _ = run(capsys, "check-config", str(good))
    assert rc == 0 and f"ok {good} (2 top-level keys)" in out
    rc, _, err = run(capsys, "check-config", str(good), str(bad))
    assert rc == 2 and f"config file {bad}, line 2, column 1:" in err


def test_check_config_resolves_what_the_workflow_runs(capsys, tmp_path):
    """The files over config.yaml and the presets, by evalsci.settings.resolve: the preset's
    values come out, and a bad value is named by its key before any job could run."""
    paper = tmp_path / "paper.yaml"
    paper.write_text("scale: paper\nmc_icl: {num_trials: 3}\n")
    rc, out, _ = run(capsys, "check-config", str(paper), "--resolved")
    assert rc == 0 and "presets: assessors paper, baselines paper, mc_icl paper, tapt paper" in out
    cfg = yaml.safe_load(out[out.index("\n", out.index("ok resolved")) :])
    assert cfg["mc_icl"]["num_trials"] == 3 and cfg["mc_icl"]["num_demos"] == 20
    assert cfg["baselines"]["recompute"]["prompts"] == 200
    bad = tmp_path / "bad.yaml"
    bad.write_text("mc_icl: {num_trials: 0}\n")
    rc, _, err = run(capsys, "check-config", str(bad))
    assert rc == 2 and f"config mc_icl.num_trials (set in {bad}, line 1)" in err
    assert "0 is less than the minimum of 1" in err


def test_verify_rehashes_a_file_changed_at_the_same_size_and_mtime(tmp_path, capsys, mirror):
    """Issue 35 item 6: bit rot, or `cp -p` of a damaged copy, keeps size and mtime; `evalsci
    verify` must see it. Since issue 47 the workflow's cached shortcut sees it too: the edit
    moved ctime, which its stat key holds (no user can set ctime)."""
    import os

    from evalsci.data import released

    out = released.materialise("multi_prompt", tmp_path / "multi_prompt", mirror=str(mirror))
    rc, stdout, _ = run(capsys, "verify", str(tmp_path))
    assert rc == 0 and f"ok {out}" in stdout  # the cache now holds every file's size and mtime
    f = sorted((out / "data").rglob("*.csv"))[0]
    st = f.stat()
    data = bytearray(f.read_bytes())
    data[-2] ^= 0x01  # one flipped bit, same size
    f.write_bytes(bytes(data))
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert f.stat().st_size == st.st_size and f.stat().st_mtime_ns == st.st_mtime_ns
    released._VERIFIED.clear()
    rc, _, err = run(capsys, "verify", str(out))
    assert rc == 2 and f"{f} changed after it was verified" in err
    released._VERIFIED.clear()
    rc, _, err = run(capsys, "verify", "--cached", str(out))
    assert rc == 2 and f"{f} changed after it was verified" in err


@pytest.mark.parametrize("command", ["baseline", "audit"])
def test_t_beyond_the_largest_float_is_a_clear_error(capsys, tmp_path, command):
    """Issue 35 item 7: `--t` of 310 digits overflowed float() deep in the audit (a
    traceback); it is refused by the argument parser, saying the bound."""
    huge = "1" + "0" * 309
    (tmp_path / "res.csv").write_text("model,task,n,correct,choices\nm1,boolq,100,62,2\n")
    args = (
        ["audit", str(tmp_path / "res.csv")]
        if command == "audit"
        else ["baseline", "--n", "100", "--p", "0.5"]
    )
    with pytest.raises(SystemExit) as e:
        main([*args, "--t", huge])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "at most 1.798e+308" in err and "(310 characters)" in err
