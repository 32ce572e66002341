"""symrmt.derive.registry: the systems by kind, and f's Hermite data put into them."""
import pytest
import sympy as sp

from symrmt.derive import symbols as S
from symrmt.derive.attention import attention_system, linear_system
from symrmt.derive.density import density_system
from symrmt.derive.kernel_ridge import kernel_ridge_system
from symrmt.derive.registry import KINDS, hermite_substitution, substitution_of, system_for
from symrmt.nonlinearity import hermite


def test_every_kind_has_its_system():
    assert system_for("attention", 2) is attention_system(2) and system_for("linear") is linear_system()
    assert system_for("gram_density") is density_system("gram")
    assert system_for("kernel_density") is density_system("kernel")
    assert system_for("kernel_ridge", 2) is kernel_ridge_system(2)
    assert len(KINDS) == 5
    with pytest.raises(ValueError, match="kind"):
        system_for("ridge")


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
