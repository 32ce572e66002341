"""symrmt.codegen.numpy_backend: lambdify with explicit modules, once per expression; a system compiled as printed."""
import dataclasses
import inspect

import numpy as np
import pytest
import sympy as sp

from symrmt.codegen import compile_system, numpy_function
from symrmt.derive import attention_system
from symrmt.derive import symbols as S
from symrmt.derive.attention import DYSON, ERROR, PHI
from symrmt.derive.latex import system_latex
from symrmt.solve import CompiledSystem, solve

TANH = (0.6057055, 0.3942945)
POINT = {S.c: 1.3, S.gamma: np.array([0.05, 0.5, 5.0]), S.a1: TANH[0], S.b: np.sqrt(TANH[1] - TANH[0] ** 2),
         S.d: 0.2, S.theta: 1.0, S.alpha_K: 0.4, S.alpha_Q: -0.3, S.omega_KK: 1.2, S.omega_QQ: 0.8, S.omega_KQ: 0.1}
x, y = sp.symbols("x y")


def _error(system):
    return solve(compile_system(system), POINT)[ERROR]


def test_perturbing_one_printed_residual_moves_the_numbers_and_the_latex():
    system = attention_system()
    t12 = S.trace_symbol(1, 2)
    perturbed = dataclasses.replace(system, residuals={**system.residuals,
                                                       t12: system.residuals[t12] + sp.Rational(1, 1000)})
    before, after = _error(system), _error(perturbed)
    assert np.all(np.abs(after - before) > 1e-6)
    assert system_latex(perturbed) != system_latex(system)
    assert r"\frac{1}{1000}" in system_latex(perturbed)


def test_perturbing_the_printed_dyson_matrix_or_woodbury_form_moves_the_numbers():
    system = attention_system()
    dyson = system.definitions[DYSON].copy()
    dyson[2, 2] = dyson[2, 2] * sp.Rational(1001, 1000)
    form = system.observables[PHI]
    halved = dataclasses.replace(form, core=form.core / 2)
    base = _error(system)
    for mutant in (dataclasses.replace(system, definitions={**system.definitions, DYSON: dyson}),
                   dataclasses.replace(system, observables={**system.observables, PHI: halved})):
        assert np.all(np.abs(_error(mutant) - base) > 1e-6)


def test_compile_system_gives_the_solvers_type_once_per_system():
    compiled = compile_system(attention_system())
    assert isinstance(compiled, CompiledSystem) and compile_system(attention_system()) is compiled
    assert compiled.parameters == tuple(attention_system().parameters)
    assert [o.key for o in compiled.observables] == [PHI, ERROR]
    with pytest.raises(TypeError, match="FixedPointSystem"):
        compile_system("attention")


def test_a_free_symbol_outside_the_arguments_is_refused_by_name():
    with pytest.raises(ValueError, match="symbols y are not among its arguments"):
        numpy_function(x + y, [x], name="g")
    stray = dataclasses.replace(attention_system(), residuals={**attention_system().residuals,
                                                               S.trace_symbol(1, 1): S.trace_symbol(1, 1) - y})
    with pytest.raises(ValueError, match="y"):
        compile_system(stray)


def test_functions_are_cached_by_expression_and_vectorized():
    f = numpy_function([x**2 + y, sp.sin(x)], [x, y])
    assert numpy_function([x**2 + y, sp.sin(x)], [x, y]) is f
    values = f(np.array([0.5, 2.0]), 1.0)
    assert np.allclose(values[0], [1.25, 5.0]) and np.allclose(values[1], np.sin([0.5, 2.0]))
    assert numpy_function(x**2 + y, [x, y]) is not f            # one output, not a list of one


def test_small_integer_powers_are_written_as_products():
    # NumPy sends x**-2.0 to the generic pow (measured 20x slower than 1/(x*x) on the solver's arrays).
    source = inspect.getsource(numpy_function(1 / (x**2 + y) ** 2, [x, y]))
    assert "**" not in source
    assert np.isclose(numpy_function(1 / (x**2 + y) ** 2, [x, y])(2.0, 1.0), 1 / 25)


def test_modules_heaviside_half_at_zero_and_complex_parts():
    f = numpy_function([sp.Heaviside(x), sp.im(x * sp.I), sp.re(x + sp.I)], [x])
    assert [float(v) for v in f(0.0)] == [0.5, 0.0, 0.0] and [float(v) for v in f(2.0)] == [1.0, 2.0, 2.0]
    assert np.allclose(numpy_function(sp.erf(x), [x])(np.array([0.0, 1.0])), [0.0, 0.8427007929497149])
