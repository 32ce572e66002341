"""symrmt.codegen.definitions: the chain rule through a system's definitions, against finite differences."""
import numpy as np
import pytest
import sympy as sp

from symrmt.codegen.definitions import Definitions, expand_definitions, inverse_entries
from symrmt.derive import attention_system
from symrmt.derive.attention import DYSON, RESOLVENT

x, y = sp.symbols("x y", real=True)
M, R = sp.MatrixSymbol("M", 2, 2), sp.MatrixSymbol("R", 2, 2)
#: A small system of definitions: M(x, y) and R = M^{-1}, then a scalar defined through R.
DEFINITIONS = {M: sp.Matrix([[x + 2, sp.sin(y)], [x * y, 3 + y**2]]), R: sp.Inverse(M),
               sp.Symbol("u"): R[0, 1] * x + R[1, 1] ** 2}
POINT = {x: 0.7, y: -0.4}


def _explicit(expr):
    return expr.xreplace(expand_definitions(DEFINITIONS))


def _finite_difference(expr, direction, h=1e-6):
    """Central difference of the explicit expression along ``direction`` = {symbol: rate} at POINT."""
    f = sp.lambdify((x, y), _explicit(expr))
    step = lambda sign: [POINT[s] + sign * h * direction.get(s, 0.0) for s in (x, y)]
    return (f(*step(1)) - f(*step(-1))) / (2 * h)


def test_system_resolvent_is_the_inverse_of_the_printed_dyson_matrix():
    system = attention_system()
    explicit = expand_definitions(system.definitions)
    Mx = sp.Matrix(3, 3, lambda i, j: explicit[DYSON[i, j]])
    Rx = sp.Matrix(3, 3, lambda i, j: explicit[RESOLVENT[i, j]])
    assert sp.simplify(Rx * Mx - sp.eye(3)) == sp.zeros(3, 3)


def test_inverse_entries_is_the_inverse():
    A = sp.Matrix([[x, 1, 0], [2, y, x], [0, 1, 3]])
    assert sp.simplify(inverse_entries(A) * A - sp.eye(3)) == sp.zeros(3, 3)
    assert inverse_entries(A)[0, 0].has(x) and not inverse_entries(A)[0, 0].has(sp.Dummy)


@pytest.mark.parametrize("direction", [{x: 1.0}, {y: 1.0}, {x: 0.3, y: -2.0}])
def test_chain_rule_through_the_inverse_matches_finite_differences(direction):
    # d R = -R (dM) R and the chain rule through u = R_01 x + R_11^2, along a direction in (x, y).
    definitions = Definitions(DEFINITIONS)
    u = definitions.local(sp.Symbol("u"))
    derivative = definitions.expand(definitions.directional(u, tuple((s, sp.Float(r)) for s, r in direction.items())))
    value = float(derivative.xreplace(POINT))
    assert value == pytest.approx(_finite_difference(sp.Symbol("u"), direction), rel=1e-8)
    # The sign of -R dM R matters: the same derivative with +R dM R is far from the finite difference.
    Mx, Rx = sp.Matrix(_explicit(sp.Matrix(M))), sp.Matrix(_explicit(sp.Matrix(R)))
    dM = sum((sp.diff(Mx, s) * r for s, r in direction.items()), sp.zeros(2, 2))
    wrong_dR = Rx * dM * Rx
    u_explicit = Rx[0, 1] * x + Rx[1, 1] ** 2
    wrong = (wrong_dR[0, 1] * x + 2 * Rx[1, 1] * wrong_dR[1, 1]
             + Rx[0, 1] * direction.get(x, 0.0)).xreplace(POINT)
    assert abs(float(wrong) - value) > 1e-3 * (1 + abs(value))
    assert float(sp.diff(u_explicit, x).xreplace(POINT)) == pytest.approx(_finite_difference(sp.Symbol("u"), {x: 1.0}),
                                                                         rel=1e-8)


def test_scalar_definitions_chain_in_order():
    a, b = sp.Symbol("a"), sp.Symbol("b")
    definitions = Definitions({a: x**2, b: sp.sin(a) + y})
    derivative = definitions.expand(definitions.diff(definitions.local(b * a), x))
    assert sp.simplify(derivative - sp.diff((sp.sin(x**2) + y) * x**2, x)) == 0


def test_placeholders_are_dummies_so_no_system_name_collides():
    definitions = Definitions(DEFINITIONS)
    assert all(isinstance(p, sp.Dummy) for p in definitions.values)
    named_like_a_placeholder = sp.Symbol("M_00")        # a user symbol with a placeholder's name
    expr = definitions.local(M[0, 0] + named_like_a_placeholder)
    assert named_like_a_placeholder in definitions.expand(expr).free_symbols
    assert np.isclose(float(definitions.expand(expr).xreplace({**POINT, named_like_a_placeholder: 1.0})), 3.7)
