"""Grids on every numeric axis of theory and spectrum (issue 28, item 3), --geometry by name, tidy JSON and CSV."""
import csv

import numpy as np
import pytest

import symrmt

from ..runner import assert_refused, run_json

ALIGNED = dict(cos_mu_wk=1.0, cos_mu_wq=1.0, cos_wk_wq=1.0)


def test_each_point_of_a_grid_is_the_library_at_that_point(capsys):
    out = run_json(capsys, "theory", "--f", "tanh(x)", "--c", "0.5,2", "--gamma", "0.1,1", "--diag", "0,0.5",
                   "--geometry", "aligned", "--mu-norm", "1:2:2", "--w-norm", "0.5")
    assert out["columns"] == ["c", "diag", "mu_norm", "gamma", "attention", "linear"]
    assert len(out["points"]) == 2 * 2 * 2 * 2 and out["failed"] == []
    for point in out["points"]:
        geometry = symrmt.Geometry(mu_norm=point["mu_norm"], wk_norm=0.5, wq_norm=0.5, **ALIGNED)
        # The same solver on other batches of points: the same numbers to its accuracy (1e-10).
        expected = symrmt.attention_error("tanh(x)", point["c"], point["gamma"], geometry, d=point["diag"])
        assert point["attention"] == pytest.approx(float(expected), rel=1e-10, abs=1e-12)
        assert point["linear"] == pytest.approx(float(symrmt.linear_error(point["c"], point["gamma"], geometry)),
                                                rel=1e-10, abs=1e-12)


def test_a_list_of_c_with_f_parameters_has_one_row_per_point(capsys):
    out = run_json(capsys, "theory", "--f", "erf(s*x)", "--param", "s=0.5,1,2", "--c", "1,4", "--gamma", "0.1")
    assert out["columns"] == ["c", "s", "gamma", "attention", "linear"] and len(out["points"]) == 6
    point = out["points"][5]
    expected = symrmt.attention_error("erf(s*x)", 4.0, 0.1, params={"s": 2.0})
    assert (point["c"], point["s"]) == (4.0, 2.0) and point["attention"] == pytest.approx(float(expected), rel=1e-10)


def test_the_aligned_and_orthogonal_names_are_the_six_flags(capsys):
    named = run_json(capsys, "theory", "--f", "tanh(x)", "--c", "1", "--gamma", "0.1", "--geometry", "orthogonal",
                     "--mu-norm", "1.5")
    flags = run_json(capsys, "theory", "--f", "tanh(x)", "--c", "1", "--gamma", "0.1", "--mu-norm", "1.5",
                     "--wk-norm", "1", "--wq-norm", "1", "--cos-mu-wk", "0", "--cos-mu-wq", "0", "--cos-wk-wq", "0")
    assert named["attention"] == flags["attention"]
    noise = run_json(capsys, "theory", "--f", "tanh(x)", "--c", "1", "--gamma", "0.1", "--geometry", "noise")
    assert noise["attention"] == run_json(capsys, "theory", "--f", "tanh(x)", "--c", "1", "--gamma", "0.1")["attention"]


@pytest.mark.parametrize("argv, message", [
    (["--geometry", "aligned", "--cos-mu-wk", "0.5"], "--geometry aligned sets the cosines"),
    (["--geometry", "noise", "--mu-norm", "1"], "--geometry noise has no signal"),
    (["--w-norm", "2"], "--w-norm goes with --geometry aligned or orthogonal"),
    (["--gram", "[[1,0,0],[0,1,0],[0,0,1]]", "--mu-norm", "1,2"], "either with --gram or with the flags"),
    (["--attention", "softmax", "--f", "x"], None),
])
def test_refusals_of_the_geometry_names_and_grids(capsys, argv, message):
    base = ["theory", "--c", "1,2", "--gamma", "0.1"] + ([] if "--f" in argv else ["--f", "tanh(x)"])
    if message is None:                            # softmax fixes f; with grids it is refused by name
        assert_refused(capsys, ["theory", "--attention", "softmax", "--c", "1,2", "--gamma", "0.1"],
                       "grids of --c are for entrywise attention")
        return
    assert_refused(capsys, base + argv, message)


def test_the_csv_has_one_row_per_point_and_replaces_a_file_atomically(capsys, tmp_path):
    path = tmp_path / "points.csv"
    path.write_text("old contents\n")
    out = run_json(capsys, "theory", "--f", "tanh(x)", "--c", "0.5:2:4", "--gamma", "0.1,1", "--csv", str(path))
    rows = list(csv.DictReader(path.open()))
    assert len(rows) == len(out["points"]) == 8 and list(rows[0]) == out["columns"]
    assert [float(r["attention"]) for r in rows] == [p["attention"] for p in out["points"]]
    assert not [p for p in tmp_path.iterdir() if p.name != "points.csv"]          # no temporary file left
    assert_refused(capsys, ["theory", "--f", "tanh(x)", "--c", "1", "--gamma", "0.1", "--csv",
                            str(tmp_path / "points.txt")], "--csv")


def test_spectrum_takes_a_list_of_c(capsys):
    out = run_json(capsys, "spectrum", "--f", "tanh(x)", "--c", "0.5,2", "--x", "0.5,1")
    assert out["columns"] == ["c", "x", "density"] and len(out["points"]) == 4
    assert [a["atom"] for a in out["atoms"]] == [0.5, 0.0]
    expected = symrmt.spectral_density("tanh(x)", 2.0, [0.5, 1.0]).density
    assert [p["density"] for p in out["points"][2:]] == pytest.approx(np.asarray(expected), rel=1e-10)
