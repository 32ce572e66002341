"""symrmt.codegen.calculus: the functions the solver evaluates, their derivatives, and collision-free symbols."""
import dataclasses

import numpy as np
import pytest
import sympy as sp

from symrmt.codegen import compile_system, numpy_function
from symrmt.codegen.calculus import system_calculus
from symrmt.derive import attention_system, derivative_of, linear_system
from symrmt.derive import symbols as S
from symrmt.derive.attention import ERROR, PHI
from symrmt.solve import solve

TANH = (0.6057055, 0.3942945)
POINT = {S.c: 1.3, S.gamma: 0.4, S.a1: TANH[0], S.b: np.sqrt(TANH[1] - TANH[0] ** 2), S.d: 0.2, S.theta: 1.0,
         S.alpha_K: 0.4, S.alpha_Q: -0.3, S.omega_KK: 1.2, S.omega_QQ: 0.8, S.omega_KQ: 0.1}


def test_symbols_introduced_by_the_calculus_are_dummies():
    calculus = system_calculus(attention_system())
    t, p = calculus.unknowns, calculus.parameters
    rates = calculus.averages.arguments[1 + len(t): 1 + 2 * len(t)]
    assert rates and all(isinstance(r, sp.Dummy) for r in rates)
    arguments = set(calculus.observables[0].rate.arguments) | set(calculus.observables[1].value.arguments)
    introduced = arguments - set(p) - set(t) - set(attention_system().averages)
    assert len(introduced) >= 2 * len(t) and all(isinstance(s, sp.Dummy) for s in introduced)   # dt, dtau, Phi


@pytest.mark.parametrize("names", [{S.d: "dt_11", S.theta: "value_Phi", S.alpha_K: "rate_Phi", S.alpha_Q: "dtau_11"},
                                   {S.d: "d", S.theta: "dtauA_33", S.omega_KQ: "value_E", S.alpha_K: "rate_E"}])
def test_parameters_named_like_generated_symbols_work(names):
    # Before the rates were Dummy symbols, a parameter named dt_11 crashed lambdify ("duplicate argument").
    system = attention_system()
    renamed = {old: sp.Symbol(new, **old.assumptions0) for old, new in names.items()}
    mapping = {k: v for k, v in renamed.items() if k != v}
    other = system.subs(mapping)
    other = dataclasses.replace(other, parameters={renamed.get(p, p): dom for p, dom in system.parameters.items()})
    gamma = np.array([0.05, 0.5, 5.0])
    expected = solve(compile_system(system), {**POINT, S.gamma: gamma})[ERROR]
    values = solve(compile_system(other), {renamed.get(k, k): v for k, v in {**POINT, S.gamma: gamma}.items()})[ERROR]
    assert np.allclose(values, expected, rtol=0, atol=1e-13)


def test_residual_jacobian_matches_finite_differences():
    calculus = system_calculus(attention_system())
    u, p = len(calculus.unknowns), calculus.fixed_point_averages_count
    integrands = numpy_function(list(calculus.fixed_point.outputs), calculus.fixed_point.arguments)
    lam, t = 1.7, np.array([0.3, -0.1, 0.5])
    params = [POINT[s] for s in calculus.parameters]
    values = integrands(lam, *t, *params)
    h = 1e-6
    for k in range(u):
        step = np.eye(u)[k] * h
        fd = (np.array(integrands(lam, *(t + step), *params)[:p]) - np.array(integrands(lam, *(t - step), *params)[:p])) / (2 * h)
        assert np.allclose([values[p + j * u + k] for j in range(p)], fd, rtol=1e-6, atol=1e-8)
    v = calculus.parameters.index(calculus.variable)
    shifted = lambda sign: [x + sign * h * (i == v) for i, x in enumerate(params)]
    fd = (np.array(integrands(lam, *t, *shifted(1))[:p]) - np.array(integrands(lam, *t, *shifted(-1))[:p])) / (2 * h)
    assert np.allclose(values[p + p * u:], fd, rtol=1e-6, atol=1e-8)


def test_derivative_of_finds_its_observable_by_the_symbol_itself():
    system = linear_system()
    assert system.observables[ERROR].has(derivative_of(PHI, S.gamma))
    assert derivative_of(PHI, S.gamma).expr is PHI
    stranger = sp.Symbol("Psi")               # not an observable of the system
    wrong = dataclasses.replace(system, observables={**system.observables, ERROR: derivative_of(stranger, S.gamma)})
    with pytest.raises(ValueError, match="derivative"):
        system_calculus(wrong)
    with pytest.raises(TypeError):
        derivative_of("Phi", S.gamma)


def test_only_fixed_point_systems_are_accepted():
    with pytest.raises(TypeError, match="FixedPointSystem"):
        system_calculus({"residuals": {}})
