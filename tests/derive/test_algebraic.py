"""symrmt.derive.algebraic: the closed-form averages equal the quadrature of R and lambda R, route by route.

At given unknowns t, the closed form is evaluated with its transform computed independently (the
Stieltjes transform at the eigenvalues of N from its principal-branch formula, or psi_2 by quadrature):
its equations must hold there, and tau, tau^A must equal E[R], E[lambda R] by the quadrature rule.
"""
import dataclasses

import numpy as np
import pytest
import sympy as sp

from symrmt.codegen.definitions import expand_definitions
from symrmt.derive import attention_system, density_system, linear_system
from symrmt.derive import symbols as S
from symrmt.derive.algebraic import (ATOM, AVERAGE, UPSILON, WEIGHTED_AVERAGE, algebraic_form,
                                     coefficient_symbol, in_form)
from symrmt.derive.attention import DYSON
from symrmt.derive.components import SpectralAverage
from symrmt.solve import marchenko_pastur_rule

from symrmt.testing.reference import mp_stieltjes

NODES = 48 * 81
POINT = {S.c: 0.7, S.gamma: 0.3, S.a1: 0.6, S.b: 0.4, S.d: 0.25, S.x: 0.8, S.eta: 0.2}
UNKNOWNS = {S.trace_symbol(1, 1): 0.9, S.trace_symbol(1, 2): 0.1, S.trace_symbol(2, 2): -0.3}


def _quadrature(matrix: sp.Matrix, values: dict) -> tuple[np.ndarray, np.ndarray]:
    """E[R], E[lambda R] of R = matrix(lambda)^-1 by the quadrature rule, at ``values``."""
    numeric = sp.lambdify(S.lam, matrix.xreplace(values), "numpy")
    lam, weights = marchenko_pastur_rule(np.array(values[S.c]), NODES)
    inverses = np.array([np.linalg.inv(np.array(numeric(x), dtype=complex)) for x in lam])
    return np.einsum("n,nij->ij", weights, inverses), np.einsum("n,nij->ij", weights * lam, inverses)


def _closed(system, values: dict) -> dict:
    """Every defined symbol and matrix element of the algebraic system that ``values`` determine, at ``values``."""
    out = {}
    for k, v in expand_definitions(system.definitions).items():
        v = sp.N(v.xreplace(values))
        if v.is_number:
            out[k] = complex(v)
    return out


def _matrix(closed: dict, name: str, n: int) -> np.ndarray:
    symbol = sp.MatrixSymbol(name, n, n)
    return np.array([[closed[symbol[i, j]] for j in range(n)] for i in range(n)])


def _full_rank_transform(system, values: dict) -> dict:
    """zeta_j with sum_j zeta_j N^j = m~(-N), m~ the bulk transform from its principal-branch formula."""
    n = 3
    closed = _closed(system, values)
    n_matrix = np.array([[closed[sp.MatrixSymbol("N", n, n)[i, j]] for j in range(n)] for i in range(n)])
    eigenvalues, vectors = np.linalg.eig(n_matrix)
    c = values[S.c]
    stieltjes, _ = mp_stieltjes(-eigenvalues, 1 / c)
    bulk = stieltjes + max(0.0, 1 - c) / (-eigenvalues)
    target = vectors @ np.diag(bulk) @ np.linalg.inv(vectors)
    powers = [np.linalg.matrix_power(n_matrix, j).ravel() for j in range(n)]
    zeta = np.linalg.lstsq(np.array(powers).T, target.ravel(), rcond=None)[0]
    return {coefficient_symbol(j): zeta[j] for j in range(n)}


@pytest.mark.parametrize("kind", ["attention", "gram density"])
def test_full_rank_route_equals_the_quadrature(kind):
    system = attention_system() if kind == "attention" else density_system("gram")
    algebraic = algebraic_form(system)
    values = {**POINT, **UNKNOWNS}
    values.update(_full_rank_transform(algebraic, values))
    closed = _closed(algebraic, values)
    expected, weighted = _quadrature(system.definitions[DYSON], values)
    assert np.allclose(_matrix(closed, AVERAGE, 3), expected, atol=1e-11, rtol=0)
    assert np.allclose(_matrix(closed, WEIGHTED_AVERAGE, 3), weighted, atol=1e-11, rtol=0)
    for j in range(3):
        residual = algebraic.residuals[coefficient_symbol(j)].xreplace({**closed_symbols(closed), **values})
        assert abs(complex(sp.N(residual))) < 1e-10
    # Power: the same closed form with the atom left in the transform (w_0 -> 0 at c < 1) misses E[R].
    wrong = dataclasses.replace(algebraic, definitions={**algebraic.definitions, ATOM: sp.Integer(0)})
    assert not np.allclose(_matrix(_closed(wrong, values), AVERAGE, 3), expected, atol=1e-6)


def closed_symbols(closed: dict) -> dict:
    return {k: v for k, v in closed.items() if isinstance(k, sp.Symbol)}


@pytest.mark.parametrize("system", [linear_system(), attention_system().subs({S.a1: 0})], ids=["linear", "a1=0"])
def test_rank_one_route_equals_the_quadrature(system):
    algebraic = algebraic_form(system)
    first, second = coefficient_symbol(0), coefficient_symbol(1)
    assert algebraic.unknowns[-2:] == (first, second)
    values = {**POINT, **UNKNOWNS}
    u = _closed(algebraic, values)[UPSILON].real
    lam, weights = marchenko_pastur_rule(np.array(values[S.c]), NODES)
    values[first], values[second] = (float(np.sum(weights * lam**k / (1 + u * lam))) for k in (1, 2))
    closed = _closed(algebraic, values)
    expected, weighted = _quadrature(system.definitions[DYSON], values)
    assert np.allclose(_matrix(closed, AVERAGE, 3), expected, atol=1e-11, rtol=0)
    assert np.allclose(_matrix(closed, WEIGHTED_AVERAGE, 3), weighted, atol=1e-11, rtol=0)
    for zeta in (first, second):
        residual = algebraic.residuals[zeta].xreplace({**closed_symbols(closed), **values})
        assert abs(float(sp.N(residual))) < 1e-10
    # Power: psi_1 and psi_2 swapped in the closed form miss both averages.
    swapped = {**values, first: values[second], second: values[first]}
    assert not np.allclose(_matrix(_closed(algebraic, swapped), AVERAGE, 3), expected, atol=1e-6)


def test_constant_route_and_refusals():
    kernel = algebraic_form(density_system("kernel").subs({S.a1: 0}))       # lambda left the pencil
    assert kernel.unknowns == (S.trace_symbol(1, 1),) and not kernel.averages
    system = attention_system()
    quadratic = dataclasses.replace(system, definitions={**system.definitions,
                                                         DYSON: system.definitions[DYSON] + S.lam**2 * sp.eye(3)})
    with pytest.raises(ValueError, match="not linear"):
        algebraic_form(quadratic)
    other = dict(system.averages)
    tau = next(iter(other))
    other[tau] = SpectralAverage(S.lam**2 * other[tau].integrand, other[tau].law, S.lam)
    with pytest.raises(ValueError, match="is not E"):
        algebraic_form(dataclasses.replace(system, averages=other))
    with pytest.raises(ValueError, match="form"):
        in_form(system, "fast")


def test_algebraic_systems_have_no_averages_and_polynomial_equations():
    for system in (attention_system(2, "algebraic"), linear_system("algebraic"), density_system("kernel", "algebraic")):
        assert not system.averages and system.name.endswith("algebraic")
        zetas = [z for z in system.unknowns if z.name.startswith("zeta")]
        for unknown in zetas:
            for residual, _ in (system.residuals[unknown].args if isinstance(system.residuals[unknown], sp.Piecewise)
                                else [(system.residuals[unknown], True)]):
                assert sp.Poly(residual, *zetas).total_degree() in (1, 2)
