"""symrmt.derive.dyson: one Dyson fixed point, law and start scale for the ridge and the density systems."""
import sympy as sp

from symrmt.derive import attention_system, density_system
from symrmt.derive import symbols as S
from symrmt.derive.dyson import (KERNEL_SCALE, MARCHENKO_PASTUR, NOISE_KERNEL, START_FACTOR, dyson_fixed_point,
                                 noise_pencil, resolvent_average, ridge_scale)
from symrmt.derive.pencil import Pencil


def test_residuals_and_averages_are_t_minus_tau_over_c():
    kernel = Pencil(sp.Matrix([[NOISE_KERNEL - S.x]]), sp.Matrix([[S.b]]))
    dyson = dyson_fixed_point(kernel)
    t11, tau11 = S.trace_symbol(1, 1), S.tau_symbol(1, 1)
    assert dyson.unknowns == {t11: (1, 1)} and dyson.residuals == {t11: t11 - tau11 / S.c}
    assert dyson.averages[tau11].integrand == dyson.resolvent[0, 0] and dyson.averages[tau11].law == MARCHENKO_PASTUR
    M, R = list(dyson.definitions)
    assert dyson.definitions[R] == sp.Inverse(M)
    assert sp.expand(dyson.definitions[M][0, 0] - (S.a1 * S.lam + S.d - S.a1 - S.x - S.b**2 * t11)) == 0


def test_ridge_and_density_systems_share_the_same_dyson_equations():
    attention, gram = attention_system(), density_system("gram")
    ridge = dyson_fixed_point(noise_pencil())
    assert dict(attention.residuals) == ridge.residuals == dict(gram.residuals)
    for tau, average in ridge.averages.items():
        assert attention.averages[tau] == average == gram.averages[tau]
    assert resolvent_average(ridge.resolvent, 3, 3, weighted=True).integrand == S.lam * ridge.resolvent[2, 2]


def test_starts_are_start_factor_times_the_spectrum_scale():
    assert attention_system().continuation.start == START_FACTOR * ridge_scale(KERNEL_SCALE)
    gram = density_system("gram").continuation.start
    assert sp.simplify(gram - START_FACTOR * (ridge_scale(KERNEL_SCALE) + sp.Abs(S.x))) == 0
    assert ridge_scale(1) == (1 + S.c) * (1 + 1 / S.c)
