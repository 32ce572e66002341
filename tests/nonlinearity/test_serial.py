"""symrmt.nonlinearity.serial: the srepr reader of the disk cache round-trips expressions and refuses code."""
from __future__ import annotations

import pytest
import sympy as sp

from symrmt.nonlinearity import X
from symrmt.nonlinearity.serial import from_srepr, to_srepr


@pytest.mark.parametrize("expr", [
    sp.erf(X) / sp.sqrt(2), 2 * sp.asin(sp.Rational(2, 3)) / sp.pi, sp.Float("0.398942280401432677939946", 30),
    sp.Max(X, 0) - 1 / sp.sqrt(2 * sp.pi), sp.Integer(-7) * sp.factorial2(127), sp.exp(-sp.S.Half) * sp.E,
    sp.Symbol("x", positive=True) ** 3, sp.besseli(1, sp.Rational(1, 4)) * sp.exp(-sp.Rational(1, 4)),
    # a_1 of x/(1 + |x|) is a Meijer G-function, whose srepr holds TupleArg (not in SymPy's namespace)
    sp.meijerg(((-1, -sp.S.Half), ()), ((-1, -sp.S.Half), ()), sp.Rational(1, 2)) / sp.pi,
])
def test_srepr_round_trip(expr):
    assert from_srepr(to_srepr(expr)) == expr


@pytest.mark.parametrize("text", [
    "eval('1')", "Integer(1).__class__", "Symbol('x', real='yes')", "Float('nan')", "Float('1', precision=10**9)",
    "lambda: 1", "Symbol(Symbol('x'))", "Add(Integer(1), 'x')", "(Integer(1), Integer(2))", "sympify", "Add",
    "Integer(1) + Integer(2)", "Integer(" + "9" * 5000 + ")", "Add(" * 2000 + ")" * 2000,
])
def test_srepr_reader_refuses(text):
    with pytest.raises(ValueError, match="not an srepr"):
        from_srepr(text)
