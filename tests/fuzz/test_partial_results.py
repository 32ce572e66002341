r"""Partial results: a grid that reaches where the solver cannot go keeps every point it can solve.

At :math:`c = 1` the spectrum touches 0 and the quadrature resolves :math:`\gamma` only down to
about :math:`3\cdot10^{-9}`; below about :math:`10^{-11}` the continuation stalls. A grid reaching
there must give, in Python, the other points (masked arrays, NaN underneath, the failures named
with their reasons) or a :class:`~symrmt.errors.ConvergenceError` carrying them; on the command
line, the other points with ``null`` (never NaN) and a ``failed`` list, exit 0, or exit 3 with one
line when every point failed or ``--strict`` is given; never exit 1, never a traceback.

The named cases ask for the quadrature form (``form="quadrature"``, ``--form quadrature``): the algebraic
form, which the default ``"auto"`` uses, solves :math:`\gamma = 10^{-10}` at :math:`c = 1`.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import symrmt
from symrmt.cli import main
from symrmt.errors import ConvergenceError
from symrmt.theory.density import LOWER_END

TANH = (0.6057055, 0.3942945)
#: Below what the quadrature resolves at c = 1 (it needs ~7e5 nodes; MAX_NODES = 34992), and where the
#: continuation stalls: both fail, for different reasons.
TOO_SMALL, STALLS = 1e-10, 1e-12
#: The values at the solved points do not depend on which other points are in the input, up to the
#: accuracy of the quadrature (its coarse-rule estimate is held below 1e-6; the full rule is far better):
#: the anchors of the continuation differ, and with them the last digits.
SAME = 1e-7
QUADRATURE = "quadrature"


def _strict_json(text: str):
    """JSON that holds no NaN or inf (Python's parser would accept them)."""
    def refuse(constant):
        raise AssertionError(f"non-JSON constant {constant} in the output")
    return json.loads(text, parse_constant=refuse)


# ----------------------------------------------------------------------------------------------- Python

def test_the_solved_points_are_returned_masked_and_the_failed_ones_named():
    gamma = np.array([STALLS, TOO_SMALL, 1e-3, 0.1])
    result = symrmt.solve_attention(TANH, 1.0, gamma, partial=True, form=QUADRATURE)
    assert isinstance(result.error, np.ma.MaskedArray)
    assert result.failed.tolist() == [True, True, False, False]
    assert np.ma.getmaskarray(result.error).tolist() == result.failed.tolist()
    assert [f.index for f in result.failures] == [(0,), (1,)]
    assert "stalled" in result.failures[0].reason and "too small for the quadrature" in result.failures[1].reason
    assert result.failures[1].parameters["gamma"] == TOO_SMALL and result.failures[1].parameters["c"] == 1.0
    # A failed value cannot pass for a number: NaN underneath, NaN when filled, skipped by reductions.
    assert np.isnan(np.asarray(result.error)[:2]).all() and np.isnan(result.error.filled()[:2]).all()
    assert np.isnan(np.asarray(result.phi)[:2]).all() and np.isnan(np.asarray(result.unknowns)[:, :2]).all()
    assert math.isclose(result.error.mean(), np.mean(result.error[2:]))
    alone = symrmt.attention_error(TANH, 1.0, gamma[2:], form=QUADRATURE)
    np.testing.assert_allclose(result.error[2:], alone, atol=SAME)


def test_without_partial_the_error_names_the_points_and_carries_them():
    with pytest.raises(ConvergenceError, match="2 of 3 point") as info:
        symrmt.attention_error(TANH, 1.0, [STALLS, TOO_SMALL, 0.1], form=QUADRATURE)
    assert [f.index for f in info.value.failures] == [(0,), (1,)]
    assert "gamma=1e-12" in str(info.value) and "partial=True" in str(info.value)
    # Every point failed: nothing to return, and the message does not offer partial=True. (Linear regression's
    # "auto" form solves gamma = 1e-10 at c = 1 in its algebraic form since the first-answer work; 1e-12 fails both.)
    with pytest.raises(ConvergenceError) as info:
        symrmt.linear_error(1.0, [STALLS])
    assert "partial=True" not in str(info.value)


def test_a_grid_keeps_its_shape_and_the_failures_their_indices():
    c = np.array([[1.0], [0.5]])                       # at c = 0.5 the spectrum has a gap: every gamma solves
    gamma = np.array([TOO_SMALL, 0.1])
    error = symrmt.attention_error(TANH, c, gamma, partial=True, form=QUADRATURE)
    assert error.shape == (2, 2) and np.ma.getmaskarray(error).tolist() == [[True, False], [False, False]]
    failures = symrmt.solve_attention(TANH, c, gamma, partial=True, form=QUADRATURE).failures
    assert [f.index for f in failures] == [(0, 0)]


def test_spectral_density_fails_where_the_density_is_infinite_and_keeps_the_rest():
    # The Gram matrix at c = 1 has the hard edge at 0: the density is infinite at x = 0 (eta = 0).
    rho = symrmt.spectral_density(TANH, 1.0, [0.0, 0.5, 1.0], partial=True)
    assert rho.failed.tolist() == [True, False, False] and np.ma.is_masked(rho.density)
    out = rho.as_dict()
    assert out["density"][0] is None and [f["x"] for f in out["failed"]] == [0.0]
    _strict_json(json.dumps(out))
    with pytest.raises(ConvergenceError, match="1 of 3"):
        symrmt.spectral_density(TANH, 1.0, [0.0, 0.5, 1.0])


@pytest.mark.parametrize("c", [0.5, 1.0, 2.0])
def test_the_gram_density_at_zero_says_why_it_has_no_value(c):
    # c < 1: an atom 1 - c at 0; c >= 1 here: the hard edge. The solver alone said "stalled ... report this case".
    rho = symrmt.spectral_density(TANH, c, [0.0, 0.5], partial=True)
    assert [f.reason for f in rho.failures] == [LOWER_END]
    with pytest.raises(ConvergenceError, match="lower end of the spectrum.*x > 0 or give eta > 0"):
        symrmt.spectral_density(TANH, c, [0.0])
    # only the Gram matrix at eta = 0 gets this reason: a point the kernel density or eta > 0 solve is not touched
    assert not symrmt.spectral_density(TANH, c, [0.0], eta=0.05).failed.any()


@settings(max_examples=8)                         # each point below ~3e-9 costs the finest quadrature
@given(exponents=st.lists(st.floats(-13.0, 1.0), min_size=1, max_size=6), c=st.sampled_from([0.5, 1.0, 2.0]))
def test_random_grids_into_unsolvable_regions(exponents, c):
    gamma = 10.0 ** np.array(exponents)
    result = symrmt.solve_attention(TANH, c, gamma, partial=True)
    failed = result.failed
    assert np.ma.getmaskarray(result.error).tolist() == failed.tolist()
    assert sorted(f.index[0] for f in result.failures) == np.flatnonzero(failed).tolist()
    values = result.error.compressed()
    assert np.all(np.isfinite(values)) and np.all((values >= 0) & (values <= 1))
    assert np.isnan(np.asarray(result.error)[failed]).all()
    assert not failed[gamma >= 1e-8].any()                   # the documented reach of the quadrature
    if (~failed).any():
        alone = symrmt.attention_error(TANH, c, gamma[~failed])
        np.testing.assert_allclose(values, alone, atol=SAME)


# ------------------------------------------------------------------------------------------ command line

def _run(capsys, argv):
    status = main(argv)
    out = capsys.readouterr()
    return status, out.out, out.err


#: name -> (arguments, exit status, what is null)
CASES = {
    "one gamma too small": (["theory", "--f", "tanh(x)", "--c", "1", "--gamma", f"{TOO_SMALL},0.1"], 0, [0]),
    "stalls and too small": (["theory", "--f", "tanh(x)", "--c", "1", "--gamma", f"{STALLS},{TOO_SMALL},0.1"], 0,
                             [0, 1]),
    "every gamma fails": (["theory", "--f", "tanh(x)", "--c", "1", "--gamma", f"{STALLS},{TOO_SMALL}"], 3, None),
    "strict": (["theory", "--f", "tanh(x)", "--c", "1", "--gamma", f"{TOO_SMALL},0.1", "--strict"], 3, None),
    "strict and nothing fails": (["theory", "--f", "tanh(x)", "--c", "1", "--gamma", "0.1", "--strict"], 0, []),
    "a gap: nothing fails": (["theory", "--f", "tanh(x)", "--c", "0.5", "--gamma", f"{STALLS},0.1"], 0, []),
    "a parameter grid": (["theory", "--f", "tanh(s*x)", "--param", "s=0.5,1", "--c", "1", "--gamma",
                          f"{TOO_SMALL},0.1"], 0, [0]),
    "spectrum at the hard edge": (["spectrum", "--f", "tanh(x)", "--c", "1", "--x", "0,0.5"], 0, [0]),
    "spectrum strict": (["spectrum", "--f", "tanh(x)", "--c", "1", "--x", "0,0.5", "--strict"], 3, None),
}


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("json_flag", [True, False], ids=["json", "table"])
def test_named_cases_on_the_command_line(capsys, name, json_flag):
    argv, status, null = CASES[name]
    argv = argv + (["--form", QUADRATURE] if argv[0] == "theory" else [])
    code, out, err = _run(capsys, argv + (["--json"] if json_flag else []))
    assert code == status, err
    assert "Traceback" not in err and "internal error" not in err
    if status == 3:
        assert out == "" and len(err.strip().splitlines()) == 1 and "could not be solved" in err
        return
    assert ("could not be solved" in err) == bool(null), err
    if not json_flag:                                   # the table: '-' cells and one line per failed point
        assert ("\nfailed: " in out) == bool(null) and "nan" not in out.lower()
        return
    document = _strict_json(out)
    column = document["density"] if argv[0] == "spectrum" else document["attention"]
    if "--param" in argv:                              # s = 1 and s = 0.5 both fail at the small gamma
        assert [row[0] for row in column] == [None, None] and all(row[1] is not None for row in column)
    else:
        assert [i for i, v in enumerate(column) if v is None] == null
    assert all(set(entry) >= {"reason"} for entry in document["failed"])


@settings(max_examples=6, suppress_health_check=[HealthCheck.function_scoped_fixture])   # capsys is read per run
@given(exponents=st.lists(st.floats(-13.0, 0.0), min_size=1, max_size=4), strict=st.booleans())
def test_random_grids_on_the_command_line_never_give_nan_or_exit_1(capsys, exponents, strict):
    gamma = ",".join(repr(10.0**e) for e in exponents)
    argv = ["theory", "--f", "tanh(x)", "--c", "1", "--gamma", gamma, "--json"] + (["--strict"] if strict else [])
    code, out, err = _run(capsys, argv)
    assert code in (0, 3), err
    if code == 0:
        document = _strict_json(out)
        nulls = sum(v is None for v in document["attention"] + document["linear"])
        assert nulls == len(document["failed"]) and (nulls == 0 or not strict)
        assert all(0 <= v <= 1 for v in document["attention"] + document["linear"] if v is not None)
    else:
        assert out == "" and len(err.strip().splitlines()) == 1
