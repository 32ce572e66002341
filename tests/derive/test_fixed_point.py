"""symrmt.derive.fixed_point and .components: a malformed system is refused where it is built; systems are immutable."""
import dataclasses

import pytest
import sympy as sp

from symrmt.derive import Admissible, Continuation, attention_system, linear_system
from symrmt.derive import symbols as S
from symrmt.derive.attention import ERROR, PHI


@pytest.mark.parametrize("change, error", [
    (dict(observables={PHI: "tau_11"}), TypeError),
    (dict(admissible={sp.Symbol("Psi"): Admissible(0, 1)}), TypeError),
    (dict(admissible={PHI: (0, 1)}), TypeError),
    (dict(branch=(S.c * S.gamma > 1, S.c)), TypeError),
    (dict(continuation=Continuation(S.d, 1, {})), ValueError),
    (dict(residuals={}), ValueError),
])
def test_malformed_systems_are_refused(change, error):
    with pytest.raises(error):
        dataclasses.replace(linear_system() if "residuals" not in change else attention_system(), **change)


def test_parts_check_their_options():
    with pytest.raises(ValueError, match="predictor"):
        Continuation(S.gamma, 1, {}, "quadratic")
    with pytest.raises(ValueError, match="accuracy"):
        Admissible(0, 1, "percent")


def test_systems_are_immutable_and_subs_drops_replaced_parameters():
    system = attention_system()
    with pytest.raises(TypeError, match="immutable"):
        system.residuals[S.trace_symbol(1, 1)] = 0
    special = system.subs({S.d: 0, S.alpha_K: 0})
    assert S.d not in special.parameters and S.alpha_K not in special.parameters and S.c in special.parameters
    assert not special.observables[PHI].core.has(S.alpha_K)
    assert special.observables[ERROR] == system.observables[ERROR]
    assert special.continuation.start == system.continuation.start.subs(S.d, 0)
