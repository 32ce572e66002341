"""symrmt.sweep.run: every point once, deterministic records, Ctrl-C then SIGKILL then resume."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import symrmt
from _support.sweep import SPEC, SPEC_TOML, by_key
from symrmt.cli import main
from symrmt.errors import ParameterError
from symrmt.sweep import compute_point, load_spec, parse_spec, point_key, read_records, run_sweep

REPO = Path(symrmt.__file__).resolve().parents[1]

KILL_SPEC = {"f": ["tanh(x)"], "c": [0.5, 1.0], "n": [96, 128], "gamma": [0.01, 0.1, 1.0], "seeds": 15}


def test_a_tiny_spec_runs_every_point_once(local_run):
    spec, _, out, records = local_run
    assert sorted(r["key"] for r in records) == sorted(point_key(p) for p in spec.points())
    header, _ = read_records(out)
    assert header["spec_hash"] == spec.hash and header["points"] == 16 and header["spec"] == spec.as_dict()
    for r in records:
        assert set(r) >= {"f", "c", "d", "n", "seed", "geometry", "gamma", "theory", "mc"}
        assert r["gamma"] == SPEC["gamma"] and r["p"] == round(r["c"] * r["n"])
        for curve in (r["theory"]["attention"], r["theory"]["linear"], r["mc"]["attention"], r["mc"]["linear"]):
            assert len(curve) == 3 and all(0 <= v <= 1.5 for v in curve)


def test_records_are_deterministic_and_equal_one_point_recomputed_alone(local_run, tmp_path, capsys):
    spec, _, _, records = local_run
    toml_file = tmp_path / "spec.toml"
    toml_file.write_text(SPEC_TOML)
    assert load_spec(toml_file).hash == spec.hash        # TOML and JSON of the same spec are the same spec
    out = tmp_path / "again.jsonl"
    assert main(["sweep", str(toml_file), "--out", str(out), "--workers", "1", "--quiet", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["computed"] == 16
    assert by_key(read_records(out)[1]) == by_key(records)   # bit for bit: one worker instead of two
    point = spec.points()[5]
    assert compute_point(spec, point) == by_key(records)[point_key(point)]
    assert main(["sweep", str(toml_file), "--out", str(out), "--quiet", "--json"]) == 0   # nothing left to do
    assert json.loads(capsys.readouterr().out)["skipped"] == 16


def _lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def _group_gone(pgid: int, timeout: float) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


def _start_sweep(spec_file: Path, out: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen([sys.executable, "-m", "symrmt", "sweep", str(spec_file), "--out", str(out),
                             "--workers", "1", "--quiet"], env=env, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _wait_for_lines(child: subprocess.Popen, out: Path, lines: int) -> None:
    deadline = time.monotonic() + 60
    while _lines(out) < lines and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)


def test_a_sweep_interrupted_then_killed_resumes_without_losing_or_duplicating_points(tmp_path):
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps(KILL_SPEC))
    out = tmp_path / "killed.jsonl"
    spec = load_spec(spec_file)
    total = len(spec.points())
    child = _start_sweep(spec_file, out)
    try:
        _wait_for_lines(child, out, 1 + 3)
        os.killpg(child.pid, signal.SIGINT)                       # Ctrl-C reaches the whole process group
        assert child.wait(timeout=30) == 130
        assert "Run the same command to resume" in child.stderr.read().decode()
        interrupted = _lines(out) - 1
        child = _start_sweep(spec_file, out)                      # resumes, then is killed half way
        _wait_for_lines(child, out, 1 + interrupted + 3)
        os.kill(child.pid, signal.SIGKILL)                        # the parent only, like `kill -9 PID`
        child.wait(timeout=10)
        finished = _lines(out) - 1
        assert 3 <= interrupted < finished < total, child.stderr.read().decode()
        # The worker notices that its parent died and exits instead of waiting for tasks forever.
        assert _group_gone(child.pid, timeout=10), "a worker outlived the killed sweep"
    finally:
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    report = run_sweep(spec, out, workers=1, progress=False)
    assert report["skipped"] == finished and report["computed"] == total - finished
    resumed = read_records(out)[1]
    assert len(resumed) == total and len(by_key(resumed)) == total          # none lost, none twice
    reference = tmp_path / "uninterrupted.jsonl"
    run_sweep(spec, reference, workers=1, progress=False)
    assert by_key(resumed) == by_key(read_records(reference)[1])


def test_workers_and_scheduler_together_are_refused(tmp_path):
    with pytest.raises(ParameterError, match="--workers is for the local run"):
        run_sweep(parse_spec(SPEC), tmp_path / "x.jsonl", workers=2, scheduler="tcp://127.0.0.1:1")
