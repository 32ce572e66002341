"""symrmt.testing as a user meets it: optional Hypothesis, the strategies' promises, verify() on drawn f."""
from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings

import symrmt
from symrmt.errors import SymrmtInputError
from symrmt.testing import CATALOGUE, Point, geometries, hermite_data, nonlinearities, regimes, verify
from symrmt.testing import strategies as S
from symrmt.testing.planted import Perturbed


def test_import_symrmt_does_not_import_hypothesis():
    code = ("import sys, symrmt; symrmt.attention_error; symrmt.hermite; "
            "assert 'hypothesis' not in sys.modules and 'symrmt.testing' not in sys.modules, sorted(sys.modules)")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_without_hypothesis_one_line_names_the_extra(monkeypatch):
    for name in [m for m in sys.modules if m == "symrmt.testing" or m.startswith("symrmt.testing.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "hypothesis", None)
    with pytest.raises(ImportError) as info:
        import symrmt.testing  # noqa: F401
    assert str(info.value) == "symrmt.testing needs Hypothesis, an optional dependency: pip install 'symrmt[testing]'"


# ---- the strategies keep their documented ranges


@settings(max_examples=30)
@given(geometry=geometries(rank=3), rank_one=geometries())
def test_geometries_are_valid_gram_matrices(geometry, rank_one):
    """Any rank: a positive semidefinite (1 + 2r) x (1 + 2r) Gram matrix, norms <= MAX_NORM, accepted by the package."""
    g = geometry.matrix
    assert g.shape == (7, 7) and np.allclose(g, g.T) and np.linalg.eigvalsh(g).min() >= -1e-12
    assert np.all(np.sqrt(np.diag(g)) <= S.MAX_NORM + 1e-12)
    symrmt.geometry.resolve_gram(None, g)
    assert rank_one.geometry.gram() == pytest.approx(rank_one.matrix, abs=1e-12)


@settings(max_examples=50)
@given(regime=regimes(), data=hermite_data(), linear=hermite_data(linear=True))
def test_regimes_and_hermite_data_ranges(regime, data, linear):
    c, gamma = regime
    assert S.RATIOS[0] <= c <= S.RATIOS[1] and S.RIDGES[0] <= gamma <= S.RIDGES[1]
    a1, nu = data
    assert abs(a1) <= S.MAX_A1 and a1 * a1 <= nu <= a1 * a1 + S.MAX_B2 and nu >= S.MIN_NU - 1e-15
    assert linear[1] == linear[0] ** 2


@settings(max_examples=3, deadline=None)
@given(f=S.parametric_nonlinearities())
def test_parametric_families_match_hermite(f):
    """The closed forms the strategy claims for f with parameters are what symrmt.hermite computes at the values."""
    h = symrmt.hermite(f.text, center=f.center).at(**f.params)
    assert h.a1 == pytest.approx(float(f.a1), rel=1e-10, abs=1e-12)
    assert h.nu == pytest.approx(float(f.nu), rel=1e-10)


@settings(max_examples=4, deadline=None)
@given(f=S.smooth_nonlinearities())
def test_smooth_nonlinearities_are_usable(f):
    h = symrmt.hermite(f.text, center=True, method="numeric")
    assert math.isfinite(h.a1) and h.nu > 0 and h.nu >= h.a1**2 * (1 - 1e-12)


# ---- verify(): the whole catalogue on one f


def _check_rows(result):
    assert [row.property for row in result.rows] == list(CATALOGUE)
    failed = {row.property: row.message for row in result.rows if not row.passed}
    assert result.passed and not failed, failed
    assert all(row.deviation.ratio <= 1 for row in result.rows)


#: verify() runs Hypothesis inside: a @given test around it declares the nesting (Hypothesis >= 6.1xx checks it).
NESTED = [check for check in (getattr(HealthCheck, "nested_given", None),) if check is not None]


@settings(max_examples=1, deadline=None, suppress_health_check=NESTED)
@given(f=nonlinearities())
def test_verify_whole_catalogue_on_drawn_f(f):
    """Every property holds for a drawn f (with or without parameters, or smooth without a closed form), one point
    each. The heavier run below is slow."""
    _check_rows(verify(f.text, f.params or None, center=f.center, examples=1))


@pytest.mark.slow
@settings(max_examples=6, deadline=None, suppress_health_check=NESTED)
@given(f=nonlinearities())
def test_verify_whole_catalogue_on_more_f_and_points(f):
    _check_rows(verify(f.text, f.params or None, center=f.center, examples=4))


def test_verify_reports_a_planted_error():
    """E scaled by 1.01: the noise-only property fails, with its message, its point and a deviation above tolerance."""
    result = verify("tanh(x)", examples=2, properties=["noise_only", "scale_law"],
                    theory=Perturbed("planted", error=1.01))
    noise, scale = result.rows
    assert not result.passed and result.failed == (noise,) and scale.passed
    assert noise.deviation.ratio > 1 and "noise only" in noise.message and isinstance(noise.counterexample, Point)
    assert "NO" in result.table() and "1 of 2 properties hold." in result.table()
    assert result.as_dict()["rows"][0]["passed"] is False


def test_verify_takes_hermite_data_and_refuses_bad_input():
    assert verify((0.5, 0.4), examples=1, properties="sign_symmetry").passed
    with pytest.raises(SymrmtInputError, match="s"):
        verify("tanh(s*x)", examples=1)
    with pytest.raises(SymrmtInputError, match="nu >= a_1"):
        verify((1.0, 0.5), examples=1)
    with pytest.raises(SymrmtInputError, match="unknown properties"):
        verify("tanh(x)", properties=["scaling"])
    with pytest.raises(SymrmtInputError, match="examples"):
        verify("tanh(x)", examples=0)
