"""symrmt.derive.pencil: the covariance map and the pencil's inverse, against hand computations."""
import sympy as sp

from symrmt.derive import symbols as S
from symrmt.derive.pencil import ridge_pencil


def test_covariance_map_places_wigner_traces_crosswise():
    pencil = ridge_pencil(S.a1 * S.lam + S.d - S.a1, S.b, S.c * S.lam)
    t11, t12, t22 = (S.trace_symbol(1, 1), S.trace_symbol(1, 2), S.trace_symbol(2, 2))
    sigma = pencil.self_energy()
    assert sigma[0, 0] == S.b**2 * t22 and sigma[1, 1] == S.b**2 * t11 and sigma[0, 1] == S.b**2 * t12
    assert sigma[2, 2] == 0 and set(pencil.unknowns()) == {t11, t12, t22}


def test_pencil_top_left_block_is_ridge_resolvent():
    # Schur complement by hand: (gamma + k(lambda)^2 C(lambda))^{-1} when there is no Wigner part.
    k, C = S.a1 * S.lam + S.d, S.c * S.lam
    r11 = ridge_pencil(k, 0, C).resolvent()[0, 0]
    assert sp.simplify(r11 - 1 / (S.gamma + k**2 * C)) == 0
