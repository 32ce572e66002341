"""The derivation layer: each step checked against an independent hand computation."""
import sympy as sp

from symrmt.codegen import expand_definitions
from symrmt.derive import attention_system, linear_system
from symrmt.derive import symbols as S
from symrmt.derive.attention import DYSON, ERROR, PHI, RESOLVENT
from symrmt.derive.gaussian_equivalent import data_low_rank, score_low_rank
from symrmt.derive.latex import hermite_substitution, system_latex
from symrmt.derive.pencil import ridge_pencil


def test_score_low_rank_is_sigma_of_the_theory():
    # docs/theory.md: L = (a1/p) [y, s, k] Sigma [y, s, q]^T; note alpha_K in row 1, alpha_Q in row 3.
    lr = score_low_rank()
    assert lr.left == ("y", "s", "k") and lr.right == ("y", "s", "q")
    expected = sp.Matrix([[S.theta + S.alpha_K * S.alpha_Q, 1, S.alpha_K], [1, 0, 0], [S.alpha_Q, 0, 1]])
    assert sp.simplify(lr.core - expected) == sp.zeros(3, 3)


def test_rank_r_sigma_has_the_block_structure():
    # Sigma[y, y] = theta + alpha_K . alpha_Q, Sigma[k_i, y] = alpha_Q,i, Sigma[y, q_i] = alpha_K,i, Sigma[k_i, q_j] = delta_ij.
    r = 3
    lr = score_low_rank(r)
    keys, queries = S.weight_vectors(r)
    assert lr.left == ("y", "s", "k1", "k2", "k3") and lr.right == ("y", "s", "q1", "q2", "q3")
    alpha_K = [S.gram_symbol("mu", k) for k in keys]
    alpha_Q = [S.gram_symbol("mu", q) for q in queries]
    expected = sp.zeros(2 + r, 2 + r)
    expected[0, 0] = S.theta + sum(a * b for a, b in zip(alpha_K, alpha_Q))
    expected[0, 1] = expected[1, 0] = 1
    for i in range(r):
        expected[2 + i, 0] = alpha_Q[i]
        expected[0, 2 + i] = alpha_K[i]
        expected[2 + i, 2 + i] = 1
    assert sp.simplify(lr.core - expected) == sp.zeros(2 + r, 2 + r)


def test_rank_r_woodbury_carries_2r_plus_6_vectors():
    for r in (1, 2, 3):
        assert attention_system(r).observables[PHI].size == 2 * r + 6


def test_data_low_rank_is_p():
    lr = data_low_rank()
    assert lr.terms() == {("y", "y"): S.theta, ("y", "s"): 1, ("s", "y"): 1}


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


def test_system_resolvent_is_the_inverse_of_the_printed_dyson_matrix():
    system = attention_system()
    explicit = expand_definitions(system.definitions)
    M = sp.Matrix(3, 3, lambda i, j: explicit[DYSON[i, j]])
    R = sp.Matrix(3, 3, lambda i, j: explicit[RESOLVENT[i, j]])
    assert sp.simplify(R * M - sp.eye(3)) == sp.zeros(3, 3)


def test_residuals_are_the_dyson_fixed_point():
    system = attention_system()
    assert {t.name: r for t, r in system.residuals.items()} == {
        "t_11": S.trace_symbol(1, 1) - S.tau_symbol(1, 1) / S.c,
        "t_12": S.trace_symbol(1, 2) - S.tau_symbol(1, 2) / S.c,
        "t_22": S.trace_symbol(2, 2) - S.tau_symbol(2, 2) / S.c}
    assert system.averages[S.tau_symbol(1, 2, True)].integrand == S.lam * RESOLVENT[0, 1]


def test_linear_yqy_closed_form_with_rank_one_signal():
    # Woodbury by hand for Q = (gamma + cA + P/n)^{-1}: compare the derived formula in the averages.
    value = linear_system().observables[PHI].expression()
    t11, t13, t33, ta33 = (S.tau_symbol(1, 1), S.tau_symbol(1, 3), S.tau_symbol(3, 3), S.tau_symbol(3, 3, True))
    theta = S.theta
    # G = diag(t33, theta*ta33), C = [[theta, 1], [1, 0]], g = (t13, 0)
    G, C, g = sp.diag(t33, theta * ta33), sp.Matrix([[theta, 1], [1, 0]]), sp.Matrix([t13, 0])
    hand = t11 - (g.T * C * (sp.eye(2) + G * C).inv() * g)[0, 0]
    assert sp.simplify(value - hand) == 0


def test_attention_reduces_to_noise_only_without_signal():
    system = attention_system().subs({s: 0 for s in S.gram_symbols(1)})
    assert sp.simplify(system.observables[PHI].expression() - S.tau_symbol(1, 1)) == 0


def test_a1_zero_kills_the_score_coupling():
    # a_1 = 0: the attention block of the Woodbury core vanishes (only the data block P/n remains).
    core = attention_system().observables[PHI].core.subs(S.a1, 0)
    assert core[:6, :] == sp.zeros(6, 8)


def test_error_is_minus_gamma_squared_dphi():
    error = attention_system().observables[ERROR]
    assert error == -S.gamma**2 * sp.Derivative(sp.Function("Phi")(S.gamma), S.gamma)


def test_latex_with_exact_hermite_data():
    text = system_latex(attention_system(), hermite_substitution(2 / sp.sqrt(3 * sp.pi),
                                                                2 / sp.pi * sp.asin(sp.Rational(2, 3))))
    assert r"\operatorname{asin}" in text and r"E_\mathrm{attn}(\gamma)" in text and "a_{1}" not in text
    assert r"\mathsf{G}" in text and r"t_{11} &= \frac{\tau_{11}}{c}" in text
    assert r"R(\lambda) &= M(\lambda)^{-1}" in text
    assert text.count(r"\begin{aligned}") == text.count(r"\end{aligned}") >= 4
