"""symrmt.solve.exact: systems without spectral averages are solved by continuation and Newton alone.

Toy systems written here (not the models of symrmt): a real quadratic fixed point with two roots, whose
physical one is found by continuation from large v, and a complex one in the variable eta.
"""
import numpy as np
import pytest
import sympy as sp

from symrmt.codegen import compile_system
from symrmt.derive.components import Admissible, Continuation, derivative_of
from symrmt.derive.fixed_point import FixedPointSystem
from symrmt.solve import solve
from symrmt.solve.path import PathRules, newton_step

v, t, x, eta = sp.Symbol("v", positive=True), sp.Symbol("t"), sp.Symbol("x", real=True), sp.Symbol("eta")
Y, RATE = sp.Symbol("Y"), sp.Symbol("Y_rate")


def _quadratic(name: str = "toy") -> FixedPointSystem:
    """t (v + t) = 1: the root t = (sqrt(v^2 + 4) - v)/2 > 0 (the other is negative), Y = t, Y_rate = -v^2 dY/dv."""
    return FixedPointSystem(
        name=name, parameters={v: sp.Interval.open(0, sp.oo)}, unknowns=(t,), residuals={t: t * (v + t) - 1},
        averages={}, observables={Y: t, RATE: -v**2 * derivative_of(Y, v)},
        continuation=Continuation(v, 10 * (1 + v), {t: 0}), branch=(sp.StrictGreaterThan(t, 0),),
        admissible={Y: Admissible(0, sp.oo, "relative")})


def test_a_real_system_without_averages_reaches_its_physical_root_and_rate():
    system = compile_system(_quadratic())
    assert system.law is None and system.averages_count == 0
    values = np.geomspace(1e-6, 1e3, 60)
    result = solve(system, {v: values})
    exact = (np.sqrt(values**2 + 4) - values) / 2
    assert np.allclose(result[Y], exact, rtol=1e-12)
    # -v^2 dt/dv by implicit differentiation: dt/dv = -t / (v + 2t).
    assert np.allclose(result[RATE], values**2 * exact / (values + 2 * exact), rtol=1e-10)


def test_a_complex_system_is_continued_in_eta_down_to_the_axis():
    # t = -1/(z + t), z = x + i eta: the Stieltjes transform of the semicircle of radius 2, Im t > 0.
    z = x + sp.I * eta
    system = compile_system(FixedPointSystem(
        name="semicircle", parameters={x: sp.S.Reals, eta: sp.Interval(0, sp.oo)}, unknowns=(t,),
        residuals={t: t * (z + t) + 1}, averages={}, observables={Y: sp.im(t) / sp.pi},
        continuation=Continuation(eta, 10 * (1 + sp.Abs(x)), {t: 0}, "linear"),
        branch=(sp.GreaterThan(sp.im(t), 0),), complex_unknowns=True))
    points = np.array([-1.5, 0.0, 0.7, 1.9, 2.5])
    result = solve(system, {x: points, eta: 0.0})
    assert np.allclose(result[Y], np.sqrt(np.clip(4 - points**2, 0, None)) / (2 * np.pi), atol=1e-10)


def test_exact_rules_are_data_and_a_singular_jacobian_is_refused_pointwise():
    assert PathRules().monotone and PathRules().componentwise
    jacobian = np.array([np.eye(2), np.zeros((2, 2))])          # the second point is singular
    step, rate = newton_step(np.ones((2, 2)), jacobian, np.ones((2, 2)))
    assert np.allclose(step[:, 0], 1) and np.all(np.isnan(step[:, 1])) and np.all(np.isnan(rate[:, 1]))


def test_a_solution_off_the_branch_is_refused():
    # Started (at the target itself) next to the negative root, Newton lands there: the branch refuses it.
    from symrmt.errors import ConvergenceError

    system = _quadratic("negative start")
    fields = {f: getattr(system, f) for f in ("name", "parameters", "unknowns", "residuals", "averages",
                                              "observables", "branch", "admissible")}
    wrong = FixedPointSystem(**fields, continuation=Continuation(v, v, {t: -2 * v}))
    with pytest.raises(ConvergenceError, match="physical branch"):
        solve(compile_system(wrong), {v: np.array([1.0, 3.0])})


def test_newton_error_estimates_the_relative_error_of_the_unknowns():
    from symrmt.solve.exact import newton_error

    system = compile_system(_quadratic())
    values = np.geomspace(1e-3, 1e3, 7)
    exact = (np.sqrt(values**2 + 4) - values) / 2
    solved = solve(system, {v: values}).unknowns
    assert np.all(newton_error(system, {v: values}, solved) < 1e-14)
    # A planted relative error of 1e-6 is seen as such (to first order), and a NaN point is not below any ceiling.
    off = exact * (1 + 1e-6)
    assert np.allclose(newton_error(system, {v: values}, off[None, :]), 1e-6, rtol=1e-3)
    assert np.isnan(newton_error(system, {v: values[:1]}, np.array([[np.nan]])))[0]
