"""A figure drawn for another f, with parameters: its numbers are those of that f, and its words claim nothing.

The rank figure (the quickest of those that take an f) is run with ``f="tanh(s*x)", params={"s": 2}``
(and by ``symrmt figure rank --f 'tanh(s*x)' --param s=2`` for its JSON). Its rows are recomputed from the CSV's own columns (the formula in
``f``, the value in ``params``) by the public API, never through the figure code. A second run with
the default tanh planted under the same labels shows that the recomputation catches it.
"""
from __future__ import annotations

import csv
import dataclasses
import math

import numpy as np
import pytest

import symrmt
from symrmt.errors import NonlinearityError, ParameterError, SymrmtInputError
from symrmt.figures import run
from symrmt.figures.claims import CLAIMS

from cli.runner import assert_refused, run_json

FORMULA, S = "tanh(s*x)", 2.0
# Seconds per run. A Monte Carlo row is checked by redrawing it from the same seeds (equal to round-off), so
# these sizes need no statistical tolerance.
SIZES = {"n": 128, "seeds": 2}


def _rows(path) -> list[dict]:
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture(scope="module")
def parametric(tmp_path_factory):
    """The rank figure for tanh(s x) at s = 2: (the run's dict, its CSV rows)."""
    written = run("rank", quick=True, out=tmp_path_factory.mktemp("rank_s2"), f=FORMULA, params={"s": S}, **SIZES)
    return written, _rows(written["csv"])


def _params(row: dict) -> dict[str, float]:
    """The CSV's ``params`` cell ``s=2; t=0.5`` as a dict."""
    return {k: float(v) for k, v in (item.split("=") for item in row["params"].split("; "))}


def _rank_one_geometry(row: dict) -> symrmt.Geometry:
    """Rank 1, w_K = w_Q = w: mu along w (spread) or at 45 degrees to it (half aligned), written out here."""
    cosine = 1.0 if row["placement"] == "spread" else 1 / math.sqrt(2)
    w = float(row["w_norm"])
    return symrmt.Geometry(float(row["theta"]) ** 0.5, w, w, cosine, cosine, 1.0)


def _check_theory_rows(rows: list[dict]) -> int:
    """Every rank-1 E_attn theory value (lines and Monte Carlo 'theory') against attention_error for the f and
    params the row names; the number of values checked."""
    checked = 0
    for r in rows:
        if r["quantity"] != "E_attn" or r["rank"] != "1":
            continue
        expected = float(symrmt.attention_error(r["f"], float(r["c"]), float(r["gamma"]), _rank_one_geometry(r),
                                                params=_params(r)))
        column = "value" if r["source"] == "theory" else "theory"
        # the same deterministic equivalent computed twice: only round-off (and 30-digit quadrature) apart
        assert float(r[column]) == pytest.approx(expected, rel=1e-9), (r["panel"], r["series"], r["gamma"])
        checked += 1
    return checked


def test_the_command_takes_f_and_its_parameter_and_names_them_in_json(capsys, tmp_path):
    out = run_json(capsys, "figure", "rank", "--quick", "--n", "128", "--seeds", "2", "--quiet", "--out",
                   str(tmp_path), "--f", FORMULA, "--param", f"s={S:g}")
    assert out["f"] == FORMULA and out["params"] == {"s": S} and out["center"] is False
    assert {r["params"] for r in _rows(out["csv"]) if r["f"] == FORMULA} == {f"s={S:g}"}


def test_theory_rows_are_those_of_the_given_f_at_the_given_value(parametric):
    _, rows = parametric
    assert {r["f"] for r in rows if r["series"] != "linear regression"} == {FORMULA}
    assert {r["params"] for r in rows if r["series"] != "linear regression"} == {f"s={S:g}"}
    assert _check_theory_rows(rows) >= 10


def test_hermite_columns_are_those_of_the_given_f(parametric):
    _, rows = parametric
    h = symrmt.hermite(FORMULA, params={"s": S})
    r = rows[0]
    assert float(r["a1"]) == pytest.approx(h.a1, rel=1e-12) and float(r["nu"]) == pytest.approx(h.nu, rel=1e-12)


def test_monte_carlo_draws_with_the_given_f(parametric):
    """One Monte Carlo point again from the same draws (seed 0, the Gram matrix of rank 1 spread written out)."""
    _, rows = parametric
    r = next(r for r in rows if r["source"] == "monte_carlo" and r["panel"] == "a" and r["rank"] == "1")
    mu, w = float(r["theta"]) ** 0.5, float(r["w_norm"])
    gram = np.outer([mu, w, w], [mu, w, w])
    mc = symrmt.simulate(r["f"], n=int(r["n"]), c=float(r["c"]), gamma=[float(r["gamma"])], gram=gram,
                         seeds=int(r["seeds"]), params=_params(r), progress=False)
    assert float(r["value"]) == pytest.approx(float(mc.attention_mean[0]), rel=1e-6)


def test_no_claim_is_asserted_for_another_f(parametric):
    figure = parametric[0]["figure"]
    claim = CLAIMS["rank"]
    assert figure.title == f"rank, f = {FORMULA} at s = {S:g}"
    assert claim.statement not in figure.caption and claim.title not in figure.caption
    assert f"f = {FORMULA} at s = {S:g}, " in figure.caption


def test_planted_default_f_under_the_given_label_is_caught(tmp_path, monkeypatch):
    """Power: the figure computes with the default tanh but labels its rows tanh(s*x), s = 2."""
    import symrmt.figures as figures

    honest = figures.figure_f

    def planted(f=None, params=None, center=False):
        return dataclasses.replace(honest(f, params, center), h=honest().h)

    monkeypatch.setattr(figures, "figure_f", planted)
    written = run("rank", quick=True, out=tmp_path, f=FORMULA, params={"s": S}, **SIZES)
    with pytest.raises(AssertionError):
        _check_theory_rows(_rows(written["csv"]))


# --------------------------------------------------------------------------- refusals (before any computing)

@pytest.mark.parametrize("name", ["random_inputs", "linear_component", "spectrum", "validation", "real_weights",
                                  "real_weights_fits"])
def test_a_figure_of_a_fixed_set_of_f_refuses_one(name, tmp_path):
    with pytest.raises(SymrmtInputError, match="takes no f; the figures that take one are alignment, phase_diagram, "
                                               "rank"):
        run(name, quick=True, out=tmp_path, f="tanh(s*x)", params={"s": 2.0})


@pytest.mark.parametrize("kwargs, error, needle", [
    ({"f": FORMULA}, ParameterError, "parameter s"),
    ({"f": FORMULA, "params": {"s": 2.0, "t": 1.0}}, ParameterError, "unknown t"),
    ({"f": FORMULA, "params": {"s": [1.0, 2.0]}}, ParameterError, "single real number"),
    ({"params": {"s": 2.0}}, ParameterError, "give the f it applies to"),
    ({"center": True}, ParameterError, "give the f it applies to"),
    ({"f": np.tanh}, ParameterError, "formula"),
    ({"f": "relu(x)"}, NonlinearityError, "not centered"),
])
def test_python_refusals_name_the_problem(kwargs, error, needle, tmp_path):
    with pytest.raises(error, match=needle):
        run("rank", quick=True, out=tmp_path, **kwargs)


@pytest.mark.parametrize("argv, needle", [
    (["spectrum", "--f", "tanh(x)"], "takes no f"),
    (["rank", "--f", FORMULA], "--param s=VALUE"),
    (["rank", "--f", FORMULA, "--param", "s=2", "--param", "s=3"], "given twice"),
    (["rank", "--f", FORMULA, "--param", "s=2", "--param", "t=1"], "--param t: not a name"),
    (["rank", "--param", "s=2"], "--param applies to --f"),
    (["rank", "--f", "relu(x)"], "--center"),
])
def test_command_line_refusals_exit_2_with_one_line(argv, needle, capsys, tmp_path):
    assert_refused(capsys, ["figure", *argv, "--quick", "--out", str(tmp_path)], needle)


def test_a_centred_f_is_named_so_in_the_csv_and_has_no_params_column():
    from symrmt.figures import figure_f

    f = figure_f("relu(x)", center=True)
    assert f.h.a0 == pytest.approx(0.0, abs=1e-12)
    assert f.tags()["f"] == "relu(x) (centred)" and "params" not in f.tags()
    assert CLAIMS["rank"].title_for(f) == "rank, f = relu(x) (centred)"
