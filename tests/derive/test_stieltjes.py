"""symrmt.derive.stieltjes: the law's Stieltjes equation, and what is derived from it, against its quadrature rule."""
import numpy as np
import pytest
import sympy as sp

from symrmt.derive import symbols as S
from symrmt.derive.components import SpectralLaw
from symrmt.derive.dyson import MARCHENKO_PASTUR
from symrmt.derive.stieltjes import atom, bulk_polynomial, moment, stieltjes_polynomial, transform_polynomial
from symrmt.solve import marchenko_pastur_rule

Z, M, W = sp.symbols("z m w")
#: Far off the support and with nodes to spare: the rule is exact to round-off there.
NODES = 3 * 48 * 27


def _average(g, c: float) -> complex:
    lam, weights = marchenko_pastur_rule(np.array(c), NODES)
    return complex(np.sum(weights * g(lam)))


def _roots(polynomial, c: float, z: complex, variable) -> np.ndarray:
    numeric = sp.Poly(polynomial.xreplace({S.c: c, Z: z}), variable)
    return np.roots([complex(a) for a in numeric.all_coeffs()])


@pytest.mark.parametrize("c", [0.3, 1.0, 4.0])
@pytest.mark.parametrize("z", [-0.7, 2.5 + 1.5j, -3 - 2j])
def test_the_transform_is_a_root_of_the_equation(c, z):
    m = _average(lambda lam: 1 / (lam - z), c)
    roots = _roots(stieltjes_polynomial(MARCHENKO_PASTUR, Z, M), c, z, M)
    assert np.min(np.abs(roots - m)) < 1e-12 * (1 + abs(m))
    if c == 1.0:
        return
    # The power of the check: with c and 1/c swapped (the law of Z Z^T/p) no root is the transform.
    swapped = stieltjes_polynomial(SpectralLaw("marchenko_pastur", {"c": 1 / S.c}), Z, M)
    assert np.min(np.abs(_roots(swapped, c, z, M) - m)) > 1e-3


@pytest.mark.parametrize("c", [0.3, 2.0])
def test_moments_atom_and_bulk_equation(c):
    lam, weights = marchenko_pastur_rule(np.array(c), NODES)
    for k in range(5):
        assert float(moment(MARCHENKO_PASTUR, k).subs(S.c, c)) == pytest.approx(np.sum(weights * lam**k), rel=1e-12)
    w0 = float(atom(MARCHENKO_PASTUR).subs(S.c, c))
    assert w0 == max(0.0, 1 - c)
    z = -0.4 + 0.3j
    bulk = _average(lambda lam: 1 / (lam - z), c) + w0 / z            # no pole at 0 left
    roots = _roots(bulk_polynomial(MARCHENKO_PASTUR, Z, M, W).xreplace({W: w0}), c, z, M)
    assert np.min(np.abs(roots - bulk)) < 1e-12


@pytest.mark.parametrize("k", [1, 2])
@pytest.mark.parametrize("u", [0.0, 0.3, 40.0, 2 - 3j])
def test_transform_polynomial_has_the_weighted_average_as_a_root(k, u):
    c = 0.6
    value = _average(lambda lam: lam**k / (1 + u * lam), c)
    polynomial = transform_polynomial(MARCHENKO_PASTUR, k, Z, M)
    roots = _roots(polynomial, c, u, M)
    assert np.min(np.abs(roots - value)) < 1e-11 * (1 + abs(value))


def test_unknown_law_is_refused():
    with pytest.raises(ValueError, match="no Stieltjes equation"):
        stieltjes_polynomial(SpectralLaw("semicircle", {}), Z, M)
