"""symrmt.solve.observe: observables and their rates along the continuation variable (implicit differentiation)."""
import numpy as np

from symrmt.codegen import compile_system
from symrmt.derive import attention_system, density_system
from symrmt.derive import symbols as S
from symrmt.derive.attention import ERROR, PHI
from symrmt.derive.density import DENSITY, STIELTJES
from symrmt.solve import solve

TANH = (0.6057055, 0.3942945)
B = np.sqrt(TANH[1] - TANH[0] ** 2)


def test_implicit_derivative_matches_finite_differences():
    # E = -gamma^2 dPhi/dgamma from the implicit derivative, against a central difference of Phi.
    gamma, h = 0.2, 1e-5
    params = {S.c: 1.5, S.gamma: np.array([gamma - h, gamma, gamma + h]), S.a1: TANH[0], S.b: B, S.d: 0.3,
              S.theta: 1.44, S.alpha_K: 1.08, S.alpha_Q: 0.576, S.omega_KK: 2.25, S.omega_QQ: 0.64,
              S.omega_KQ: 0.12}
    res = solve(compile_system(attention_system()), params)
    fd = -gamma**2 * (res[PHI][2] - res[PHI][0]) / (2 * h)
    assert np.isclose(res[ERROR][1], fd, rtol=1e-6)


def test_density_is_the_imaginary_part_of_the_stieltjes_transform_over_pi():
    result = solve(compile_system(density_system("kernel")),
                   {S.c: 2.0, S.x: np.array([-0.5, 0.5]), S.eta: 0.1, S.a1: TANH[0], S.b: B, S.d: 0.0})
    assert np.iscomplexobj(result[STIELTJES]) and not np.iscomplexobj(result[DENSITY])
    assert np.allclose(result[DENSITY], result[STIELTJES].imag / np.pi, rtol=0, atol=1e-15)
    assert np.all(result[DENSITY] >= 0)
