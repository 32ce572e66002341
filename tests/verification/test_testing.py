"""symrmt.testing as a user meets it: optional Hypothesis, the strategies' promises, verify() on drawn f."""
from __future__ import annotations

import math
import re
import subprocess
import sys
import types

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import symrmt
from symrmt.errors import SymrmtInputError
from symrmt.testing import CATALOGUE, Point, geometries, grams, hermite_data, nonlinearities, regimes, verify
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
@given(gram=grams(rank=3), geometry=geometries())
def test_geometries_are_valid_gram_matrices(gram, geometry):
    """Any rank: a positive semidefinite (1 + 2r) x (1 + 2r) Gram matrix, norms <= MAX_NORM, accepted by the package;
    rank one: a symrmt.Geometry."""
    assert gram.shape == (7, 7) and np.allclose(gram, gram.T) and np.linalg.eigvalsh(gram).min() >= -1e-12
    assert np.all(np.sqrt(np.diag(gram)) <= S.MAX_NORM + 1e-12)
    symrmt.geometry.resolve_gram(None, gram)
    assert isinstance(geometry, symrmt.Geometry)
    assert max(geometry.mu_norm, geometry.wk_norm, geometry.wq_norm) <= S.MAX_NORM


@settings(max_examples=50)
@given(regime=regimes(), data=hermite_data(), linear=hermite_data(linear=True))
def test_regimes_and_hermite_data_ranges(regime, data, linear):
    assert S.RATIOS[0] <= regime.c <= S.RATIOS[1] and S.RIDGES[0] <= regime.gamma <= S.RIDGES[1]
    assert abs(data.a1) <= S.MAX_A1 and data.a1**2 <= data.nu <= data.a1**2 + S.MAX_B2
    assert data.nu >= S.MIN_NU - 1e-15
    assert linear.nu == linear.a1**2


# ---- the first test a user writes (issue: a drawn f and geometry were refused by attention_error)


@settings(max_examples=4, deadline=None)
@given(f=nonlinearities(smooth=False), geometry=geometries(), regime=regimes(), data=hermite_data(), gram=grams(rank=2))
def test_what_the_strategies_draw_is_what_symrmt_takes(f, geometry, regime, data, gram):
    """Each drawn value goes into the public API as it is: f, geometry=, gram=, Hermite data as f."""
    by_f = symrmt.attention_error(f, regime.c, regime.gamma, geometry)
    expected = symrmt.attention_error(symrmt.hermite(f.text, center=f.center).at(**f.params) if f.params
                                      else symrmt.hermite(f.text, center=f.center), regime.c, regime.gamma, geometry)
    assert by_f == expected
    assert 0 <= symrmt.attention_error(data, regime.c, regime.gamma, gram=gram) <= 1


@pytest.mark.parametrize("make, needle", [
    (lambda: S.ratios(min_value=float("nan")), "min_value must be a finite number > 0"),
    (lambda: S.ratios(min_value=-1.0), "min_value must be a finite number > 0"),
    (lambda: S.ridges(min_value=10.0, max_value=1.0), "min_value must be at most max_value"),
    (lambda: S.regimes(min_c=3.0, max_c=1.0), "min_c must be at most max_c"),
    (lambda: S.diagonals(max_abs=-1.0), "max_abs must be >= 0"),
    (lambda: S.hermite_data(max_a1=float("inf")), "max_a1 must be a finite number"),
    (lambda: S.hermite_data(max_a1=0.1, max_b2=0.0), "no f has nu >= min_nu"),
    (lambda: S.geometries(max_norm=5.0), "max_norm must lie in [0, 2]"),
    (lambda: S.grams(rank=10**6), "rank must be a whole number in 1..16"),
    (lambda: S.grams(rank=True), "rank must be a whole number"),
    (lambda: S.points(c=1.0), "c takes a strategy"),
    (lambda: S.points(hermite="tanh"), "hermite takes a strategy"),
    (lambda: S.nonlinearities(known=False, parameters=False, smooth=False), "choose at least one"),
    (lambda: S.small_rationals(max_numerator=0, nonzero=True), "no fraction is drawable"),
])
def test_bad_strategy_arguments_are_invalid_arguments_at_once(make, needle):
    """Hypothesis' convention: InvalidArgument when the strategy is made, naming the argument (not at draw time)."""
    from hypothesis.errors import InvalidArgument

    with pytest.raises(InvalidArgument, match=re.escape(needle)):
        make()


@pytest.mark.parametrize("old, new", [
    (lambda: S.ratios(0.5, 2.0), lambda: S.ratios(min_value=0.5, max_value=2.0)),
    (lambda: S.regimes(c=(0.5, 2.0)), lambda: S.regimes(min_c=0.5, max_c=2.0)),
    (lambda: S.diagonals(0.5), lambda: S.diagonals(max_abs=0.5)),
    (lambda: S.hermite_data(1.0), lambda: S.hermite_data(max_a1=1.0)),
    (lambda: S.points(hermite=(0.5, 0.5)), lambda: S.points(hermite=st.just((0.5, 0.5)))),
    (lambda: S.geometries(rank=2), lambda: S.grams(rank=2)),
])
def test_the_old_calling_style_is_deprecated_not_broken(old, new):
    """One release of grace: the 0.1 style warns (DeprecationWarning naming the new form) and still makes a strategy."""
    with pytest.warns(DeprecationWarning, match="removed in symrmt 0.3"):
        strategy = old()
    assert isinstance(strategy, st.SearchStrategy) and isinstance(new(), st.SearchStrategy)


def test_symrmt_testing_exports_every_strategy_and_nothing_else():
    import symrmt.testing as testing

    exported = {name for name in dir(testing) if not name.startswith("_")
                and not isinstance(getattr(testing, name), types.ModuleType)}     # submodules are the package's own
    assert exported == set(testing.__all__)
    assert {"annotations", "hypothesis"}.isdisjoint(exported)
    assert {name for name in S.__all__ if callable(getattr(S, name)) and name[0].islower()} <= set(testing.__all__)


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
    assert "NO" in result.table() and "1 of 2 properties hold;" in result.table()
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
