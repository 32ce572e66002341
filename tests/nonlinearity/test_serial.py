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


@pytest.mark.parametrize("text", [
    # a bound variable is no free symbol: its name would reach lambdify's code and latex's TeX
    "Sum(Symbol('k'), Tuple(Symbol('k'), Integer(1), Integer(2)))",
    "Lambda(Tuple(Symbol('x')), Symbol('x'))", "Integral(Symbol('x'), Tuple(Symbol('x'), Integer(0), Integer(1)))",
    # symbol names the package never creates
    "Symbol(\"x[__import__('os').system('true')]\")", "Symbol('a\\x1b[2J')", "Symbol('\\\\input{/etc/passwd}')",
    "Symbol('lambda')", "Symbol('_x')", "Dummy('x')", "Function('f')(Symbol('x'))",
    # costs refused before they are built
    "bell(Integer(1000000))", "binomial(Integer(1000000), Integer(500000))", "factorial(Integer(1000000))",
    "gamma(Integer(100000))", "Pow(Pow(Integer(2), Integer(9999)), Integer(9999))",
    "Float('1e9999999', precision=53)", "Add(" + "1, " * 20_001 + "1)",   # 60 000 characters, over 20 000 nodes
])
def test_the_grammar_refuses_binders_foreign_names_and_costs(text):
    with pytest.raises(ValueError, match="not an srepr"):
        from_srepr(text)


def test_the_grammar_keeps_what_hermite_writes():
    """The node list is closed (no binder, no undefined function), yet holds the classes of the closed forms above."""
    from symrmt.nonlinearity import serial

    assert {"Add", "Mul", "Pow", "erf", "meijerg", "TupleArg", "Max", "factorial2", "besseli"} <= serial.NODES
    assert not {"Sum", "Product", "Integral", "Lambda", "Subs", "Function", "Dummy"} & (serial.NODES | serial.CONSTANTS)
