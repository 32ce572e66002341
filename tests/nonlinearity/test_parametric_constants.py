"""An f with parameters: a datum that does not depend on them is a number (a_0 = 0 of an odd f), and centering
reports what it subtracted (the closed form of a_0 in the parameters)."""
import math

import pytest
import sympy as sp

from symrmt import hermite
from symrmt.errors import ParameterError


def test_a_datum_constant_in_the_parameters_is_a_number():
    h = hermite("(x**3 - 3*x)/sqrt(6) + a*x")          # odd in x: a_0 = a_2 = 0 for every a
    assert h.a0 == 0.0 and h.a2 == 0.0
    with pytest.raises(ParameterError, match="its a1 depends on it"):   # a_1 = a does depend on a
        h.a1
    with pytest.raises(ParameterError, match="its nu depends on it"):
        h.nu


def test_a_form_whose_parameters_cancel_is_a_number_and_one_that_depends_on_them_is_refused():
    from symrmt.nonlinearity.api import _constant_in

    s, t = sp.symbols("s t", real=True)
    assert _constant_in(sp.sin(s) ** 2 + sp.cos(s) ** 2 - 1, (s,)) == 0.0
    assert _constant_in(sp.sqrt(2) + 0 * t, (s, t)) == math.sqrt(2)
    assert _constant_in(s * t, (s, t)) is None and _constant_in(None, (s,)) is None
    assert _constant_in(sp.exp(-s**2) * 1e-3, (s,)) is None     # small, still not constant


def test_centering_reports_the_constant_subtracted():
    h = hermite("s*x**2 + x", center=True)            # a_0 = s
    (s,) = h.parameters
    assert h.centered_by == s and sp.expand(h.given - h.f) == s and "centered_by=s" in repr(h)
    assert h.a0 == 0.0 and h.a1 == 1.0                 # centred for every s; a_1 = 1 for every s
    assert h.at(s=0.25).centered_by == 0.25
    assert hermite("x**2 + s*x", center=True).centered_by == 1.0      # a number, though f has a parameter
    assert hermite("s*x**2 + x").centered_by == 0.0                   # not asked
    # no closed form (here: none sought): a_0 is subtracted point by point, and .at() reports it
    numeric = hermite("s*x**2 + x", center=True, method="numeric")
    assert numeric.centered_by is None and math.isclose(numeric.at(s=0.25).centered_by, 0.25, rel_tol=1e-12)


@pytest.mark.slow
def test_a_centred_leaky_relu_reports_its_a0():
    h = hermite("leaky_relu(x, s)", center=True, timeout=60.0)     # the closed form, whatever the load
    (s,) = h.parameters
    # a_0 of max(x, 0) + s min(x, 0) is (1 - s) E max(xi, 0) = (1 - s)/sqrt(2 pi)
    assert sp.simplify(h.centered_by - (1 - s) / sp.sqrt(2 * sp.pi)) == 0
    assert math.isclose(h.at(s=0.1).centered_by, 0.9 / math.sqrt(2 * math.pi), rel_tol=1e-15)
