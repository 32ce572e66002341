"""symrmt.sweep: spec validation, deterministic records, kill and resume, partial lines, summary, Dask.

Sizes stay tiny (n <= 128, a few gamma): these tests check bookkeeping, not physics.
"""
from __future__ import annotations

import csv
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import symrmt
from symrmt.cli import main
from symrmt.errors import ParameterError, SymrmtInputError
from symrmt.geometry import Geometry
from symrmt.sweep import (compute_point, load_spec, monte_carlo_task, parse_spec, point_key, read_records,
                          run_sweep, summarize, theory_task)

REPO = Path(symrmt.__file__).resolve().parents[1]

ALIGNED = {"mu_norm": 1.0, "wk_norm": 1.0, "wq_norm": 1.0, "cos_mu_wk": 1.0, "cos_mu_wq": 1.0, "cos_wk_wq": 1.0}
#: A rank-one Gram matrix of (mu, w_K, w_Q), given as a matrix (the 3x3 Gram path).
GRAM = [[1.0, 0.5, 0.2], [0.5, 1.0, 0.1], [0.2, 0.1, 0.8]]

SPEC = {"f": ["tanh(x)"], "c": [0.5, 1.0], "n": [24, 32], "gamma": [0.05, 0.5, 5.0], "seeds": 2,
        "geometry": [ALIGNED, GRAM]}

SPEC_TOML = """\
f = ["tanh(x)"]
c = [0.5, 1]          # an int here and a float in SPEC: the same normalized spec
n = [24, 32]
gamma = [0.05, 0.5, 5.0]
seeds = 2
geometry = [
  {mu_norm = 1.0, wk_norm = 1.0, wq_norm = 1.0, cos_mu_wk = 1.0, cos_mu_wq = 1.0, cos_wk_wq = 1.0},
  [[1.0, 0.5, 0.2], [0.5, 1.0, 0.1], [0.2, 0.1, 0.8]],
]
"""


def by_key(records):
    return {r["key"]: r for r in records}


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    """SPEC run once on two local workers: (spec, spec file, result file, records)."""
    folder = tmp_path_factory.mktemp("sweep")
    spec_file = folder / "spec.json"
    spec_file.write_text(json.dumps(SPEC))
    spec = load_spec(spec_file)
    out = folder / "results.jsonl"
    report = run_sweep(spec, out, workers=2, progress=False)
    assert report["computed"] == report["points"] == 16 and report["skipped"] == 0
    return spec, spec_file, out, read_records(out)[1]


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


def test_the_spec_example_of_the_module_docstring_is_a_valid_spec():
    import textwrap

    import symrmt.sweep

    doc = symrmt.sweep.__doc__
    example = textwrap.dedent(doc[doc.index("::\n") + 3: doc.index("A ``geometry`` entry")])
    spec = parse_spec(symrmt.sweep._toml().loads(example))   # tomllib, or tomli before Python 3.11
    assert len(spec.points()) == 2 * 3 * 2 * 8 and spec.geometry[0]["cos_wk_wq"] == 1.0


def test_the_header_holds_a_spec_that_parses_to_the_same_spec(local_run):
    spec, _, out, _ = local_run
    header, _ = read_records(out)
    assert parse_spec(header["spec"]).hash == header["spec_hash"] == spec.hash   # normalizing is idempotent


def test_the_seed_of_a_point_is_the_documented_hash(local_run):
    spec, _, _, records = local_run
    record = records[0]
    point = {k: record[k] for k in ("f", "center", "c", "d", "geometry", "n", "seed")}
    key = hashlib.sha256(json.dumps(point, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    assert record["key"] == key
    from symrmt.simulation import simulate_once
    from symrmt.sweep import model_geometry

    rng = np.random.default_rng(np.random.SeedSequence(int(key, 16)))
    attention, linear = simulate_once(np.tanh, record["n"], record["c"], record["gamma"],
                                      d=record["d"], rng=rng, **model_geometry(record["geometry"])[1])
    # np.tanh against the generated tanh of the sweep: equal to round-off.
    np.testing.assert_allclose(record["mc"]["attention"], attention, rtol=1e-12)
    np.testing.assert_allclose(record["mc"]["linear"], linear, rtol=1e-12)


def test_a_gram_matrix_and_the_equivalent_dict_give_the_same_model():
    geometry = Geometry(**ALIGNED | {"mu_norm": 1.3, "cos_mu_wq": 0.6, "cos_wk_wq": 0.6})
    as_dict, as_gram = geometry.as_dict(), geometry.gram().tolist()
    theory = {"a1": 0.6057055, "nu": 0.3942945, "c": 1.0, "d": 0.2, "gamma": [0.1, 1.0]}
    t_dict, t_gram = theory_task(theory | {"geometry": as_dict}), theory_task(theory | {"geometry": as_gram})
    np.testing.assert_allclose(t_dict["attention"], t_gram["attention"], rtol=1e-12)
    np.testing.assert_allclose(t_dict["linear"], t_gram["linear"], rtol=1e-12)
    mc = {"f": "tanh(x)", "a0": 0.0, "n": 32, "c": 1.0, "d": 0.2, "gamma": [0.1, 1.0], "method": None,
          "key": "ab" * 32}   # the same key, hence the same draw, for both geometries
    m_dict, m_gram = monte_carlo_task(mc | {"geometry": as_dict}), monte_carlo_task(mc | {"geometry": as_gram})
    # Norms and cosines recovered from the Gram matrix differ from the originals by round-off only.
    np.testing.assert_allclose(m_dict["attention"], m_gram["attention"], rtol=1e-10)


def test_a_gamma_the_solver_cannot_reach_is_null_and_the_others_are_kept():
    theory = theory_task({"a1": 0.6057055, "nu": 0.3942945, "c": 1.0, "d": 0.0, "geometry": {},
                          "gamma": [1e-10, 0.1]})   # 1e-10 is below what the quadrature resolves at c = 1
    assert theory["attention"][0] is None and theory["attention"][1] == pytest.approx(0.4532, abs=1e-4)
    assert theory["error"].startswith("attention at gamma = 1e-10: ")


def test_a_rank_two_gram_matrix_runs_where_the_library_has_rank_r_weights():
    from symrmt.sweep import _rank_r_interfaces

    if not _rank_r_interfaces():
        with pytest.raises(ParameterError, match=r"geometry\[0\] is 5x5 \(r = 2 heads\): this version"):
            parse_spec(SPEC | {"geometry": [np.eye(5).tolist()]})
        return
    vectors = np.random.default_rng(0).standard_normal((5, 8)) / np.sqrt(8)   # mu, w_K^(1,2), w_Q^(1,2)
    spec = parse_spec(SPEC | {"c": [1.0], "n": [24], "seeds": 1, "geometry": [(vectors @ vectors.T).tolist()]})
    record = compute_point(spec, spec.points()[0])
    assert record["theory"]["error"] is None and len(record["mc"]["attention"]) == 3


def test_a_monte_carlo_method_is_passed_through_where_the_simulator_has_methods():
    from symrmt.sweep import _simulation_methods

    if "exact" not in _simulation_methods():
        pytest.skip("this symrmt.simulation has a single method")
    spec = parse_spec(SPEC | {"c": [1.0], "n": [24], "seeds": 1, "geometry": [ALIGNED], "method": "exact"})
    assert compute_point(spec, spec.points()[0])["method"] == "exact"


# ---------------------------------------------------------------------------
# Crashes: SIGKILL half way, partial last line, foreign files
# ---------------------------------------------------------------------------

KILL_SPEC = {"f": ["tanh(x)"], "c": [0.5, 1.0], "n": [96, 128], "gamma": [0.01, 0.1, 1.0], "seeds": 15}


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


def test_a_partial_last_line_is_dropped_and_its_point_recomputed(local_run, tmp_path):
    spec, _, out, records = local_run
    lines = out.read_bytes().splitlines(keepends=True)
    crashed = tmp_path / "crashed.jsonl"
    half = len(lines[-1]) // 2
    crashed.write_bytes(b"".join(lines[:-1]) + lines[-1][:half])   # killed in the middle of a write
    report = run_sweep(spec, crashed, workers=1, progress=False)
    assert report["dropped_bytes"] == half and report["computed"] == 1
    assert crashed.read_bytes().endswith(b"\n")
    assert by_key(read_records(crashed)[1]) == by_key(records)


def test_a_file_from_another_spec_is_refused_and_left_alone(local_run):
    _, _, out, _ = local_run
    before = out.read_bytes()
    other = parse_spec(SPEC | {"seeds": 3})
    with pytest.raises(SymrmtInputError, match=r"different spec .*keys that differ: seeds"):
        run_sweep(other, out, progress=False)
    assert out.read_bytes() == before


def test_two_sweeps_cannot_write_one_file(local_run):
    from symrmt.sweep import _ResultFile

    spec, _, out, _ = local_run
    holder = _ResultFile(out, spec)   # as a running sweep holds it
    try:
        with pytest.raises(SymrmtInputError, match="being written by another running sweep"):
            run_sweep(spec, out, progress=False)
    finally:
        holder.close()


def test_an_out_file_that_cannot_be_opened_is_a_clear_error(tmp_path):
    with pytest.raises(SymrmtInputError, match="cannot open it for writing"):
        run_sweep(parse_spec(SPEC), tmp_path / "no-such-folder" / "out.jsonl", progress=False)


def test_a_file_that_is_not_a_sweep_result_is_refused(tmp_path):
    foreign = tmp_path / "notes.jsonl"
    foreign.write_text('{"hello": 1}\n')
    with pytest.raises(SymrmtInputError, match="not a symrmt sweep result file"):
        run_sweep(parse_spec(SPEC), foreign, progress=False)


# ---------------------------------------------------------------------------
# Summary
# ---------------------------------------------------------------------------

def test_summary_csv_has_the_means_and_standard_errors_over_seeds(local_run, tmp_path, capsys):
    _, _, out, records = local_run
    path = tmp_path / "summary.csv"
    assert main(["sweep", "--summary", str(out), "--csv", str(path)]) == 0
    printed = capsys.readouterr().out
    assert "16 of 16 points" in printed and f"CSV written to {path}" in printed
    rows = list(csv.DictReader(path.open()))
    assert len(rows) == 2 * 2 * 2 * 3        # (c, geometry, n) settings x gamma
    for row in rows:
        group = [r for r in records if r["c"] == float(row["c"]) and r["n"] == int(row["n"])
                 and json.dumps(r["geometry"], sort_keys=True, separators=(",", ":")) == row["geometry"]]
        i = group[0]["gamma"].index(float(row["gamma"]))
        for name in ("attention", "linear"):
            values = np.array([r["mc"][name][i] for r in group])
            assert int(row["seeds"]) == len(values) == 2
            assert float(row[f"{name}_mean"]) == pytest.approx(values.mean(), rel=1e-14)
            assert float(row[f"{name}_se"]) == pytest.approx(values.std(ddof=1) / np.sqrt(2), rel=1e-12)
            assert float(row[f"{name}_theory"]) == group[0]["theory"][name][i]


def test_summary_default_csv_sits_next_to_the_file(local_run):
    _, _, out, _ = local_run
    info, rows = summarize(out)
    assert info["finished"] == 16 and rows[0]["f"] == "tanh(x)"
    assert main(["sweep", "--summary", str(out), "--json"]) == 0
    assert out.with_name("results.summary.csv").exists()


def test_one_seed_has_no_standard_error():
    from symrmt.sweep import _mean_se

    assert _mean_se([[0.25, 0.5]]) == ([0.25, 0.5], [None, None])   # JSON null / empty CSV cell, never NaN


# ---------------------------------------------------------------------------
# Dask
# ---------------------------------------------------------------------------

def test_a_local_dask_cluster_gives_the_same_records(local_run, tmp_path):
    pytest.importorskip("distributed")
    from distributed import LocalCluster

    spec, _, _, records = local_run
    out = tmp_path / "dask.jsonl"
    # In-process workers reached over TCP on loopback: the path a real cluster takes, without spawn cost.
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tcp", host="127.0.0.1",
                      dashboard_address=None) as cluster:
        report = run_sweep(spec, out, scheduler=cluster.scheduler_address, progress=False)
    assert report["computed"] == 16
    local, remote = by_key(records), by_key(read_records(out)[1])
    assert local.keys() == remote.keys()
    for key, record in local.items():
        assert {k: v for k, v in remote[key].items() if k not in ("theory", "mc")} == \
               {k: v for k, v in record.items() if k not in ("theory", "mc")}
        # Same draws and inputs; only BLAS with another thread count could reorder a sum.
        for part in ("theory", "mc"):
            for name in ("attention", "linear"):
                np.testing.assert_allclose(remote[key][part][name], record[part][name], rtol=1e-12)


def test_workers_and_scheduler_together_are_refused(tmp_path):
    with pytest.raises(ParameterError, match="--workers is for the local run"):
        run_sweep(parse_spec(SPEC), tmp_path / "x.jsonl", workers=2, scheduler="tcp://127.0.0.1:1")


# ---------------------------------------------------------------------------
# Validation: every mistake is named before anything runs
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("change, message", [
    ({"seeds": None}, r"missing key\(s\) \['seeds'\]"),
    ({"sedes": 2}, r"unknown key\(s\) \['sedes'\]"),
    ({"c": [1.0, -1.0]}, r"c\[1\] = -1.0: must be > 0"),
    ({"c": [1.0, 1]}, r"c lists 1.0 twice"),
    ({"n": [24.5]}, r"n\[0\] = 24.5: must be an integer >= 2"),
    ({"n": [2], "c": [0.5]}, r"p = round\(c\*n\) = 1 < 3"),
    ({"gamma": [0.1, 0.0]}, r"gamma\[1\] = 0.0: every ridge must be finite and > 0"),
    ({"gamma": "1e-2:10"}, r"gamma = '1e-2:10': give a list of numbers or \"LO:HI:NUM\""),
    ({"seeds": 0}, r"seeds = 0: must be a count"),
    ({"center": "yes"}, r"center = 'yes': must be true or false"),
    ({"method": "fast"}, r"method = 'fast': (use one of .*exact|this version of symrmt.simulation has a single)"),
    ({"f": ["tanh(x)", "os.system('ls')"]}, r"f\[1\] = \"os.system\('ls'\)\""),
    ({"f": ["relu(x)"]}, r"f\[0\] = 'relu\(x\)'.*center = true"),
    ({"geometry": [{"mu": 1.0}]}, r"geometry\[0\] has unknown key\(s\) \['mu'\]"),
    ({"geometry": [{"cos_mu_wk": 2.0}]}, r"geometry\[0\]: cos_mu_wk = 2.0"),
    ({"geometry": [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]}, r"geometry\[0\] = \[1.0, 0.0, 0.0\].*\[\[\["),
    ({"geometry": [[[1.0, 0.0], [0.0, 1.0]]]}, r"geometry\[0\]: a 2-row matrix"),
    ({"geometry": [[[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]]]}, r"geometry\[0\] is not positive semi-definite"),
    ({"geometry": [[[1.0, 0.5, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]]}, r"geometry\[0\] is not symmetric"),
])
def test_a_bad_spec_is_refused_naming_the_key_the_value_and_the_fix(change, message):
    raw = {k: v for k, v in (SPEC | change).items() if v is not None}
    with pytest.raises(SymrmtInputError, match=message):
        parse_spec(raw)


def test_cli_reports_a_bad_spec_file_with_status_2(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text("f = [tanh(x)]\n")
    assert main(["sweep", str(bad), "--out", str(tmp_path / "o.jsonl")]) == 2
    assert "is not valid TOML" in capsys.readouterr().err
    assert main(["sweep", "--out", str(tmp_path / "o.jsonl")]) == 2
    assert "give SPEC and --out" in capsys.readouterr().err
