"""symrmt.derive.attention: the ridge systems of attention and linear regression."""
import sympy as sp

from symrmt.derive import attention_system, derivative_of, linear_system
from symrmt.derive import symbols as S
from symrmt.derive.attention import ERROR, PHI, RESOLVENT


def test_residuals_are_the_dyson_fixed_point():
    system = attention_system()
    assert {t.name: r for t, r in system.residuals.items()} == {
        "t_11": S.trace_symbol(1, 1) - S.tau_symbol(1, 1) / S.c,
        "t_12": S.trace_symbol(1, 2) - S.tau_symbol(1, 2) / S.c,
        "t_22": S.trace_symbol(2, 2) - S.tau_symbol(2, 2) / S.c}
    assert system.averages[S.tau_symbol(1, 2, True)].integrand == S.lam * RESOLVENT[0, 1]


def test_attention_reduces_to_noise_only_without_signal():
    system = attention_system().subs({s: 0 for s in S.gram_symbols(1)})
    assert sp.simplify(system.observables[PHI].expression() - S.tau_symbol(1, 1)) == 0


def test_error_is_minus_gamma_squared_dphi():
    error = attention_system().observables[ERROR]
    assert error == -S.gamma**2 * sp.Derivative(PHI, S.gamma)
    assert error.atoms(sp.Derivative) == {derivative_of(PHI, S.gamma)}


def test_rank_one_keeps_the_parameter_names():
    assert [p.name for p in attention_system().parameters] == [
        "c", "gamma", "a_1", "b", "d", "theta", "alpha_K", "alpha_Q", "omega_KK", "omega_QQ", "omega_KQ"]


def test_linear_regression_has_only_the_signal_norm_of_the_geometry():
    assert [p.name for p in linear_system().parameters] == ["c", "gamma", "theta"]
    assert linear_system().unknowns == () and set(linear_system().observables) == {PHI, ERROR}


def test_the_solver_data_of_the_ridge_systems():
    system = attention_system()
    t11 = S.trace_symbol(1, 1)
    assert system.branch == (sp.StrictGreaterThan(S.c * t11, 0), sp.LessThan(S.gamma * S.c * t11, 1))
    assert system.admissible[PHI].upper == 1 / S.gamma and system.admissible[PHI].accuracy == "relative"
    assert (system.admissible[ERROR].lower, system.admissible[ERROR].upper) == (0, 1)
    assert system.continuation.variable == S.gamma and set(system.continuation.initial.values()) == {0}
