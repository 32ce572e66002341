"""symrmt.derive.registry: f's Hermite data put into the derived systems."""
import sympy as sp

from symrmt.derive import symbols as S
from symrmt.derive.registry import hermite_substitution, substitution_of
from symrmt.nonlinearity import hermite


def test_substitution_is_exact_when_the_hermite_data_are():
    assert hermite_substitution(sp.Rational(1, 2), 1) == {S.a1: sp.Rational(1, 2), S.b: sp.sqrt(3) / 2}
    erf = substitution_of(hermite("erf(x)"))
    assert erf[S.a1] == 2 * sp.sqrt(3) / (3 * sp.sqrt(sp.pi))
    tanh = substitution_of(hermite("tanh(x)"))                      # no closed form: numbers
    assert tanh[S.a1].is_Float


def test_parameters_without_a_closed_form_stay_functions_of_them():
    s = sp.Symbol("s", real=True)
    substitution = substitution_of(hermite("tanh(s*x)"))
    assert substitution[S.a1] == sp.Function("a_1")(s)
    assert substitution[S.b] == sp.sqrt(sp.Function("nu")(s) - sp.Function("a_1")(s) ** 2)
